package httpcheck

import "testing"

func TestHostAllowed(t *testing.T) {
	t.Parallel()
	allowed := []string{"mcp.example.org", "tools.example.net:8443", "[2001:db8::1]"}
	for host, want := range map[string]bool{
		"":                        true, // HTTP/1.0
		"localhost":               true,
		"LOCALHOST:8080":          true,
		"localhost.:8080":         true,
		"127.0.0.1:1":             true,
		"127.8.9.10":              true,
		"[::1]:8080":              true,
		"mcp.example.org":         true,
		"MCP.example.org:443":     true, // a name without a port allows every port
		"tools.example.net:8443":  true,
		"tools.example.net:9000":  false, // a name with a port allows that port only
		"[2001:db8::1]:80":        true,
		"attacker.example":        false,
		"localhost.attacker.test": false,
		"10.0.0.1:8080":           false,
		"[::2]:8080":              false,
	} {
		if got := HostAllowed(host, allowed); got != want {
			t.Errorf("HostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
	if !HostAllowed("anything.example:1", []string{"*"}) {
		t.Error(`"*" does not allow every host`)
	}
	if HostAllowed("mcp.example.org", nil) {
		t.Error("a host that is not loopback is allowed with no allow list")
	}
}

func TestOriginAllowed(t *testing.T) {
	t.Parallel()
	allowed := []string{"https://studio.example.org/"}
	for _, c := range []struct {
		origin, host string
		want         bool
	}{
		{"https://studio.example.org", "gw.example.org", true},
		{"HTTPS://STUDIO.example.org", "gw.example.org", true},
		{"https://gw.example.org:8443", "gw.example.org:8443", true}, // the server's own
		{"http://localhost:3000", "gw.example.org", true},
		{"http://127.0.0.1:5173", "gw.example.org", true},
		{"http://[::1]", "gw.example.org", true},
		{"https://attacker.example", "gw.example.org", false},
		{"https://gw.example.org", "gw.example.org:8443", false}, // another port is another origin
		{"null", "gw.example.org", false},
		{"::bad", "gw.example.org", false},
	} {
		if got := OriginAllowed(c.origin, c.host, allowed); got != c.want {
			t.Errorf("OriginAllowed(%q, %q) = %v, want %v", c.origin, c.host, got, c.want)
		}
	}
}

func TestIsJSON(t *testing.T) {
	t.Parallel()
	for ct, want := range map[string]bool{
		"application/json": true, "application/json; charset=utf-8": true, "Application/JSON": true,
		"application/vnd.api+json": true, "text/json": false, "text/plain": false, "": false,
		"application/x-www-form-urlencoded": false, "application/json;;": false,
	} {
		if got := IsJSON(ct); got != want {
			t.Errorf("IsJSON(%q) = %v, want %v", ct, got, want)
		}
	}
}

func TestAccepts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		values            []string
		wantJSON, wantSSE bool
	}{
		{nil, true, true},
		{[]string{"application/json, text/event-stream"}, true, true},
		{[]string{"application/json", "text/event-stream"}, true, true},
		{[]string{"*/*"}, true, true},
		{[]string{"application/json"}, true, false},
		{[]string{"text/event-stream;q=1"}, false, true},
		{[]string{"text/*"}, false, true},
		{[]string{"image/png"}, true, false}, // named neither: JSON, which needs no streaming
		{[]string{"@@@"}, true, true},        // nothing readable: as if no header came
	} {
		j, s := Accepts(c.values)
		if j != c.wantJSON || s != c.wantSSE {
			t.Errorf("Accepts(%q) = %v, %v; want %v, %v", c.values, j, s, c.wantJSON, c.wantSSE)
		}
	}
}
