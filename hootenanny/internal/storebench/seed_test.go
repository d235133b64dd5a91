package storebench

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
)

func TestInsertSQL(t *testing.T) {
	got := insertSQL("t", []string{"a", "b"}, 3)
	want := "INSERT INTO t (a, b) VALUES (?,?),(?,?),(?,?)"
	if got != want {
		t.Errorf("insertSQL = %q, want %q", got, want)
	}
}

func TestTables(t *testing.T) {
	s := NewShape(1, 1_700_000_000_000)
	rows, jobs := next(s, 200, 1000)
	if len(rows) != 200 || s.Made() != 200 {
		t.Fatalf("next made %d rows (shape: %d), want 200", len(rows), s.Made())
	}
	ts := tables(s, rows, jobs)
	var tags, parents int
	for _, r := range rows {
		tags += len(r.Tags)
		parents += len(r.Parents)
	}
	for i, want := range []struct {
		name string
		rows int
		cols []string
	}{{"artifacts", 200, artifactCols}, {"artifact_tags", tags, tagCols}, {"artifact_parents", parents, parentCols}, {"jobs", 20, jobCols}} {
		if ts[i].name != want.name || len(ts[i].rows) != want.rows {
			t.Errorf("table %d is %s with %d rows, want %s with %d", i, ts[i].name, len(ts[i].rows), want.name, want.rows)
		}
		for _, r := range ts[i].rows {
			if len(r) != len(want.cols) {
				t.Fatalf("a row of %s has %d values for %d columns", want.name, len(r), len(want.cols))
			}
		}
	}
}

// indexNames returns the names of the indexes on the seeded tables.
func indexNames(t *testing.T, db *database.DB) []string {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name`
	if db.Engine() == database.Postgres {
		q = `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname`
	}
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// TestGrowAndOperate seeds a small store in two steps on each engine, checks it through the
// stores as a worker reads it, and runs each measured operation once.
func TestGrowAndOperate(t *testing.T) {
	servicetest.EachEngine(t, func(t *testing.T, engine database.Engine) {
		ctx := context.Background()
		db, _ := servicetest.OpenDatabase(t, engine)
		e, err := newEngine(ctx, engine.String(), db, 1, time.Now().Add(-time.Hour).UnixMilli())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		before := indexNames(t, db)
		for _, size := range []int{1000, 3000} {
			if err := Grow(ctx, db, e.shape, size); err != nil {
				t.Fatalf("growing to %d: %v", size, err)
			}
		}
		if after := indexNames(t, db); !slices.Equal(before, after) {
			t.Errorf("indexes after seeding: %v, want those the migrations made: %v", after, before)
		}
		if n, _, err := e.arts.Counts(ctx); err != nil || n != 3000 {
			t.Errorf("the store counts %d artifacts (%v), want 3000", n, err)
		}
		if n, err := e.jobs.Store().Count(ctx); err != nil || n != 300 {
			t.Errorf("the store counts %d jobs (%v), want 300", n, err)
		}

		// Read back a row with several parents as the store sees it.
		check := NewShape(1, 0)
		for range 3000 {
			r, _ := check.Next()
			if len(r.Parents) < 2 {
				continue
			}
			id := e.shape.ArtifactID(r.Index)
			a, err := e.arts.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, p := range r.Parents {
				want = append(want, e.shape.ArtifactID(p))
			}
			if !slices.Equal(a.ParentIDs, want) || !slices.Equal(a.Tags, r.Tags) || a.Creator != r.Creator {
				t.Errorf("artifact %s reads parents %v, tags %v, creator %s; seeded %v, %v, %s", id, a.ParentIDs, a.Tags, a.Creator, want, r.Tags, r.Creator)
			}
			break
		}
		page, _, err := e.arts.List(ctx, artifacts.Filter{Tag: ProjectTag(2500), Limit: 500})
		if err != nil || len(page) == 0 {
			t.Fatalf("listing a project's tag: %d artifacts, %v", len(page), err)
		}
		for _, a := range page {
			if !slices.Contains(a.Tags, ProjectTag(2500)) {
				t.Fatalf("artifact %s listed by tag %s has tags %v", a.ID, ProjectTag(2500), a.Tags)
			}
		}

		for _, op := range ops {
			for range 3 {
				if err := op.do(e, ctx); err != nil {
					t.Errorf("%s: %v", op.name, err)
				}
			}
		}
		// A create joins an existing variation set at its next index.
		set, _ := e.shape.VariationSet(0)
		a, err := e.arts.Create(ctx, artifacts.New{Hash: strings.Repeat("a", 64), Size: 1, MimeType: "text/plain", VariationSet: set})
		if err != nil || a.VariationIndex < 4 {
			t.Errorf("joining seeded variation set %s: index %d, %v; want after the seeded members", set, a.VariationIndex, err)
		}
	})
}
