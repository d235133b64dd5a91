package storebench

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"none", nil, 50, 0},
		{"one", ms(7), 50, 7 * time.Millisecond},
		{"one p99", ms(7), 99, 7 * time.Millisecond},
		{"median of odd", ms(1, 2, 3), 50, 2 * time.Millisecond},
		{"median of even is the lower", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p99 of 100", ms(hundred...), 99, 99 * time.Millisecond},
		{"p50 of 100", ms(hundred...), 50, 50 * time.Millisecond},
		{"p99 of 10 is the largest", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{"p100", ms(1, 2, 3), 100, 3 * time.Millisecond},
		{"tiny p is the smallest", ms(1, 2, 3), 0.001, time.Millisecond},
	}
	for _, tt := range tests {
		if got := Percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("%s: Percentile(p%v) = %v, want %v", tt.name, tt.p, got, tt.want)
		}
	}
}

func TestMeasure(t *testing.T) {
	calls := 0
	f, err := Measure(context.Background(), Budget{Duration: time.Hour, MinOps: 1, MaxOps: 10, Warmup: 3},
		func(_ context.Context, i int) (int64, error) {
			calls++
			if calls <= 3 && i >= 0 {
				t.Errorf("warm-up call %d had i = %d, want it negative", calls, i)
			}
			return 100, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 13 || f.N != 10 || f.Bytes != 1000 {
		t.Errorf("calls %d, N %d, bytes %d; want 13 (3 of warm-up), 10 and 1000", calls, f.N, f.Bytes)
	}
	if f.P50 > f.P99 || f.Elapsed <= 0 {
		t.Errorf("p50 %v, p99 %v, elapsed %v", f.P50, f.P99, f.Elapsed)
	}

	// MinOps holds even when the duration has passed.
	f, err = Measure(context.Background(), Budget{Duration: 0, MinOps: 4}, func(context.Context, int) (int64, error) { return 0, nil })
	if err != nil || f.N != 4 {
		t.Errorf("with no time: N = %d, err %v; want MinOps, 4", f.N, err)
	}

	boom := errors.New("boom")
	_, err = Measure(context.Background(), Budget{Duration: time.Hour, MaxOps: 5}, func(_ context.Context, i int) (int64, error) {
		if i == 2 {
			return 0, boom
		}
		return 0, nil
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "operation 3") {
		t.Errorf("err = %v, want boom at operation 3", err)
	}
}

func TestMeasureEachInterleaves(t *testing.T) {
	var calls []string
	op := func(name string, bytes int64) func(context.Context, int) (int64, error) {
		return func(_ context.Context, i int) (int64, error) {
			if i >= 0 {
				calls = append(calls, name)
			}
			return bytes, nil
		}
	}
	fs, err := MeasureEach(context.Background(), Budget{Duration: time.Hour, MaxOps: 3, Warmup: 1}, op("a", 1), op("b", 10))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(calls, ""); got != "ababab" {
		t.Errorf("calls went %q, want a and b in turn: ababab", got)
	}
	if len(fs) != 2 || fs[0].N != 3 || fs[1].N != 3 || fs[0].Bytes != 3 || fs[1].Bytes != 30 {
		t.Errorf("figures %+v, want 3 calls of each, 3 and 30 bytes", fs)
	}
	if fs[0].Elapsed <= 0 || fs[1].Elapsed <= 0 {
		t.Errorf("elapsed %v and %v, want the time of each one's calls", fs[0].Elapsed, fs[1].Elapsed)
	}
}

func TestFiguresRates(t *testing.T) {
	f := Figures{N: 50, Elapsed: 2 * time.Second, Bytes: 10e6}
	if got := f.OpsPerSec(); got != 25 {
		t.Errorf("OpsPerSec = %v, want 25", got)
	}
	if got := f.MBPerSec(); got != 5 {
		t.Errorf("MBPerSec = %v, want 5", got)
	}
	if (Figures{N: 3}).OpsPerSec() != 0 || (Figures{Bytes: 3}).MBPerSec() != 0 {
		t.Error("figures without elapsed time should give 0")
	}
}

func TestRatioAndFormats(t *testing.T) {
	if got := Ratio(3, 2); got != 1.5 {
		t.Errorf("Ratio(3, 2) = %v", got)
	}
	for _, r := range []float64{Ratio(0, 2), Ratio(2, 0), Ratio(-1, 2)} {
		if !math.IsNaN(r) {
			t.Errorf("a ratio of a missing figure = %v, want NaN", r)
		}
	}
	if got := FormatRatio(math.NaN()); got != "-" {
		t.Errorf("FormatRatio(NaN) = %q", got)
	}
	if got := FormatRatio(0.456); got != "0.46x" {
		t.Errorf("FormatRatio(0.456) = %q", got)
	}
	for n, want := range map[int]string{10000: "10^4", 1000000: "10^6", 1: "10^0", 25000: "25000"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int]string{65536: "64 KiB", 1 << 20: "1 MiB", 16 << 20: "16 MiB", 1000: "1000 B", 1536: "1536 B"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{1500 * time.Microsecond: "1500µs", 12345 * time.Microsecond: "12.3ms"} {
		if got := FormatLatency(d); got != want {
			t.Errorf("FormatLatency(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestTable(t *testing.T) {
	fig := func(opsPerSec float64, p50 time.Duration) Figures {
		return Figures{N: int(opsPerSec), Elapsed: time.Second, P50: p50, P99: 2 * p50}
	}
	var tb Table
	tb.Add(Result{"create", "sqlite", 1e4, fig(1000, time.Millisecond)})
	tb.Add(Result{"create", "sqlite", 1e5, fig(500, 2*time.Millisecond)})
	tb.Add(Result{"create", "postgres", 1e4, fig(2000, time.Millisecond/2)})
	tb.Add(Result{"create", "postgres", 1e5, fig(1500, time.Millisecond)})
	tb.Add(Result{"list", "sqlite", 1e4, fig(100, 10*time.Millisecond)})
	tb.Add(Result{"list", "sqlite", 1e5, fig(90, 11*time.Millisecond)})
	// list on postgres at 10^5 is missing.
	tb.Add(Result{"list", "postgres", 1e4, fig(100, 10*time.Millisecond)})

	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-9 }
	if x, p := tb.Degradation("create", "sqlite", 1e5); !near(x, 0.5) || !near(p, 2) {
		t.Errorf("sqlite create at 10^5 vs 10^4 = %v, %v; want 0.5, 2", x, p)
	}
	if x, p := tb.Degradation("create", "sqlite", 1e4); !near(x, 1) || !near(p, 1) {
		t.Errorf("the smallest size against itself = %v, %v; want 1, 1", x, p)
	}
	if x, p := tb.Versus("create", "postgres", 1e5); !near(x, 3) || !near(p, 0.5) {
		t.Errorf("postgres/sqlite create at 10^5 = %v, %v; want 3, 0.5", x, p)
	}
	if x, _ := tb.Degradation("list", "postgres", 1e5); !math.IsNaN(x) {
		t.Errorf("a missing result's degradation = %v, want NaN", x)
	}

	var b strings.Builder
	tb.Print(&b)
	out := b.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1+7 {
		t.Fatalf("the table has %d lines, want a heading and 7 rows:\n%s", len(lines), out)
	}
	for _, want := range []string{"ops/s vs 10^4", "p50 vs sqlite", "0.50x", "2.00x", "3.00x"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	// Rows come in the order measured: create before list, sqlite before postgres.
	if !strings.Contains(lines[1], "create") || !strings.Contains(lines[1], "sqlite") || !strings.Contains(lines[7], "list") || !strings.Contains(lines[7], "postgres") {
		t.Errorf("rows out of order:\n%s", out)
	}

	sum := tb.Summary()
	if len(sum) != 2 || !strings.Contains(sum[0], "sqlite at 10^5") || !strings.Contains(sum[0], "create, at 0.50x") {
		t.Errorf("Summary = %q, want sqlite's worst at 10^5 to be create at 0.50x, then postgres's", sum)
	}
}

func TestPrintContent(t *testing.T) {
	rs := []ContentResult{
		{"directory", "PUT", "holler", 1 << 20, Figures{N: 10, Elapsed: time.Second, Bytes: 100e6}},
		{"directory", "PUT", "plain", 1 << 20, Figures{N: 10, Elapsed: time.Second, Bytes: 400e6}},
		{"s3", "GET", "holler", 64 << 10, Figures{N: 10, Elapsed: time.Second, Bytes: 10e6}},
	}
	var b strings.Builder
	PrintContent(&b, rs)
	out := b.String()
	if !strings.Contains(out, "0.25x") || !strings.Contains(out, "1 MiB") {
		t.Errorf("want directory PUT at 0.25x of plain:\n%s", out)
	}
	if strings.Contains(out, "s3") {
		t.Errorf("a result without its plain counterpart is printed:\n%s", out)
	}
}

func TestPick(t *testing.T) {
	for _, tt := range []struct{ i, n, want int }{{0, 3, 0}, {4, 3, 1}, {-1, 3, 2}, {-2, 1, 0}, {-5, 2, 1}} {
		if got := pick(tt.i, tt.n); got != tt.want {
			t.Errorf("pick(%d, %d) = %d, want %d", tt.i, tt.n, got, tt.want)
		}
	}
}
