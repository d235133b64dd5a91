// Package roundtrip measures round trips one after another in a benchmark and reports them in
// the metrics that make bench reads (bench/cmd/bench): p50-µs, p99-µs and rt/s. The wire's
// benchmark and bare ZeroMQ's, its floor, share it so that both are measured alike.
package roundtrip

import (
	"slices"
	"testing"
	"time"
)

// Sequential runs b.N round trips, one after another, and reports their latency percentiles
// and rate. A round trip that fails ends the benchmark.
func Sequential(b *testing.B, roundTrip func() error) {
	b.Helper()
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := roundTrip(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2])/float64(time.Microsecond), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100])/float64(time.Microsecond), "p99-µs")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rt/s")
}
