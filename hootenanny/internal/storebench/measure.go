package storebench

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Figures are what one operation measured: how many were done in how long, and their
// latencies.
type Figures struct {
	N int
	// Elapsed is the time spent in the operations.
	Elapsed time.Duration
	P50     time.Duration
	P99     time.Duration
	// Bytes is how many bytes the operations moved, for those that move content.
	Bytes int64
}

// OpsPerSec returns the operations done per second, or 0 when nothing was timed.
func (f Figures) OpsPerSec() float64 {
	if f.Elapsed <= 0 {
		return 0
	}
	return float64(f.N) / f.Elapsed.Seconds()
}

// MBPerSec returns the bytes moved per second in MB (10^6 bytes), or 0 when nothing was timed.
func (f Figures) MBPerSec() float64 {
	if f.Elapsed <= 0 {
		return 0
	}
	return float64(f.Bytes) / 1e6 / f.Elapsed.Seconds()
}

// Percentile returns the p-th percentile (0 < p <= 100) of sorted latencies by the nearest
// rank: the smallest value that at least p percent of them do not exceed. It returns 0 for no
// latencies.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// rank = ceil(p/100 * n), computed in integers where p is whole, to keep 99% of 100 at 99.
	n := len(sorted)
	rank := int(p * float64(n) / 100)
	if float64(rank)*100 < p*float64(n) {
		rank++
	}
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// A Budget bounds how long one operation is measured: for Duration, but at least MinOps and at
// most MaxOps times, after Warmup operations that are not counted.
type Budget struct {
	Duration time.Duration
	MinOps   int
	MaxOps   int
	Warmup   int
}

// Measure calls op one after another, within b, and returns the figures. An error of op ends
// the measurement with that error.
func Measure(ctx context.Context, b Budget, op func(ctx context.Context, i int) (bytes int64, err error)) (Figures, error) {
	fs, err := MeasureEach(ctx, b, op)
	if err != nil {
		return Figures{}, err
	}
	return fs[0], nil
}

// MeasureEach measures several operations interleaved: each is called once in turn, round
// after round, within b (MinOps and MaxOps count rounds, Duration the whole), so that a noisy
// moment of a shared machine falls on all of them alike and their ratio stays fair. Each
// one's Elapsed is the time spent in its own calls. An error of any ends the measurement.
func MeasureEach(ctx context.Context, b Budget, ops ...func(ctx context.Context, i int) (bytes int64, err error)) ([]Figures, error) {
	for i := range b.Warmup {
		for _, op := range ops {
			if _, err := op(ctx, -1-i); err != nil {
				return nil, err
			}
		}
	}
	maxOps := b.MaxOps
	if maxOps <= 0 {
		maxOps = 1 << 30
	}
	lat := make([][]time.Duration, len(ops))
	fs := make([]Figures, len(ops))
	start := time.Now()
	for i := 0; i < maxOps; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i >= max(b.MinOps, 1) && time.Since(start) >= b.Duration {
			break
		}
		for k, op := range ops {
			t0 := time.Now()
			n, err := op(ctx, i)
			if err != nil {
				return nil, fmt.Errorf("operation %d: %w", i+1, err)
			}
			d := time.Since(t0)
			lat[k] = append(lat[k], d)
			fs[k].Elapsed += d
			fs[k].Bytes += n
		}
	}
	for k := range fs {
		slices.Sort(lat[k])
		fs[k].N = len(lat[k])
		fs[k].P50, fs[k].P99 = Percentile(lat[k], 50), Percentile(lat[k], 99)
	}
	return fs, nil
}
