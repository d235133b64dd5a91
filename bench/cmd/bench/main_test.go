package main

import (
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/bench/internal/load"
)

func TestParseBench(t *testing.T) {
	out := `goos: linux
BenchmarkValidate/echo-2   	16187954	        72.86 ns/op	       0 B/op	       0 allocs/op
BenchmarkWireRoundTrip/worker=process/sequential-2         	    5067	    243067 ns/op	       229.8 p50-µs	       511.5 p99-µs	      4114 rt/s	    2581 B/op	      56 allocs/op
BenchmarkWireRoundTrip/worker=process/pipelined-2          	   26428	     48939 ns/op	     20434 rt/s	    2483 B/op	      54 allocs/op
BenchmarkWireRoundTrip/worker=inproc/sequential            	    3036	    356865 ns/op	       317.5 p50-µs	      1871 p99-µs	      2802 rt/s	    5833 B/op	     121 allocs/op
BenchmarkCorpusConvert-2   	     163	   3600000 ns/op	      7492 tunes/s	 1015765 B/op	   11253 allocs/op
PASS
`
	w := parseBench(out, "BenchmarkWireRoundTrip")
	if got := w["worker=process/sequential"]["p50-µs"]; got != 229.8 {
		t.Errorf("process sequential p50 = %v, want 229.8", got)
	}
	if got := w["worker=process/pipelined"]["rt/s"]; got != 20434 {
		t.Errorf("process pipelined rt/s = %v, want 20434", got)
	}
	if got := w["worker=inproc/sequential"]["allocs/op"]; got != 121 {
		t.Errorf("inproc sequential allocs = %v, want 121", got)
	}
	if len(w) != 3 {
		t.Errorf("parsed %d sub-benchmarks, want 3: %v", len(w), w)
	}
	if got := parseBench(out, "BenchmarkCorpusConvert")[""]["tunes/s"]; got != 7492 {
		t.Errorf("corpus tunes/s = %v, want 7492", got)
	}
	if got := parseBench(out, "BenchmarkCorpusABC2MIDI"); len(got) != 0 {
		t.Errorf("a benchmark that did not run = %v, want nothing", got)
	}
}

