package graph

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestAttackGraphQLCost reproduces queries of at most 16 KB that once cost seconds of CPU (a
// field repeated thousands of times, which validation compares pairwise) or never ended (a
// chain of fragments each spreading the next twice), and shows each refused before it is
// validated or run, with what was counted, the limit, and how to make the query cheaper.
func TestAttackGraphQLCost(t *testing.T) {
	f := newFixture(t, database.SQLite)
	var aliases, bomb, fanout strings.Builder
	aliases.WriteString("{")
	for i := 0; aliases.Len() < 16000; i++ {
		fmt.Fprintf(&aliases, " a%d: artifact(id: %q) { id }", i, f.seed)
	}
	aliases.WriteString(" }")
	bomb.WriteString(`{ artifact(id: "` + f.seed + `") { ...F0 } }`)
	for i := range 30 {
		fmt.Fprintf(&bomb, " fragment F%d on Artifact { ...F%d ...F%d }", i, i+1, i+1)
	}
	bomb.WriteString(" fragment F30 on Artifact { id }")
	fanout.WriteString("{ artifacts(limit: 500) { children(limit: 500) { annotations(limit: 500) { message artifact { id } } } } }")
	for _, tc := range []struct {
		name, query string
		want        []string
		op          string
	}{
		{name: "a field repeated in an operation that does not run", op: "A",
			query: `query A { jobs { id } } query B { artifacts { ` + strings.Repeat("id ", 5300) + `} }`, want: []string{"more than 300 selections"}},
		{name: "a field repeated in a fragment never spread",
			query: `{ jobs { id } } fragment F on Artifact { ` + strings.Repeat("id ", 5300) + `}`, want: []string{"more than 300 selections"}},
		{name: "a field repeated", query: `{ artifacts { ` + strings.Repeat("id ", 5400) + `} }`, want: []string{"more than 300 selections", "artifacts at line 1"}},
		{name: "the same field repeated under one artifact", query: `{ artifact(id: "` + f.seed + `") { ` + strings.Repeat("id ", 5000) + `} }`, want: []string{"more than 300 selections"}},
		{name: "top-level aliases", query: aliases.String(), want: []string{"more than 300 selections", "aliased"}},
		{name: "a fragment spread twice at each of 30 links", query: bomb.String(), want: []string{"more than 300 selections", "each time a fragment is spread"}},
		{name: "nested lists at their largest limits", query: fanout.String(), want: []string{"costs more than 20000", "by its limit"}},
		{name: "a lineage walked by parents of parents", query: `{ artifacts { parents { parents { parents { parents { id } } } } } }`, want: []string{"costs more than 20000", "dearest top-level field so far is artifacts"}},
		{name: "a fragment that spreads itself", query: `{ artifacts { ...F } } fragment F on Artifact { parents { ...F } }`, want: []string{"fragment F spreads itself"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.query) > 16384+200 {
				t.Fatalf("the query is %d bytes; the tool takes at most 16384", len(tc.query))
			}
			_, err := f.e.Query(context.Background(), tc.query, tc.op, nil)
			var e *hooteproto.Error
			if !errors.As(err, &e) || e.Code() != hooteproto.CodeInvalidArgument || e.Field() != "query" {
				t.Fatalf("error = %v, want an invalid argument on query", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(e.Message()+" "+e.Hint(), w) {
					t.Errorf("the refusal %q (hint %q) does not mention %q", e.Message(), e.Hint(), w)
				}
			}
			if strings.Contains(tc.name, "spreads itself") {
				return
			}
			if !strings.Contains(e.Hint(), "split the query") || !strings.Contains(e.Hint(), "lower limit") {
				t.Errorf("the hint %q does not say how to make the query cheaper", e.Hint())
			}
		})
	}
}

// TestCostOfUsualQueries checks that the queries the tool's description shows, and ones
// like them, cost well within the limits, and that the count is what the rules say.
func TestCostOfUsualQueries(t *testing.T) {
	for _, tc := range []struct {
		query      string
		vars       map[string]any
		selections int
		cost       int
	}{
		// artifacts 10; 5 items x (id, creator, tags).
		{`{ artifacts(tag: "draft", limit: 5) { id creator tags } }`, nil, 4, 10 + 5*3},
		// artifact 10, id 1, ancestors 10 with 100 items x 2, children 10 with 50 items x
		// (id 1, annotations 10) whose 50 x 50 items are counted as 1000 x 2.
		{`query Lineage($id: ID!) { artifact(id: $id) { id ancestors(depth: 3) { id creator } children { id annotations { message vibe } } } }`,
			map[string]any{"id": "art_00000000000000000000000000"}, 10, 10 + 1 + 10 + 200 + 10 + 50 + 50*10 + 2000},
		// Two lists of 50: 10 + 50, and 10 + 50 x 3.
		{`query Recent($since: String, $status: JobStatus) { mine: artifacts(creator: "claude", since: $since) { id } failed: jobs(status: $status) { id tool message } }`,
			nil, 6, 10 + 50 + 10 + 150},
		// A limit given by a variable counts as given; a fragment counts where it is spread;
		// an artifact has at most 64 parents.
		{`query Q($n: Int) { artifacts(limit: $n) { ...F } } fragment F on Artifact { id parents { id } }`,
			map[string]any{"n": 2}, 5, 10 + 2 + 2*10 + 2*64},
		// A tree node is a read of the store: tree_node 10, text 1, children 10 with 20 items x
		// (text 1, artifacts 10 with one item x id 1); an artifact's tree_nodes 10 with 3 items x 1.
		{`{ tree_node(tree_id: "t", node_id: "n") { text children { text artifacts { id } } } a: artifact(id: "x") { tree_nodes(limit: 3) { text } } }`,
			nil, 9, 10 + 1 + 10 + 20*(1+10+1) + 10 + 10 + 3},
	} {
		doc, err := parser.ParseQuery(&ast.Source{Input: tc.query})
		if err != nil {
			t.Fatal(err)
		}
		v, _ := structpb.NewStruct(tc.vars)
		c, err := measure(doc, doc.Operations[0], v, defaultCostLimits)
		if err != nil {
			t.Errorf("%s: %v", tc.query, err)
			continue
		}
		if c.selections != tc.selections || c.total != tc.cost {
			t.Errorf("%s: %d selections costing %d, want %d costing %d", tc.query, c.selections, c.total, tc.selections, tc.cost)
		}
	}
}

// FuzzCost checks that counting any query ends, within its limits, without a panic.
func FuzzCost(f *testing.F) {
	for _, s := range []string{
		`{ artifacts { id tags parents { id } } }`,
		`{ artifact(id: "x") { tree_nodes { children { artifacts { tree_nodes { text } } } } } }`,
		`{ artifacts { ...F } } fragment F on Artifact { parents { ...F } }`,
		`{ a: artifact(id: "x") { ...A } } fragment A on Artifact { ...B ...B } fragment B on Artifact { ...C ...C } fragment C on Artifact { id }`,
		`query Q($n: Int) { artifacts(limit: $n) { children(limit: 99999999999999999999) { id } } }`,
		`{ nope { ... on Nope { id } } }`,
		`{ artifacts { ... { id } } }`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		doc, err := parser.ParseQuery(&ast.Source{Input: q})
		if err != nil {
			return
		}
		v, _ := structpb.NewStruct(map[string]any{"n": 7})
		for _, op := range doc.Operations {
			c, err := measure(doc, op, v, defaultCostLimits)
			if c.selections > MaxSelections+1 || (err == nil && c.total > MaxCost) {
				t.Fatalf("query %q: counted %+v past the limits (err %v)", q, c, err)
			}
			var e *hooteproto.Error
			if err != nil && (!errors.As(err, &e) || e.Field() != "query" || e.Hint() == "") {
				t.Fatalf("query %q: %v, want a refusal of the query with a hint", q, err)
			}
		}
	})
}

