package zmqtransport

import (
	"net"
	"strings"
)

// Loopback reports whether endpoint can be reached only from this machine: a tcp:// endpoint
// bound to a loopback address or to localhost, or an ipc:// or inproc:// one. Anything else,
// such as tcp://*:5580, tcp://0.0.0.0:5580, a host name or an interface name, counts as
// reachable from other machines.
func Loopback(endpoint string) bool {
	if strings.HasPrefix(endpoint, "ipc://") || strings.HasPrefix(endpoint, "inproc://") {
		return true
	}
	rest, ok := strings.CutPrefix(endpoint, "tcp://")
	if !ok {
		return false
	}
	// ZeroMQ allows "source;destination" on connect; a bind address has no source.
	if strings.Contains(rest, ";") {
		return false
	}
	host, _, err := net.SplitHostPort(rest)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
