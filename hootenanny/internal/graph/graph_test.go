package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/jobs"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// fixture is a small graph: seed -> arr -> take1, take2 -> mix, an annotation on take2, a job.
type fixture struct {
	e                            *Engine
	seed, arr, take1, take2, mix string
	job                          string
}

func newFixture(t testing.TB, engine database.Engine) *fixture {
	t.Helper()
	ctx := context.Background()
	db, _ := servicetest.OpenDatabase(t, engine)
	arts := artifacts.NewStore(db)
	runner, err := jobs.NewRunner(ctx, jobs.NewStore(db), jobs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runner.Close() })
	mk := func(n artifacts.New) string {
		n.Hash, n.Size, n.MimeType = strings.Repeat("a", 64), 3, "text/plain"
		a, err := arts.Create(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	f := &fixture{e: New(arts, jobList{runner})}
	midi, _ := proto.Marshal(&hootv1.ArtifactMetadata{Kind: &hootv1.ArtifactMetadata_Midi{Midi: &hootv1.MidiInfo{Tracks: 2}}})
	f.seed = mk(artifacts.New{Tags: []string{"seed"}, Creator: "composer"})
	f.arr = mk(artifacts.New{ParentIDs: []string{f.seed}, Creator: "arranger", Metadata: midi})
	f.take1 = mk(artifacts.New{ParentIDs: []string{f.arr}, Tags: []string{"take"}, VariationSet: "takes"})
	f.take2 = mk(artifacts.New{ParentIDs: []string{f.arr}, Tags: []string{"take", "keeper"}, VariationSet: "takes"})
	f.mix = mk(artifacts.New{ParentIDs: []string{f.take1, f.take2}, Tags: []string{"mix"}})
	if _, err := arts.Annotate(ctx, f.take2, "the keeper", "bright", "listener"); err != nil {
		t.Fatal(err)
	}
	j, err := runner.Start(ctx, "cas_verify", nil, func(context.Context, jobs.ProgressFunc) jobs.Outcome { return jobs.Outcome{} })
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := runner.Await(ctx, []string{j.ID}, false); err != nil {
		t.Fatal(err)
	}
	f.job = j.ID
	return f
}

type jobList struct{ *jobs.Runner }

func (q jobList) List(ctx context.Context, f jobs.Filter) ([]jobs.Job, string, error) {
	return q.Store().List(ctx, f)
}

// render writes a result as holler does, with the ids of the fixture named.
func (f *fixture) render(t *testing.T, res *hootv1.ArtifactQueryResult) string {
	t.Helper()
	b, err := protojson.MarshalOptions{UseProtoNames: true, EmitDefaultValues: true}.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	for name, id := range map[string]string{"SEED": f.seed, "ARR": f.arr, "TAKE1": f.take1, "TAKE2": f.take2, "MIX": f.mix, "JOB": f.job} {
		s = strings.ReplaceAll(s, id, name)
	}
	return s
}

func vars(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestQueries(t *testing.T) { servicetest.EachEngine(t, testQueries) }

func testQueries(t *testing.T, engine database.Engine) {
	f := newFixture(t, engine)
	for _, tc := range []struct {
		name  string
		query string
		op    string
		vars  map[string]any
		want  string
	}{
		{"one artifact", `{ artifact(id: "` + f.seed + `") { id creator tags } }`, "", nil,
			`{"data":[{"name":"artifact","artifact":{"id":"SEED","tags":{"values":["seed"]},"creator":"composer"}}],"nodes":1}`},
		{"missing artifact is null", `{ artifact(id: "art_00000000000000000000000000") { id } }`, "", nil,
			`{"data":[{"name":"artifact"}],"nodes":0}`},
		{"lineage over generations with a variable", `query L($id: ID!) { artifact(id: $id) { id ancestors { id } parents { id } } }`, "", map[string]any{"id": f.mix},
			`{"data":[{"name":"artifact","artifact":{"id":"MIX","parents":{"items":[{"id":"TAKE1"},{"id":"TAKE2"}]},"ancestors":{"items":[{"id":"TAKE1"},{"id":"TAKE2"},{"id":"ARR"},{"id":"SEED"}]}}}],"nodes":7}`},
		{"ancestors with a depth variable", `query L($id: ID!, $d: Int) { artifact(id: $id) { ancestors(depth: $d) { id } } }`, "", map[string]any{"id": f.mix, "d": 1},
			`{"data":[{"name":"artifact","artifact":{"ancestors":{"items":[{"id":"TAKE1"},{"id":"TAKE2"}]}}}],"nodes":3}`},
		{"descendants and children", `{ artifact(id: "` + f.seed + `") { children { id } descendants(depth: 2) { id } } }`, "", nil,
			`{"data":[{"name":"artifact","artifact":{"children":{"items":[{"id":"ARR"}]},"descendants":{"items":[{"id":"ARR"},{"id":"TAKE1"},{"id":"TAKE2"}]}}}],"nodes":5}`},
		{"filters and aliases", `query Q($tag: String) { takes: artifacts(tag: $tag) { id variation_index } seeds: artifacts(creator: "composer") { id } }`, "", map[string]any{"tag": "take"},
			`{"data":[{"name":"takes","artifacts":{"items":[{"id":"TAKE2","variation_index":2},{"id":"TAKE1","variation_index":1}]}},{"name":"seeds","artifacts":{"items":[{"id":"SEED"}]}}],"nodes":3}`},
		{"annotations and their artifact", `{ artifacts(tag: "keeper") { annotations { message vibe artifact { id } } } }`, "", nil,
			`{"data":[{"name":"artifacts","artifacts":{"items":[{"annotations":{"items":[{"message":"the keeper","vibe":"bright","artifact":{"id":"TAKE2"}}]}}]}}],"nodes":3}`},
		{"metadata", `{ artifact(id: "` + f.arr + `") { midi { tracks } audio { channels } } }`, "", nil,
			`{"data":[{"name":"artifact","artifact":{"midi":{"format":0,"tracks":2,"ticks_per_quarter":0,"duration_seconds":0,"tempo_bpm":0}}}],"nodes":1}`},
		{"fragments and directives", `query Q($full: Boolean!) { artifact(id: "` + f.seed + `") { ...F ... on Artifact { creator @include(if: $full) tags @skip(if: true) } } } fragment F on Artifact { id }`, "", map[string]any{"full": true},
			`{"data":[{"name":"artifact","artifact":{"id":"SEED","creator":"composer"}}],"nodes":1}`},
		{"jobs", `query J($s: JobStatus) { jobs(status: $s) { id tool status } job(id: "` + f.job + `") { id } }`, "", map[string]any{"s": "SUCCEEDED"},
			`{"data":[{"name":"jobs","jobs":{"items":[{"id":"JOB","tool":"cas_verify","status":"JOB_STATUS_SUCCEEDED"}]}},{"name":"job","job":{"id":"JOB"}}],"nodes":2}`},
		{"operation name", `query A { artifacts(limit: 1) { id } } query B { jobs { id } }`, "B", nil,
			`{"data":[{"name":"jobs","jobs":{"items":[{"id":"JOB"}]}}],"nodes":1}`},
		{"since", `{ artifacts(since: "2200-01-01T00:00:00Z") { id } }`, "", nil,
			`{"data":[{"name":"artifacts","artifacts":{"items":[]}}],"nodes":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v *structpb.Struct
			if tc.vars != nil {
				v = vars(t, tc.vars)
			}
			res, err := f.e.Query(context.Background(), tc.query, tc.op, v)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.render(t, res); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestQueryErrors(t *testing.T) { servicetest.EachEngine(t, testQueryErrors) }

func testQueryErrors(t *testing.T, engine database.Engine) {
	f := newFixture(t, engine)
	deep := "{ artifact(id: \"" + f.seed + "\") " + strings.Repeat("{ children(limit: 1) ", 8) + "{ id }" + strings.Repeat(" }", 8) + " }"
	for _, tc := range []struct {
		name, query, op string
		vars            map[string]any
		field           string
		want            []string
	}{
		{"syntax", "{ artifacts { id }", "", nil, "query", []string{"line 1, column 19", "Expected"}},
		{"unknown field", "{\n  artifacts { idd } }", "", nil, "query", []string{"line 2, column 15", `Cannot query field "idd"`}},
		{"unknown argument", `{ artifacts(colour: "red") { id } }`, "", nil, "query", []string{"line 1, column 3", "colour"}},
		{"missing variable", `query Q($id: ID!) { artifact(id: $id) { id } }`, "", nil, "variables", []string{"id", "must be defined"}},
		{"variable of the wrong type", `query Q($n: Int) { artifacts(limit: $n) { id } }`, "", map[string]any{"n": "many"}, "variables", []string{"n"}},
		{"bad id", `{ artifact(id: "nope") { id } }`, "", nil, "query", []string{"line 1, column 3", "art_"}},
		{"bad limit", `{ artifacts(limit: 0) { id } }`, "", nil, "query", []string{"line 1, column 3", "1 to 500"}},
		{"bad since", `{ artifacts(since: "yesterday") { id } }`, "", nil, "query", []string{"RFC 3339"}},
		{"nested alias", `{ artifacts { p: parents { id } } }`, "", nil, "query", []string{"line 1, column 15", "top-level"}},
		{"introspection", `{ __schema { types { name } } }`, "", nil, "query", []string{"introspection"}},
		{"too deep", deep, "", nil, "query", []string{"nested 9 fields deep", "at most 8"}},
		{"two operations", `query A { jobs { id } } query B { jobs { id } }`, "", nil, "operation_name", []string{`"A"`, `"B"`}},
		{"unknown operation", `query A { jobs { id } }`, "C", nil, "operation_name", []string{`"C"`}},
		{"mutation", `mutation { x }`, "", nil, "query", []string{"line 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v *structpb.Struct
			if tc.vars != nil {
				v = vars(t, tc.vars)
			}
			_, err := f.e.Query(context.Background(), tc.query, tc.op, v)
			var e *hooteproto.Error
			if !errors.As(err, &e) || e.Code() != hooteproto.CodeInvalidArgument || e.Field() != tc.field || e.Hint() == "" {
				t.Fatalf("error = %v (field %q)", err, e.Field())
			}
			for _, w := range tc.want {
				if !strings.Contains(e.Message(), w) {
					t.Errorf("message %q does not mention %q", e.Message(), w)
				}
			}
		})
	}
}

func TestNodeLimit(t *testing.T) { servicetest.EachEngine(t, testNodeLimit) }

func testNodeLimit(t *testing.T, engine database.Engine) {
	f := newFixture(t, engine)
	// The cost counted beforehand refuses such a query; this checks the count kept while it
	// runs, for answers that a cost limit as loose as this one lets through.
	f.e.limits = costLimits{selections: 1000, total: 1 << 30}
	ctx := context.Background()
	// Every artifact's whole lineage both ways, many times over, passes the limit.
	q := "{"
	for i := range 40 {
		q += " a" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `: artifacts { ancestors { descendants { ancestors { id } } } }`
	}
	q += " }"
	_, err := f.e.Query(ctx, q, "", nil)
	var e *hooteproto.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message(), "more than 1000") {
		t.Errorf("a huge answer gave %v", err)
	}
}

func FuzzQuery(f *testing.F) {
	fx := newFixture(f, database.SQLite)
	for _, s := range []string{
		`{ artifacts { id tags parents { id } } }`,
		`query L($id: ID!) { artifact(id: $id) { ancestors(depth: 2) { id } } }`,
		`{ jobs(status: FAILED) { id status } }`,
		`{ a: artifact(id: "art_00000000000000000000000000") { ...F } } fragment F on Artifact { id }`,
		`{ artifacts(limit: -1) { id } }`,
		`{`,
		``,
	} {
		f.Add(s)
	}
	v, _ := structpb.NewStruct(map[string]any{"id": fx.seed})
	f.Fuzz(func(t *testing.T, q string) {
		res, err := fx.e.Query(context.Background(), q, "", v)
		if err != nil {
			var e *hooteproto.Error
			if !errors.As(err, &e) || e.Code() != hooteproto.CodeInvalidArgument {
				t.Fatalf("query %q: %v, want an invalid-argument error", q, err)
			}
			return
		}
		if res.GetNodes() > MaxNodes {
			t.Fatalf("query %q: %d nodes", q, res.GetNodes())
		}
		if _, err := proto.Marshal(res); err != nil {
			t.Fatalf("query %q: the answer does not encode: %v", q, err)
		}
	})
}
