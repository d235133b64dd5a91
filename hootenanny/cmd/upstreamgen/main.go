// Command upstreamgen turns an upstream's OpenRPC description and its manifest into what the
// project builds on: the inventory (every method the description defines, checked in), a .proto
// file with a typed tool for each method the manifest serves, the Go handler that passes each
// tool's call through the upstream's policy, and the members of Payload and Result between the
// marker lines of envelope.proto. It runs before buf generate:
//
//	go run ./hootenanny/cmd/upstreamgen -upstream eth -spec ../shared/upstreams/ethereum-execution-apis/src
//	make generate
//
// (make upstream-eth runs both.) It writes nothing unless every output could be made.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hootenanny/hoot/hootenanny/internal/openrpc"
	"github.com/hootenanny/hoot/hootenanny/internal/upstream"
)

// An upstreamConfig says where one upstream's description and outputs are.
type upstreamConfig struct {
	// methodDirs and schemaDirs are relative to the spec's root.
	methodDirs, schemaDirs []string
	// pkgDir is the Go package that holds the manifest and inventory and gets the handler.
	pkgDir string
	// protoFile is the .proto written, relative to the repository's root.
	protoFile string
	// prefix starts the names of the messages, tools and Go identifiers (Eth, eth).
	prefix string
	// service is the worker service that serves the tools.
	service string
	// payloadBase numbers the Payload and Result members, apart from every other tool's.
	payloadBase int
	// source is what the inventory says it was made from.
	source string
}

