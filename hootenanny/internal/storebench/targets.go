package storebench

import (
	"fmt"
	"io"
	"math"
	"time"
)

// The speed targets of the storage, as ratios measured in the same run. They are printed
// beside what was measured, never asserted.
const (
	// TargetGet is GET /cas through holler over the plain read, 1 MiB and 16 MiB, each store.
	TargetGet = 0.8
	// TargetPut is PUT /cas through holler over the plain write, 64 KiB, directory.
	TargetPut = 0.7
	// TargetCreateGrowth is SQLite's artifact_create at the largest size over the smallest.
	TargetCreateGrowth = 0.7
	// TargetCreateP99 bounds SQLite's artifact_create p99 at the largest size.
	TargetCreateP99 = 20 * time.Millisecond
	// TargetConcurrent is artifact_create by Callers callers at once over one caller's, each
	// engine.
	TargetConcurrent = 4.0
)

// PrintTargets writes each target with what the run measured for it; t or content may be nil
// when that part did not run. A row that was not measured says so.
func PrintTargets(w io.Writer, t *Table, content []ContentResult) {
	fmt.Fprintln(w, "\n== storage targets (ratios of this run; printed, not asserted)")
	row := func(what string, got float64, target string, ok bool) {
		v := FormatRatio(got)
		verdict := "MISSED"
		switch {
		case math.IsNaN(got):
			verdict = "not measured"
		case ok:
			verdict = "met"
		}
		fmt.Fprintf(w, "  %-62s %8s  target %-10s %s\n", what, v, target, verdict)
	}
	mbps := func(store, op, way string, size int) float64 {
		for _, r := range content {
			if r.Store == store && r.Op == op && r.Way == way && r.Size == size {
				return r.MBPerSec()
			}
		}
		return 0
	}
	ratio := func(store, op string, size int) float64 {
		return Ratio(mbps(store, op, "holler", size), mbps(store, op, "plain", size))
	}
	// floor prints, under a row, holler against a bare net/http server doing the same, when
	// it was measured: the floor of any HTTP server on this machine.
	floor := func(store, op string, size int, what string) {
		if f := mbps(store, op, "http", size); f > 0 {
			fmt.Fprintf(w, "  %-62s %8s  (bare HTTP / plain: %s)\n", "  holler / "+what,
				FormatRatio(Ratio(mbps(store, op, "holler", size), f)), FormatRatio(Ratio(f, mbps(store, op, "plain", size))))
		}
	}
	for _, store := range []string{"directory", "s3"} {
		for _, size := range []int{1 << 20, 16 << 20} {
			x := ratio(store, "GET", size)
			row(fmt.Sprintf("GET /cas through holler / plain, %s, %s", store, FormatBytes(size)), x, fmt.Sprintf(">= %.1fx", TargetGet), x >= TargetGet)
			what := "a bare net/http server of the same file"
			if store == "s3" {
				what = "a bare net/http proxy (GetObject, io.Copy)"
			}
			floor(store, "GET", size, what)
		}
	}
	x := ratio("directory", "PUT", 64<<10)
	row("PUT /cas through holler / plain, directory, 64 KiB", x, fmt.Sprintf(">= %.1fx", TargetPut), x >= TargetPut)
	floor("directory", "PUT", 64<<10, "a bare net/http server writing and fsyncing a file")

	if t == nil || len(t.sizes) == 0 {
		row("SQLite artifact_create, largest size / smallest", math.NaN(), "", false)
		return
	}
	small, large := t.sizes[0], t.sizes[len(t.sizes)-1]
	growth, _ := t.Degradation("artifact_create", "sqlite", large)
	row(fmt.Sprintf("SQLite artifact_create ops/s at %s / at %s", FormatSize(large), FormatSize(small)), growth,
		fmt.Sprintf(">= %.1fx", TargetCreateGrowth), growth >= TargetCreateGrowth)
	if r, ok := t.Get("artifact_create", "sqlite", large); ok {
		fmt.Fprintf(w, "  %-62s %8s  target %-10s %s\n", fmt.Sprintf("SQLite artifact_create p99 at %s", FormatSize(large)), FormatLatency(r.P99),
			"<= "+FormatLatency(TargetCreateP99), map[bool]string{true: "met", false: "MISSED"}[r.P99 <= TargetCreateP99])
	}
	for _, engine := range t.engines {
		one, ok1 := t.Get("artifact_create", engine, large)
		many, ok2 := t.Get(ConcurrentCreate, engine, large)
		x := math.NaN()
		if ok1 && ok2 {
			x = Ratio(many.OpsPerSec(), one.OpsPerSec())
		}
		row(fmt.Sprintf("%s %s ops/s / one caller's, at %s", engine, ConcurrentCreate, FormatSize(large)), x,
			fmt.Sprintf(">= %.0fx", TargetConcurrent), x >= TargetConcurrent)
	}
}
