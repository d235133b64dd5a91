package artifacts

import (
	"context"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
)

// BenchmarkCreate creates artifacts with a tag and a parent on each engine, one at a time and
// from many goroutines at once.
func BenchmarkCreate(b *testing.B) {
	for _, engine := range servicetest.Engines {
		for _, parallel := range []bool{false, true} {
			name := engine.String() + "/sequential"
			if parallel {
				name = engine.String() + "/parallel"
			}
			b.Run(name, func(b *testing.B) {
				db, _ := servicetest.OpenDatabase(b, engine)
				s := NewStore(db)
				ctx := context.Background()
				root, err := s.Create(ctx, New{Hash: hash, Size: 11, MimeType: "text/plain"})
				if err != nil {
					b.Fatal(err)
				}
				n := New{Hash: hash, Size: 11, MimeType: "text/plain", Tags: []string{"bench"}, ParentIDs: []string{root.ID}}
				b.ResetTimer()
				if !parallel {
					for b.Loop() {
						if _, err := s.Create(ctx, n); err != nil {
							b.Fatal(err)
						}
					}
					return
				}
				b.SetParallelism(4)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := s.Create(ctx, n); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}

// TestVariationIndexUsesIndex: SQLite reads a variation set's next index from the partial
// index of set members, not by scanning every artifact (a tenth of a second per call at a
// million artifacts).
func TestVariationIndexUsesIndex(t *testing.T) {
	t.Parallel()
	db, _ := servicetest.OpenDatabase(t, database.SQLite)
	for _, q := range []string{nextVariationIndex, `SELECT a.id FROM artifacts a WHERE a.variation_set = ? AND a.variation_set <> ''`} {
		rows, err := db.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+q, "set")
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if got := strings.Join(plan, "; "); !strings.Contains(got, "INDEX artifacts_variation") {
			t.Errorf("the plan of %q is %q, want it to use the index artifacts_variation", q, got)
		}
	}
}
