// Package httpcheck holds the checks of an HTTP request to the MCP endpoint that come before
// MCP itself: that its Host and Origin name this server (against DNS rebinding), what its
// Content-Type and Accept headers ask for, and reading its body with a bound. Each is a
// function of the request's headers and the server's allow lists; none knows JSON-RPC.
package httpcheck

import (
	"io"
	"mime"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// HostAllowed reports whether a request's Host (host and port, as Request.Host has it) names
// this server: a loopback name with any port, or a host of allowed ("*" allows all; a name
// without a port allows every port).
func HostAllowed(hostport string, allowed []string) bool {
	if hostport == "" {
		// Only HTTP/1.0 requests come without a Host, and no browser sends those.
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() {
		return true
	}
	for _, a := range allowed {
		a = strings.TrimSuffix(a, ".")
		if a == "*" || strings.EqualFold(a, hostport) || strings.EqualFold(strings.TrimSuffix(strings.TrimPrefix(a, "["), "]"), host) {
			return true
		}
	}
	return false
}

// OriginAllowed reports whether a browser Origin may use the server: one of allowed, the
// server's own (host, the request's Host), or a loopback origin.
func OriginAllowed(origin, host string, allowed []string) bool {
	for _, o := range allowed {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	name := u.Hostname()
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.IsLoopback()
}

// IsJSON reports whether a Content-Type names JSON: application/json, or a JSON
// type with a suffix such as application/vnd.x+json.
func IsJSON(ct string) bool {
	mt, ok := MediaType(ct)
	if !ok {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// MediaType returns the media type of a Content-Type or Accept value, without parameters, as
// mime.ParseMediaType does. The common plain forms ("application/json") are read without it:
// it allocates a map of parameters for every value, on every request.
func MediaType(v string) (string, bool) {
	slash := strings.IndexByte(v, '/')
	plain := slash > 0 && slash < len(v)-1
	for i := 0; plain && i < len(v); i++ {
		c := v[i]
		plain = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == '*' ||
			c == '/' && i == slash
	}
	if plain {
		return v, true
	}
	mt, _, err := mime.ParseMediaType(v)
	return mt, err == nil
}

// Accepts reads the Accept headers leniently: clients should list both application/json and
// text/event-stream, but a missing header or a wildcard accepts both, and a client that lists
// only one gets only that one.
func Accepts(values []string) (jsonOK, sseOK bool) {
	named := false
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, ok := MediaType(strings.TrimSpace(part))
			if !ok {
				continue
			}
			named = true
			switch mt {
			case "*/*":
				jsonOK, sseOK = true, true
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			}
		}
	}
	if !named || (!jsonOK && !sseOK) {
		// A client that names neither still understands one of them; JSON is the one that
		// needs no streaming.
		return true, !named
	}
	return jsonOK, sseOK
}

// bodyPrealloc is the largest declared length that ReadBody makes room for before the
// bytes arrive: a client that declares much and sends little should not hold much memory.
const bodyPrealloc = 64 << 10

// ReadBody reads r to its end, as io.ReadAll does, into a buffer sized for a body of the
// declared length (negative when unknown) below limit, so that a usual message is read
// without growing the buffer and without the spare capacity io.ReadAll starts with.
func ReadBody(r io.Reader, declared, limit int64) ([]byte, error) {
	size := int64(512)
	if declared >= 0 && declared < limit && declared < bodyPrealloc {
		// One byte more, so that the read that finds the end needs no room of its own.
		size = declared + 1
	}
	b := make([]byte, 0, size)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF { // as io.ReadAll: the body's readers return io.EOF itself
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
