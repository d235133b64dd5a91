package worker

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/internal/ethservice"
)

// KnownUpstreams are the upstream wrappers a worker serves, by the name --upstream gives.
var KnownUpstreams = []string{ethservice.Name}

// ParseUpstreams reads --upstream values, each NAME=URL, into URLs by name. The error never
// repeats a URL, which may hold a key.
func ParseUpstreams(values []string) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range values {
		name, raw, ok := strings.Cut(v, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || raw == "" {
			return nil, fmt.Errorf("--upstream wants NAME=URL, as eth=http://127.0.0.1:8545")
		}
		known := false
		for _, k := range KnownUpstreams {
			known = known || k == name
		}
		if !known {
			return nil, fmt.Errorf("--upstream %s: no such upstream (known: %s)", name, strings.Join(KnownUpstreams, ", "))
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("--upstream %s is given twice", name)
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--upstream %s: the URL must be http://HOST[:PORT][/PATH] or https://...", name)
		}
		out[name] = raw
	}
	return out, nil
}

// upstreamServices are the services of the upstream wrappers. They are served with or without
// a URL: without one, each call says how to give it.
func upstreamServices(cfg Config) ([]hootv1hoot.Service, error) {
	eth, err := ethservice.New(ethservice.Config{URL: cfg.Upstreams[ethservice.Name], Timeout: cfg.UpstreamTimeout, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	return []hootv1hoot.Service{hootv1hoot.NewEthService(eth)}, nil
}
