package gateway

import (
	"fmt"
	"net"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

// CheckHTTPListener refuses to serve HTTP on addr, an address other machines can reach, when
// the Config has no access control and does not say InsecureHTTP: anyone who reaches it could
// call every tool. Loopback addresses need nothing, except for the operator tier, which HTTP
// serves only behind access control (checkOperatorAccess).
func CheckHTTPListener(addr net.Addr, cfg Config) error {
	if err := checkOperatorAccess(addr, cfg); err != nil {
		return err
	}
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

// checkOperatorAccess refuses to serve the operator tier's tools, which run commands on
// workers, over HTTP without access control, on any address, loopback included, and whatever
// InsecureHTTP says: every local program, and every page a browser on the machine opens, can
// reach a loopback port, so an operator tool is called only by a caller whose token says
// operator. Over stdio the caller is the person who started holler, and no token is needed.
func checkOperatorAccess(addr net.Addr, cfg Config) error {
	if cfg.MaxTier < hootv1.Tier_TIER_OPERATOR || cfg.Access != nil {
		return nil
	}
	return fmt.Errorf("--max-tier operator serves tools that run commands on the workers, and the HTTP endpoint %s has no access control, "+
		"so any program that reaches it could run them. Give the operator a token: \"holler token add NAME --tier operator --file tokens\" "+
		"prints one, and holler started with --tokens tokens takes it (or OAuth with --oauth-scope-tier SCOPE=operator). "+
		"Over stdio (holler mcp) no token is needed; otherwise use --max-tier admin or lower", addr)
}
