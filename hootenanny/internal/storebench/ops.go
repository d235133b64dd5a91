package storebench

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/graph"
	"github.com/hootenanny/hoot/hootenanny/internal/jobs"
	"google.golang.org/protobuf/types/known/structpb"
)

// An op is one kind of operation the stores are measured with.
type op struct {
	name string
	do   func(e *engine, ctx context.Context) error
}

// ops are the operations, in the order they are measured and printed. Each reads or writes
// through the stores and the query engine a worker uses, never through SQL of its own.
var ops = []op{
	{"artifact_create", (*engine).create},
	{"artifact_list tag", (*engine).listByTag},
	{"artifact_list creator", (*engine).listByCreator},
	{"artifact_list deep cursor", (*engine).listDeep},
	{"artifact_query lineage", (*engine).queryLineage},
	{"job start+finish", (*engine).runJob},
	{"job_list", (*engine).listJobs},
}

// OpNames returns the names of the operations measured, in order.
func OpNames() []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = o.name
	}
	return out
}

// An engine is one database with its stores, grown by its shape.
type engine struct {
	name   string
	db     *database.DB
	shape  *Shape
	arts   *artifacts.Store
	jobs   *jobs.Runner
	graph  *graph.Engine
	rng    *rand.Rand
	closer func() error
}

func newEngine(ctx context.Context, name string, db *database.DB, seed uint64, startMs int64) (*engine, error) {
	runner, err := jobs.NewRunner(ctx, jobs.NewStore(db), jobs.Config{})
	if err != nil {
		return nil, err
	}
	arts := artifacts.NewStore(db)
	return &engine{
		name:  name,
		db:    db,
		shape: NewShape(seed, startMs),
		arts:  arts,
		jobs:  runner,
		graph: graph.New(arts, jobQueries{runner}),
		rng:   rand.New(rand.NewPCG(seed, 7)),
	}, nil
}

// jobQueries lets the graph read jobs as the worker's does: one job through the runner, lists
// from the store.
type jobQueries struct{ *jobs.Runner }

func (q jobQueries) List(ctx context.Context, f jobs.Filter) ([]jobs.Job, string, error) {
	return q.Store().List(ctx, f)
}

func (e *engine) Close() error {
	err := e.jobs.Close()
	if e.closer != nil {
		err = errors.Join(err, e.closer())
	}
	return err
}

// row returns a random seeded row.
func (e *engine) row() int { return e.rng.IntN(e.shape.Made()) }

// tag returns a tag to list by: half the time one of the vocabulary, common ones more often,
// and half the time a project's, which few artifacts carry.
func (e *engine) tag() string {
	if e.rng.IntN(2) == 0 {
		v := Vocabulary()
		return v[min(int(e.rng.ExpFloat64()*8), len(v)-1)]
	}
	return ProjectTag(e.row())
}

// create makes an artifact as a tool would: two tags, a creator, a parent, and one time in ten
// the next member of a variation set.
func (e *engine) create(ctx context.Context) error { return e.createWith(ctx, e.rng) }

// createWith is create drawing from rng, so that callers at once each draw from their own.
func (e *engine) createWith(ctx context.Context, rng *rand.Rand) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rng.Uint64())
	sum := sha256.Sum256(b[:])
	n := artifacts.New{
		Hash: hex.EncodeToString(sum[:]), Size: 4096 + rng.Int64N(60000), MimeType: "audio/midi",
		Tags:      []string{"draft", Vocabulary()[rng.IntN(len(Vocabulary()))]},
		Creator:   CreatorName(rng.IntN(Creators)),
		ParentIDs: []string{e.shape.ArtifactID(rng.IntN(e.shape.Made()))},
	}
	if rng.IntN(10) == 0 && e.shape.VariationSets() > 0 {
		set, first := e.shape.VariationSet(rng.IntN(e.shape.VariationSets()))
		n.VariationSet, n.ParentIDs = set, []string{e.shape.ArtifactID(first)}
	}
	_, err := e.arts.Create(ctx, n)
	return err
}

func (e *engine) listByTag(ctx context.Context) error {
	_, _, err := e.arts.List(ctx, artifacts.Filter{Tag: e.tag(), Limit: 50})
	return err
}

