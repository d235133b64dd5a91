package worker

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/internal/ethservice"
	"github.com/hootenanny/hoot/hootenanny/internal/upstream"
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
			return nil, fmt.Errorf("--upstream %s: the URL must be http:// or https:// with a host, such as http://127.0.0.1:8545", name)
		}
		out[name] = raw
	}
	return out, nil
}

// ParseUpstreamManifests reads --upstream-manifest values, each NAME=FILE: an operator's copy
// of an upstream's manifest that the worker's policy follows instead of the built-in one. It
// must have a row for every method of the inventory, and may only take away: a method the
// built-in manifest does not serve has no tool, and cannot be served by a copy.
func ParseUpstreamManifests(values []string) (map[string]*upstream.Manifest, error) {
	out := map[string]*upstream.Manifest{}
	for _, v := range values {
		name, file, ok := strings.Cut(v, "=")
		if !ok || name == "" || file == "" {
			return nil, fmt.Errorf("--upstream-manifest wants NAME=FILE, as eth=/etc/hoot/eth-manifest.csv")
		}
		if name != ethservice.Name {
			return nil, fmt.Errorf("--upstream-manifest %s: no such upstream (known: %s)", name, strings.Join(KnownUpstreams, ", "))
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--upstream-manifest %s: %w", name, err)
		}
		m, err := upstream.ParseManifest(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("--upstream-manifest %s: %s: %w", name, file, err)
		}
		inv, err := ethservice.Inventory()
		if err != nil {
			return nil, err
		}
		if missing, unknown := upstream.Coverage(inv, m); len(missing)+len(unknown) > 0 {
			return nil, fmt.Errorf("--upstream-manifest %s: %s must have one row per method of the inventory: no row for %v; rows naming no method %v", name, file, missing, unknown)
		}
		built, err := ethservice.Manifest()
		if err != nil {
			return nil, err
		}
		for _, method := range m.Methods() {
			row, _ := m.Row(method)
			base, _ := built.Row(method)
			if row.Served() && !base.Served() {
				return nil, fmt.Errorf("--upstream-manifest %s: %s serves %s, which this build has no tool for; a copy may only turn methods off (serving more takes make upstream-eth)", name, file, method)
			}
		}
		out[name] = m
	}
	return out, nil
}

// upstreamServices are the services of the upstream wrappers. They are served with or without
// a URL: without one, each call says how to give it.
func upstreamServices(cfg Config) ([]hootv1hoot.Service, error) {
	eth, err := ethservice.New(ethservice.Config{
		URL: cfg.Upstreams[ethservice.Name], Manifest: cfg.UpstreamManifests[ethservice.Name],
		Timeout: cfg.UpstreamTimeout, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	return []hootv1hoot.Service{hootv1hoot.NewEthService(eth)}, nil
}
