package storebench

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"
)

// A Result is one operation measured on one engine at one size of the store.
type Result struct {
	Op     string
	Engine string
	// Size is the size step: how many artifacts were seeded.
	Size int
	Figures
}

// Ratio returns a/b, or NaN when either is missing (zero or less).
func Ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return math.NaN()
	}
	return a / b
}

// FormatRatio writes a ratio as "1.23x", or "-" for one that could not be computed.
func FormatRatio(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r)
}

// FormatSize writes a size step as a power of ten where it is one: 10^4, 10^5, 10^6.
func FormatSize(n int) string {
	if n > 0 {
		e := math.Log10(float64(n))
		if e == math.Trunc(e) {
			return fmt.Sprintf("10^%d", int(e))
		}
	}
	return fmt.Sprint(n)
}

// FormatBytes writes a size in bytes as KiB or MiB where it is a whole number of them.
func FormatBytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// FormatLatency writes a latency in µs below 10 ms and in ms from there.
func FormatLatency(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%dµs", d.Microseconds())
	}
	return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
}

// A Table holds results and prints them with the ratios that say how each operation degrades
// as the store grows and how the engines compare.
type Table struct {
	results []Result
	// Order of first appearance, so the table reads in the order things were measured.
	ops, engines []string
	sizes        []int
}

// Add records a result.
func (t *Table) Add(r Result) {
	t.results = append(t.results, r)
	t.ops = appendNew(t.ops, r.Op)
	t.engines = appendNew(t.engines, r.Engine)
	t.sizes = appendNew(t.sizes, r.Size)
}

// Get returns the result of op on engine at size.
func (t *Table) Get(op, engine string, size int) (Result, bool) {
	for _, r := range t.results {
		if r.Op == op && r.Engine == engine && r.Size == size {
			return r, true
		}
	}
	return Result{}, false
}

// Degradation returns how the result of op on engine at size compares with the same at the
// smallest size measured: throughput as size's over the smallest's (below 1 is slower), p50 as
// size's over the smallest's (above 1 is slower). Either is NaN when a figure is missing.
func (t *Table) Degradation(op, engine string, size int) (throughput, p50 float64) {
	if len(t.sizes) == 0 {
		return math.NaN(), math.NaN()
	}
	base, ok1 := t.Get(op, engine, t.sizes[0])
	r, ok2 := t.Get(op, engine, size)
	if !ok1 || !ok2 {
		return math.NaN(), math.NaN()
	}
	return Ratio(r.OpsPerSec(), base.OpsPerSec()), Ratio(float64(r.P50), float64(base.P50))
}

// Versus returns how op at size on engine compares with the same on the engine measured first
// (the reference): throughput and p50 as engine's over the reference's.
func (t *Table) Versus(op, engine string, size int) (throughput, p50 float64) {
	if len(t.engines) == 0 {
		return math.NaN(), math.NaN()
	}
	ref, ok1 := t.Get(op, t.engines[0], size)
	r, ok2 := t.Get(op, engine, size)
	if !ok1 || !ok2 {
		return math.NaN(), math.NaN()
	}
	return Ratio(r.OpsPerSec(), ref.OpsPerSec()), Ratio(float64(r.P50), float64(ref.P50))
}

// Print writes the table: a row for each operation, engine and size, with ops/s, p50, p99, the
// ratios to the smallest size and, on the rows of engines after the first, to the first engine.
func (t *Table) Print(w io.Writer) {
	if len(t.results) == 0 {
		fmt.Fprintln(w, "  nothing measured")
		return
	}
	ref := t.engines[0]
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "operation\tengine\tartifacts\tops\tops/s\tp50\tp99\tops/s vs %s\tp50 vs %s\tops/s vs %s\tp50 vs %s\t\n",
		FormatSize(t.sizes[0]), FormatSize(t.sizes[0]), ref, ref)
	for _, op := range t.ops {
		for _, engine := range t.engines {
			for _, size := range t.sizes {
				r, ok := t.Get(op, engine, size)
				if !ok {
					continue
				}
				dt, dp := t.Degradation(op, engine, size)
				vt, vp := "", ""
				if engine != ref {
					x, y := t.Versus(op, engine, size)
					vt, vp = FormatRatio(x), FormatRatio(y)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t\n", op, engine, FormatSize(size), r.N, r.OpsPerSec(),
					FormatLatency(r.P50), FormatLatency(r.P99), FormatRatio(dt), FormatRatio(dp), vt, vp)
			}
		}
	}
	tw.Flush()
}

// Summary returns one line per engine and size after the smallest: the operation that
// degraded most in throughput, and by how much.
func (t *Table) Summary() []string {
	var out []string
	for _, engine := range t.engines {
		for _, size := range t.sizes[min(1, len(t.sizes)):] {
			worst, worstOp := math.Inf(1), ""
			for _, op := range t.ops {
				if x, _ := t.Degradation(op, engine, size); !math.IsNaN(x) && x < worst {
					worst, worstOp = x, op
				}
			}
			if worstOp != "" {
				out = append(out, fmt.Sprintf("%s at %s: the slowest to grow is %s, at %s of its throughput at %s",
					engine, FormatSize(size), worstOp, FormatRatio(worst), FormatSize(t.sizes[0])))
			}
		}
	}
	return out
}

func appendNew[T comparable](xs []T, x T) []T {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
