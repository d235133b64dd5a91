package main

import "testing"

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