// TestReportHopCost checks the arithmetic of the hop's lines: holler minus holler-no-hop, and
// the hop's budget for CPU parity with mcp-go.
func TestReportHopCost(t *testing.T) {
	c := config{impls: []string{"holler", "holler-no-hop", "mcp-go"}, concurrency: []int{1, 16}, rounds: 1, duration: time.Second}
	res := map[key]*load.Result{}
	cpu := map[key]*cpuUse{}
	add := func(impl string, conc, requests int, p50 time.Duration, server, children time.Duration) {
		res[key{impl, conc}] = &load.Result{Requests: requests, RPS: float64(requests), P50: p50, Elapsed: time.Second}
		cpu[key{impl, conc}] = &cpuUse{server: server, children: children}
	}
	// Per call at c16: holler 100+40µs, holler-no-hop 60µs, mcp-go 90µs.
	add("holler", 16, 1000, 1500*time.Microsecond, 100*time.Millisecond, 40*time.Millisecond)
	add("holler-no-hop", 16, 2000, 700*time.Microsecond, 120*time.Millisecond, 0)
	add("mcp-go", 16, 1500, 1000*time.Microsecond, 135*time.Millisecond, 0)
	add("holler", 1, 100, 350*time.Microsecond, 30*time.Millisecond, 10*time.Millisecond)
	add("holler-no-hop", 1, 200, 170*time.Microsecond, 20*time.Millisecond, 0)
	add("mcp-go", 1, 150, 200*time.Microsecond, 20*time.Millisecond, 0)
	var out strings.Builder
	report(&out, c, res, cpu, nil, nil, nil)
	for _, want := range []string{
		"c1: 300µs of server CPU per call, 180µs of p50, throughput 0.50x of holler-no-hop's",
		"c16: 80µs of server CPU per call, 800µs of p50, throughput 0.50x of holler-no-hop's",
		"the hop may cost 30µs (mcp-go's 90µs minus holler-no-hop's 60µs); it costs 80µs",
		"the hop's p50 at c1 through HTTP (holler - holler-no-hop)",
		"holler (worker over TCP) throughput at c16 / mcp-go's",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestReportEras checks holler's two eras in the report: the modern row beside the legacy
// one, the ratios modern/legacy, and that the modern era is not taken for a peer of holler.
func TestReportEras(t *testing.T) {
	c := config{impls: []string{"holler", hollerModern, "mcp-go"}, concurrency: []int{1, 16}, rounds: 1, duration: time.Second}
	res := map[key]*load.Result{}
	cpu := map[key]*cpuUse{}
	add := func(impl string, conc, requests int, p50, p99 time.Duration, server, children time.Duration) {
		res[key{impl, conc}] = &load.Result{Requests: requests, RPS: float64(requests), P50: p50, P99: p99, Elapsed: time.Second}
		cpu[key{impl, conc}] = &cpuUse{server: server, children: children}
	}
	// Per call at c16: holler 100+40µs, modern 150+50µs; at c1: 300+100µs and 360+120µs.
	add("holler", 16, 1000, 1500*time.Microsecond, 4000*time.Microsecond, 100*time.Millisecond, 40*time.Millisecond)
	add(hollerModern, 16, 800, 1800*time.Microsecond, 5000*time.Microsecond, 120*time.Millisecond, 40*time.Millisecond)
	add("mcp-go", 16, 1500, 1000*time.Microsecond, 3000*time.Microsecond, 135*time.Millisecond, 0)
	add("holler", 1, 100, 350*time.Microsecond, 500*time.Microsecond, 30*time.Millisecond, 10*time.Millisecond)
	add(hollerModern, 1, 90, 400*time.Microsecond, 500*time.Microsecond, 32400*time.Microsecond, 10800*time.Microsecond)
	add("mcp-go", 1, 150, 200*time.Microsecond, 300*time.Microsecond, 20*time.Millisecond, 0)

	rows := eraRatios(c.concurrency, res, func(k key) float64 {
		u, r := cpu[k], res[k]
		return float64(u.server+u.children) / float64(r.Requests)
	})
	want := []eraRow{{conc: 1, rps: 0.9, p50: 400.0 / 350, p99: 1, cpu: 480.0 / 400}, {conc: 16, rps: 0.8, p50: 1.2, p99: 1.25, cpu: 200.0 / 140}}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v, want %+v", rows, want)
	}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	for i, w := range want {
		r := rows[i]
		if r.conc != w.conc || !near(r.rps, w.rps) || !near(r.p50, w.p50) || !near(r.p99, w.p99) || !near(r.cpu, w.cpu) {
			t.Errorf("row %d = %+v, want %+v", i, r, w)
		}
	}

	var out strings.Builder
	report(&out, c, res, cpu, nil, nil, nil)
	s := out.String()
	// Columns are compared with their padding squeezed to one space.
	squeezed := strings.Join(strings.Fields(s), " ")
	for _, want := range []string{
		"holler's eras: holler-2026-07-28/holler",
		"concurrency throughput p50 p99 server CPU/call c1 0.90x 1.14x 1.00x 1.20x c16 0.80x 1.20x 1.25x 1.43x ratios holler/peer",
		"holler-2026-07-28 c16: 150µs in the gateway, 50µs in the worker",
	} {
		if !strings.Contains(squeezed, want) {
			t.Errorf("the report lacks %q:\n%s", want, s)
		}
	}
	// holler/peer compares holler with mcp-go only.
	i := strings.Index(s, "ratios holler/peer")
	if i < 0 {
		t.Fatalf("no holler/peer ratios:\n%s", s)
	}
	if header := strings.SplitN(s[i:], "\n", 3)[1]; strings.Contains(header, hollerModern) || !strings.Contains(header, "mcp-go") {
		t.Errorf("holler/peer columns: %q", header)
	}

	// Without the legacy row there is nothing to divide by.
	delete(res, key{"holler", 1})
	if rows := eraRatios(c.concurrency, res, func(key) float64 { return 0 }); len(rows) != 1 || rows[0].conc != 16 || rows[0].cpu != 0 {
		t.Errorf("rows without holler at c1: %+v", rows)
	}
}

// TestTargets checks every target row of the HTTP and wire parts against figures whose
// ratios are known: the value, the verdict, and "not measured" for what a run lacks.
func TestTargets(t *testing.T) {
	res := map[key]*load.Result{
		{"holler", 16}:        {Requests: 1000, RPS: 9000},
		{"mcp-go", 16}:        {Requests: 1000, RPS: 10000},
		{"go-sdk", 16}:        {Requests: 1000, RPS: 2500},
		{"holler-no-hop", 16}: {Requests: 1000, RPS: 12000},
		{hollerModern, 16}:    {Requests: 1000, RPS: 10800},
		{"holler", 1}:         {Requests: 100, P50: 250 * time.Microsecond},
		{"holler-no-hop", 1}:  {Requests: 100, P50: 180 * time.Microsecond},
	}
	cpu := map[key]float64{
		{"holler", 16}:        float64(95 * time.Microsecond),
		{"holler-no-hop", 16}: float64(60 * time.Microsecond),
	}
	cpuPerCall := func(k key) float64 { return cpu[k] }
	wire := benchFigures{
		"worker=process/sequential": {"p50-µs": 140, "rt/s": 7000},
		"worker=process/pipelined":  {"rt/s": 70000},
	}
	bare := benchFigures{"sequential": {"p50-µs": 100}, "pipelined": {"rt/s": 100000}}
	rows := targets(res, wire, bare, benchFigures{}, cpuPerCall)
	want := map[string][2]string{
		"holler (worker over TCP) throughput at c16 / mcp-go's":                 {"0.90x", "MISSED"},
		"holler / go-sdk at c16":                                                {"3.60x", "met"},
		"the process hop's server CPU per call at c16 (holler - holler-no-hop)": {"35µs", "met"},
		"the wire pipelined / bare ZeroMQ pipelined (70.0k / 100.0k rt/s)":      {"0.70x", "met"},
		"the wire's sequential p50 / bare ZeroMQ's (140 / 100 µs)":              {"1.40x", "MISSED"},
		"2026-07-28 (stateless) / 2025-11-25 (sessions), throughput at c16":     {"1.20x", "met"},
		"the wire hop's p50 at c1 (the wire benchmark's sequential round trip)": {"140µs", "MISSED"},
		"the hop's p50 at c1 through HTTP (holler - holler-no-hop)":             {"70µs", "met"},
	}
	got := map[string][2]string{}
	for _, r := range rows {
		got[r.what] = [2]string{r.got, r.verdict}
	}
	for what, w := range want {
		if got[what] != w {
			t.Errorf("%s: got %q, want %q", what, got[what], w)
		}
	}
	if len(rows) != len(want) {
		t.Errorf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}

	// A run without the wire benchmarks or the peers says so rather than printing a ratio.
	rows = targets(map[key]*load.Result{{"holler", 16}: {Requests: 10, RPS: 100}}, nil, nil, nil, func(key) float64 { return 0 })
	for _, r := range rows {
		if r.verdict != "not measured" || r.got != "-" {
			t.Errorf("%s: got %q %q without its figures, want not measured", r.what, r.got, r.verdict)
		}
	}
}