// BenchmarkQueryCost measures the costliest queries: the one the limits admit with the most
// work for validation (every selection one field, which validation compares pairwise), and a
// 16 KB query that repeats one field, which is refused.
func BenchmarkQueryCost(b *testing.B) {
	f := newFixture(b, database.SQLite)
	ctx := context.Background()
	for _, bc := range []struct {
		name, query string
		refused     bool
	}{
		{"admitted 299 repeats", `{ artifact(id: "` + f.seed + `") { ` + strings.Repeat("id ", MaxSelections-1) + `} }`, false},
		{"refused 16 KB of repeats", `{ artifacts { ` + strings.Repeat("id ", 5400) + `} }`, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				_, err := f.e.Query(ctx, bc.query, "", nil)
				if (err != nil) != bc.refused {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCostCountsTheOperationThatRuns checks that the cost is the running operation's, while
// every operation's selections count.
func TestCostCountsTheOperationThatRuns(t *testing.T) {
	q := `query Cheap { jobs(limit: 1) { id } } query Dear { artifacts(limit: 500) { children(limit: 500) { annotations(limit: 500) { message artifact { id } } } } }`
	doc, err := parser.ParseQuery(&ast.Source{Input: q})
	if err != nil {
		t.Fatal(err)
	}
	cheap, err := measure(doc, doc.Operations.ForName("Cheap"), nil, defaultCostLimits)
	if err != nil || cheap.total != 10+1 || cheap.selections != 8 {
		t.Errorf("Cheap: %+v, %v; want cost 11 over all 8 selections", cheap, err)
	}
	if _, err := measure(doc, doc.Operations.ForName("Dear"), nil, defaultCostLimits); err == nil || !strings.Contains(err.Error(), "costs more than") {
		t.Errorf("Dear: %v, want refused for its cost", err)
	}
}
