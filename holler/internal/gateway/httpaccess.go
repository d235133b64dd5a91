package gateway

import (
	"fmt"
	"net"
)

// CheckHTTPListener refuses to serve HTTP on addr, an address other machines can reach, when
// the Config has no access control and does not say InsecureHTTP: anyone who reaches it could
// call every tool. Loopback addresses need nothing.
func CheckHTTPListener(addr net.Addr, cfg Config) error {
	if cfg.Access != nil || cfg.InsecureHTTP || isLoopbackAddr(addr) {
		return nil
	}
	return fmt.Errorf("the HTTP endpoint %s is reachable from other machines, and anyone there could call every tool. "+
		"Give callers tokens: \"holler token add alice --tier standard --file tokens\" prints a token for alice, and holler started with "+
		"--tokens tokens takes it as the header Authorization: Bearer TOKEN. Or take OAuth access tokens with --oauth-issuer URL "+
		"--oauth-audience URL_OF_THIS_ENDPOINT --oauth-scope-tier SCOPE=TIER. To serve this machine only, use --http-addr 127.0.0.1:8080; "+
		"on a network you trust, --insecure-http serves the endpoint without access control", addr)
}

// isLoopbackAddr reports whether a listener's address can be reached from this machine only.
// An unspecified address (0.0.0.0, ::) listens on every interface and is not loopback.
func isLoopbackAddr(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
