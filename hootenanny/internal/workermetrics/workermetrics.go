// Package workermetrics serves a worker's Prometheus metrics: the calls it answered by service,
// the jobs by status in the database it shares, the jobs running on it, and its memory budget. Every count is read
// when scraped.
package workermetrics

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/jobs"
	"github.com/hootenanny/hoot/hootenanny/internal/membudget"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Sources are what the metrics read.
type Sources struct {
	// Workers are the worker loops, one per gateway; their counts are added up.
	Workers []*hooteproto.Worker
	// Runner runs this worker's jobs.
	Runner *jobs.Runner
	// Budget is the worker's memory budget for heavy calls, or nil.
	Budget *membudget.Budget
}

// queryTimeout bounds the database query of one scrape.
const queryTimeout = 2 * time.Second

var (
	descCalls    = prometheus.NewDesc("hootenanny_calls_total", "Calls this worker answered, by service and outcome (ok, error).", []string{"service", "outcome"}, nil)
	descJobs     = prometheus.NewDesc("hootenanny_jobs", "Jobs by status in the database this worker shares with the others.", []string{"status"}, nil)
	descRunning  = prometheus.NewDesc("hootenanny_jobs_here", "Jobs this worker has started that have not ended.", nil, nil)
	descScrapeOK = prometheus.NewDesc("hootenanny_jobs_query_ok", "1 when the scrape's count of jobs by status succeeded, else 0.", nil, nil)
	descBudget   = prometheus.NewDesc("hootenanny_memory_budget_bytes", "The memory the worker's heavy calls may hold at once (--memory-budget).", nil, nil)
	descReserved = prometheus.NewDesc("hootenanny_memory_reserved_bytes", "The memory the heavy calls running now have reserved.", nil, nil)
	descBusy     = prometheus.NewDesc("hootenanny_memory_busy_total", "Heavy calls refused as busy because their memory did not fit beside the others'.", nil, nil)
)

type collector struct {
	src Sources
	log *slog.Logger
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descCalls
	ch <- descJobs
	ch <- descRunning
	ch <- descScrapeOK
	ch <- descBudget
	ch <- descReserved
	ch <- descBusy
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	calls := map[string][2]uint64{}
	for _, w := range c.src.Workers {
		for _, s := range w.Stats().Services {
			v := calls[s.Name]
			v[0] += s.Calls - s.Failed
			v[1] += s.Failed
			calls[s.Name] = v
		}
	}
	for service, v := range calls {
		ch <- prometheus.MustNewConstMetric(descCalls, prometheus.CounterValue, float64(v[0]), service, "ok")
		ch <- prometheus.MustNewConstMetric(descCalls, prometheus.CounterValue, float64(v[1]), service, "error")
	}
	if b := c.src.Budget; b != nil {
		ch <- prometheus.MustNewConstMetric(descBudget, prometheus.GaugeValue, float64(b.Total()))
		ch <- prometheus.MustNewConstMetric(descReserved, prometheus.GaugeValue, float64(b.InUse()))
		ch <- prometheus.MustNewConstMetric(descBusy, prometheus.CounterValue, float64(b.Busy()))
	}
	if c.src.Runner == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(descRunning, prometheus.GaugeValue, float64(c.src.Runner.Live()))
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	counts, err := c.src.Runner.Store().CountByStatus(ctx)
	if err != nil {
		c.log.Warn("metrics: count jobs by status", "err", err)
		ch <- prometheus.MustNewConstMetric(descScrapeOK, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(descScrapeOK, prometheus.GaugeValue, 1)
	for _, st := range []jobs.Status{jobs.StatusPending, jobs.StatusRunning, jobs.StatusSucceeded, jobs.StatusFailed, jobs.StatusCancelled} {
		ch <- prometheus.MustNewConstMetric(descJobs, prometheus.GaugeValue, float64(counts[st]), st.String())
	}
}

// Handler returns the handler of /metrics for src.
func Handler(src Sources, log *slog.Logger) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(&collector{src: src, log: log},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	return mux
}

// Serve serves /metrics on l until ctx ends.
func Serve(ctx context.Context, l net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, MaxHeaderBytes: 16 << 10}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
