// Command walk measures how a request's handling moves between holler's source files.
//
// It extracts a commit of the repository into a temporary directory, adds to the start of every
// function of holler's non-test files a call that records the function's file when it is
// entered and when it returns, and runs one test of holler/internal/mcp (walkTestSource below)
// that sends real POST tools/call requests through the server, once in each protocol era, with
// the recording on only while each POST is in flight. From the recording it reports, for each
// POST and for the extent of the function that handles the tools/call (-inner, callTool by
// default, which also names CallTool), how many of holler's files the walk visits and how many times it comes back to a
// file it had already left.
//
// The walk is the sequence of files of the function that runs: entering a function moves it to
// that function's file, and returning moves it back to the caller's. Repeats of the same file in
// a row count once. A second count walks the entries only (the files of the functions entered, in
// order), which does not count coming back from a call. Each goroutine's walk is taken whole, goroutines in the order in which they
// first ran holler's code, so the numbers do not depend on scheduling. Only holler's files are
// recorded: hooteproto, gen and the standard library are outside the walk.
//
// Usage, from tools/:
//
//	go run ./walk -repo .. -rev HEAD
//	go run ./walk -repo .. -rev main -v   # also print each walk
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

const recorderImport = "github.com/hootenanny/hoot/holler/internal/walkrec"

func main() {
	repo := flag.String("repo", "..", "the repository to measure")
	rev := flag.String("rev", "HEAD", "the commit to measure")
	inner := flag.String("inner", "callTool", "the function whose extent is measured on its own")
	verbose := flag.Bool("v", false, "print each walk")
	keep := flag.Bool("keep", false, "keep the temporary tree")
	flag.Parse()
	if err := run(*repo, *rev, *inner, *verbose, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "walk:", err)
		os.Exit(1)
	}
}

func run(repo, rev, inner string, verbose, keep bool) error {
	dir, err := os.MkdirTemp("", "walk-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("tree:", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	archive := exec.Command("sh", "-c", `git -C "$1" archive "$2" go.work go.work.sum gen holler hooteproto hootenanny | tar -x -C "$3"`, "sh", repo, rev, dir)
	archive.Stderr = os.Stderr
	if err := archive.Run(); err != nil {
		return fmt.Errorf("extract %s: %w", rev, err)
	}
	if err := instrument(filepath.Join(dir, "holler")); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "holler/internal/walkrec"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "holler/internal/walkrec/walkrec.go"), []byte(recorderSource), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "holler/internal/mcp/walk_test.go"), []byte(walkTestSource), 0o644); err != nil {
		return err
	}
	out := filepath.Join(dir, "walk.out")
	test := exec.Command("go", "test", "-count=1", "-run", "^TestWalk$", "./internal/mcp/")
	test.Dir = filepath.Join(dir, "holler")
	test.Env = append(os.Environ(), "WALK_OUT="+out)
	test.Stdout, test.Stderr = os.Stderr, os.Stderr
	if err := test.Run(); err != nil {
		return fmt.Errorf("run the walk test: %w", err)
	}
	return report(out, inner, verbose)
}

// instrument adds the recording call to every function of the non-test Go files under root.
func instrument(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "e2e" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		return instrumentFile(path)
	})
}

func instrumentFile(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	var at []int // offsets just after each function body's opening brace
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		}
		if body != nil {
			at = append(at, fset.Position(body.Lbrace).Offset+1)
		}
		return true
	})
	if len(at) == 0 {
		return nil
	}
	sort.Ints(at)
	var b strings.Builder
	// The import goes right after the package clause, before the file's own imports.
	pkgEnd := fset.Position(f.Name.End()).Offset
	b.Write(src[:pkgEnd])
	b.WriteString("; import walkrec__ " + fmt.Sprintf("%q", recorderImport) + ";")
	prev := pkgEnd
	for _, off := range at {
		b.Write(src[prev:off])
		b.WriteString(" defer walkrec__.Enter()();")
		prev = off
	}
	b.Write(src[prev:])
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// An event is a function entered or left, as the recorder writes it: "label", then
// "> goroutine file func" or "< goroutine".
type event struct {
	enter bool
	g     string
	file  string
	fn    string
}

// A walk is one labelled recording: its events in the order they happened.
type walk struct {
	label  string
	events []event
}

func readWalks(path string) ([]walk, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var walks []walk
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 2 && fields[0] == "walk":
			walks = append(walks, walk{label: fields[1]})
		case len(walks) > 0 && len(fields) == 4 && fields[0] == ">":
			walks[len(walks)-1].events = append(walks[len(walks)-1].events, event{enter: true, g: fields[1], file: fields[2], fn: fields[3]})
		case len(walks) > 0 && len(fields) == 2 && fields[0] == "<":
			walks[len(walks)-1].events = append(walks[len(walks)-1].events, event{g: fields[1]})
		default:
			return nil, fmt.Errorf("%s: unreadable line %q", path, sc.Text())
		}
	}
	return walks, sc.Err()
}

// files returns the walk of events: per goroutine, the file of the running function after each
// event ("" when no recorded function runs), goroutines in the order of their first event.
func files(events []event) []string {
	var order []string
	per := map[string][]event{}
	for _, e := range events {
		if _, ok := per[e.g]; !ok {
			order = append(order, e.g)
		}
		per[e.g] = append(per[e.g], e)
	}
	var seq []string
	for _, g := range order {
		var stack []string
		for _, e := range per[g] {
			if e.enter {
				stack = append(stack, e.file)
			} else if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 {
				seq = append(seq, stack[len(stack)-1])
			}
		}
	}
	return seq
}

