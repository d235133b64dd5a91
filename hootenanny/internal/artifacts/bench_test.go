package artifacts

import (
	"context"
	"testing"

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