var upstreams = map[string]upstreamConfig{
	"eth": {
		methodDirs:  []string{"eth", "debug", "txpool", "testing", "engine/openrpc/methods"},
		schemaDirs:  []string{"schemas", "engine/openrpc/schemas"},
		pkgDir:      "hootenanny/internal/ethservice",
		protoFile:   "proto/hoot/v1/eth.proto",
		prefix:      "Eth",
		service:     "eth",
		payloadBase: 2000,
		source:      "github.com/ethereum/execution-apis src/ at 033ca6e69da000445840d2060ff47e5e56172a86",
	},
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "upstreamgen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("upstreamgen", flag.ContinueOnError)
	name := fs.String("upstream", "eth", "the upstream to generate")
	spec := fs.String("spec", "", "the `directory` of the upstream's OpenRPC description (for eth: the execution-apis src/)")
	root := fs.String("root", ".", "the repository's root `directory`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, ok := upstreams[*name]
	if !ok {
		return fmt.Errorf("-upstream %q: no such upstream (known: eth)", *name)
	}
	if *spec == "" {
		return errors.New("-spec is required: the directory of the upstream's OpenRPC description")
	}
	s, err := openrpc.Load(*spec, cfg.methodDirs, cfg.schemaDirs)
	if err != nil {
		return err
	}
	inv := inventoryOf(*name, cfg.source, s)
	invJSON, err := json.MarshalIndent(inv, "", "  ")
	if err != nil {
		return err
	}
	invJSON = append(invJSON, '\n')
	manifestBytes, err := os.ReadFile(filepath.Join(*root, cfg.pkgDir, "manifest.csv"))
	if err != nil {
		return fmt.Errorf("%w (write one row per method of the inventory first)", err)
	}
	m, err := upstream.ParseManifest(bytes.NewReader(manifestBytes))
	if err != nil {
		return err
	}
	if missing, unknown := upstream.Coverage(inv, m); len(missing)+len(unknown) > 0 {
		// The inventory is still written, so that the rows to add can be read off it.
		if err := os.WriteFile(filepath.Join(*root, cfg.pkgDir, "inventory.json"), invJSON, 0o644); err != nil {
			return err
		}
		return fmt.Errorf("the manifest does not cover the inventory: methods without a row %v; rows naming no method %v", missing, unknown)
	}
	lockPath := filepath.Join(*root, cfg.pkgDir, "numbers.csv")
	lock, err := readNumbers(lockPath)
	if err != nil {
		return err
	}
	g := newGenerator(s, m, cfg)
	g.numbers = assignNumbers(s, lock, cfg.payloadBase)
	for name, n := range lock {
		// A method gone from the description keeps its number in the lock, unused.
		if _, ok := g.numbers[name]; !ok {
			g.numbers[name] = n
		}
	}
	protoText, goText, members, err := g.generate()
	if err != nil {
		return err
	}
	envPath := filepath.Join(*root, "proto/hoot/v1/envelope.proto")
	env, err := os.ReadFile(envPath)
	if err != nil {
		return err
	}
	env, err = replaceMembers(env, *name, members)
	if err != nil {
		return err
	}
	outputs := []struct {
		path string
		data []byte
	}{
		{filepath.Join(*root, cfg.pkgDir, "inventory.json"), invJSON},
		{filepath.Join(*root, cfg.protoFile), protoText},
		{filepath.Join(*root, cfg.pkgDir, "handler_gen.go"), goText},
		{envPath, env},
		{lockPath, writeNumbers(g.numbers)},
	}
	for _, o := range outputs {
		if err := os.WriteFile(o.path, o.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func inventoryOf(name, source string, s *openrpc.Spec) *upstream.Inventory {
	inv := &upstream.Inventory{Upstream: name, Source: source}
	for _, m := range s.Methods {
		im := upstream.InventoryMethod{Name: m.Name, Summary: oneLine(m.Summary), File: m.File, Params: []string{}}
		for _, p := range m.Params {
			im.Params = append(im.Params, p.Name)
		}
		if m.Result != nil {
			im.Result = m.Result.Name
		}
		inv.Methods = append(inv.Methods, im)
	}
	return inv
}

// replaceMembers puts members between the marker lines of the upstream in the Payload and
// Result oneofs of envelope.proto.
func replaceMembers(env []byte, name string, members [2][]string) ([]byte, error) {
	text := string(env)
	for i, which := range []string{"request", "result"} {
		begin := fmt.Sprintf("    // BEGIN upstream %s %s (written by hootenanny/cmd/upstreamgen)\n", name, which)
		end := fmt.Sprintf("    // END upstream %s %s\n", name, which)
		b := strings.Index(text, begin)
		e := strings.Index(text, end)
		if b < 0 || e < b {
			return nil, fmt.Errorf("envelope.proto: the lines %q and %q must enclose the upstream's members of the %s oneof", strings.TrimSpace(begin), strings.TrimSpace(end), which)
		}
		text = text[:b+len(begin)] + strings.Join(members[i], "") + text[e:]
	}
	return []byte(text), nil
}

// readNumbers reads the lock of member numbers: CSV lines method,number after a header line.
// A missing file is an empty lock.
func readNumbers(path string) (map[string]int, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]int{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	used := map[int]string{}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" || line == "method,number" || strings.HasPrefix(line, "#") {
			continue
		}
		name, num, ok := strings.Cut(line, ",")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n <= 0 {
			return nil, fmt.Errorf("%s line %d: want method,number", path, i+1)
		}
		if other, dup := used[n]; dup {
			return nil, fmt.Errorf("%s line %d: %d is already %s's", path, i+1, n, other)
		}
		out[name], used[n] = n, name
	}
	return out, nil
}

func writeNumbers(numbers map[string]int) []byte {
	names := make([]string, 0, len(numbers))
	for n := range numbers {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return numbers[names[i]] < numbers[names[j]] })
	var b strings.Builder
	b.WriteString("# The Payload and Result member number of each method, written by hootenanny/cmd/upstreamgen.\n")
	b.WriteString("# A number is never reused or changed: a refreshed description only adds lines.\n")
	b.WriteString("method,number\n")
	for _, n := range names {
		fmt.Fprintf(&b, "%s,%d\n", n, numbers[n])
	}
	return []byte(b.String())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