// entries returns the files of the functions entered, in order, per goroutine as files does:
// a walk that does not count coming back from a call.
func entries(events []event) []string {
	var order []string
	per := map[string][]string{}
	for _, e := range events {
		if _, ok := per[e.g]; !ok {
			order = append(order, e.g)
		}
		if e.enter {
			per[e.g] = append(per[e.g], e.file)
		}
	}
	var seq []string
	for _, g := range order {
		seq = append(seq, per[g]...)
	}
	return seq
}

// extent returns the events of the first call of a function named inner, from its entry to its
// return, with those of the goroutines that first ran while it did.
func extent(events []event, inner string) []event {
	start, end, g, depth := -1, len(events), "", 0
	for i, e := range events {
		if start < 0 {
			if e.enter && names(e.fn, inner) {
				start, g, depth = i, e.g, 1
			}
			continue
		}
		if e.g != g {
			continue
		}
		if e.enter {
			depth++
		} else if depth--; depth == 0 {
			end = i + 1
			break
		}
	}
	if start < 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, e := range events[:start] {
		seen[e.g] = true
	}
	var out []event
	for _, e := range events[start:end] {
		if e.g == g || !seen[e.g] {
			out = append(out, e)
		}
	}
	return out
}

// names reports whether fn, a function's full name as the runtime gives it, is the function
// inner: named so, or so with its first letter upper-cased, as it is once it moved to a package
// of its own (mcp's callTool is toolcall's CallTool).
func names(fn, inner string) bool {
	if fn == inner || strings.HasSuffix(fn, "."+inner) {
		return true
	}
	return inner != "" && strings.HasSuffix(fn, "."+strings.ToUpper(inner[:1])+inner[1:])
}

// measure returns the distinct files of seq and the number of moves to a file already left.
func measure(seq []string) (visited, returns int, path []string) {
	seen := map[string]bool{}
	cur := ""
	for _, f := range seq {
		if f == cur {
			continue
		}
		if seen[f] {
			returns++
		}
		seen[f] = true
		cur = f
		path = append(path, f)
	}
	return len(seen), returns, path
}

func report(out, inner string, verbose bool) error {
	walks, err := readWalks(out)
	if err != nil {
		return err
	}
	if len(walks) == 0 {
		return fmt.Errorf("the walk test recorded nothing")
	}
	for _, w := range walks {
		for _, part := range []struct {
			name   string
			events []event
		}{{"POST", w.events}, {inner, extent(w.events, inner)}} {
			n, r, path := measure(files(part.events))
			_, re, _ := measure(entries(part.events))
			fmt.Printf("%-8s %-9s files visited %3d   returns to a file already left %3d   (counting entries only %3d)\n", w.label, part.name, n, r, re)
			if verbose {
				fmt.Printf("    %s\n", strings.Join(path, " -> "))
			}
		}
	}
	return nil
}

// recorderSource is the recording package added to the measured tree.
const recorderSource = `// Package walkrec records the functions entered and left while it is on.
package walkrec

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

var (
	on  atomic.Bool
	mu  sync.Mutex
	buf bytes.Buffer
)

func nop() {}

// Enter records the entry of its caller and returns what records its return.
func Enter() func() {
	if !on.Load() {
		return nop
	}
	pc, file, _, ok := runtime.Caller(1)
	if !ok {
		return nop
	}
	fn := runtime.FuncForPC(pc).Name()
	if i := strings.Index(file, "/holler/"); i >= 0 {
		file = file[i+len("/holler/"):]
	}
	g := goid()
	mu.Lock()
	fmt.Fprintf(&buf, "> %d %s %s\n", g, file, fn)
	mu.Unlock()
	return func() {
		mu.Lock()
		fmt.Fprintf(&buf, "< %d\n", g)
		mu.Unlock()
	}
}

func goid() uint64 {
	var b [64]byte
	s := string(b[:runtime.Stack(b[:], false)])
	var id uint64
	fmt.Sscanf(strings.TrimPrefix(s, "goroutine "), "%d", &id)
	return id
}

// Start starts a recording labelled label.
func Start(label string) {
	mu.Lock()
	fmt.Fprintf(&buf, "walk %s\n", label)
	mu.Unlock()
	on.Store(true)
}

// Stop stops recording.
func Stop() { on.Store(false) }

// WriteTo writes the recordings to w.
func WriteTo(w io.Writer) error {
	mu.Lock()
	defer mu.Unlock()
	_, err := w.Write(buf.Bytes())
	return err
}
`

// walkTestSource is the test that makes the recorded requests: one POST tools/call of echo in a
// session of 2025-11-25 (after initialize, which is not recorded), and one of 2026-07-28.
const walkTestSource = `package mcp

import (
	"os"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/walkrec"
)

func TestWalk(t *testing.T) {
	s, _ := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	c.initialize("2025-11-25") // a literal, so that the test builds at every revision
	c.call(1, "tools/list", map[string]any{})

	walkrec.Start("legacy")
	r := c.call(2, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}})
	walkrec.Stop()
	if tr := toolResultOf(t, r); tr.IsError || tr.StructuredContent["message"] != "hi" {
		t.Fatalf("legacy echo = %+v", tr)
	}

	m := newMCPHTTP(t, s)
	walkrec.Start("modern")
	a := m.modernCall(3, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}}, nil)
	walkrec.Stop()
	if tr := toolResultOf(t, a.last(t)); tr.IsError || tr.StructuredContent["message"] != "hi" {
		t.Fatalf("modern echo = %+v", tr)
	}

	f, err := os.Create(os.Getenv("WALK_OUT"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := walkrec.WriteTo(f); err != nil {
		t.Fatal(err)
	}
}
`