func (e *engine) listByCreator(ctx context.Context) error {
	_, _, err := e.arts.List(ctx, artifacts.Filter{Creator: CreatorName(e.rng.IntN(Creators)), Limit: 50})
	return err
}

// listDeep reads a page of a tag's artifacts from a cursor anywhere in the store, as a client
// paging far back does, and then the page after it.
func (e *engine) listDeep(ctx context.Context) error {
	f := artifacts.Filter{Tag: e.tag(), After: e.shape.ArtifactID(e.row()), Limit: 50}
	for range 2 {
		_, next, err := e.arts.List(ctx, f)
		if err != nil || next == "" {
			return err
		}
		f.After = next
	}
	return nil
}

// lineageQuery is what an agent asks to see where an artifact came from and what came of it.
const lineageQuery = `query Lineage($id: ID!) {
  artifact(id: $id) {
    id creator tags mime_type
    parents { id creator tags }
    children(limit: 20) { id creator tags }
    ancestors(depth: 5, limit: 20) { id creator }
  }
}`

func (e *engine) queryLineage(ctx context.Context) error {
	vars, err := structpb.NewStruct(map[string]any{"id": e.shape.ArtifactID(e.row())})
	if err != nil {
		return err
	}
	res, err := e.graph.Query(ctx, lineageQuery, "", vars)
	if err != nil {
		return err
	}
	if len(res.GetData()) != 1 {
		return fmt.Errorf("the lineage query answered %d fields, want 1", len(res.GetData()))
	}
	return nil
}

// runJob starts a job whose work does nothing and waits until it is recorded finished.
func (e *engine) runJob(ctx context.Context) error {
	j, err := e.jobs.Start(ctx, "bench_noop", []byte("{}"), func(context.Context, jobs.ProgressFunc) jobs.Outcome {
		return jobs.Outcome{Result: []byte("{}"), Message: "done"}
	})
	if err != nil {
		return err
	}
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	got, timedOut, err := e.jobs.Await(actx, []string{j.ID}, false)
	switch {
	case err != nil:
		return err
	case timedOut:
		return fmt.Errorf("job %s did not finish within 30s", j.ID)
	case got[0].Status != jobs.StatusSucceeded:
		return fmt.Errorf("job %s ended %v", j.ID, got[0].Status)
	}
	return nil
}

func (e *engine) listJobs(ctx context.Context) error {
	_, _, err := e.jobs.Store().List(ctx, jobs.Filter{Tool: jobTools[e.rng.IntN(len(jobTools))], Limit: 50})
	return err
}

// Callers is how many callers create artifacts at once in the concurrent measurement.
const Callers = 16

// ConcurrentCreate is the name of the operation that Callers callers make at once.
var ConcurrentCreate = fmt.Sprintf("artifact_create x%d", Callers)

// createConcurrently has Callers goroutines create artifacts on e for b.Duration (each at least
// b.MinOps), and returns the figures of all their calls: N of them in Elapsed, the wall time,
// so that OpsPerSec is the throughput of all the callers together.
func (e *engine) createConcurrently(ctx context.Context, b Budget) (Figures, error) {
	lat := make([][]time.Duration, Callers)
	errs := make([]error, Callers)
	seed := e.rng.Uint64()
	start := time.Now()
	var wg sync.WaitGroup
	for g := range Callers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(g)))
			for i := 0; i < max(b.MinOps, 1) || time.Since(start) < b.Duration; i++ {
				if err := ctx.Err(); err != nil {
					errs[g] = err
					return
				}
				t0 := time.Now()
				if err := e.createWith(ctx, rng); err != nil {
					errs[g] = fmt.Errorf("caller %d, call %d: %w", g+1, i+1, err)
					return
				}
				lat[g] = append(lat[g], time.Since(t0))
			}
		})
	}
	wg.Wait()
	f := Figures{Elapsed: time.Since(start)}
	if err := errors.Join(errs...); err != nil {
		return f, err
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	f.N = len(all)
	f.P50, f.P99 = Percentile(all, 50), Percentile(all, 99)
	return f, nil
}
