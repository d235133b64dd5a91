package storebench

import (
	"slices"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/ids"
)

// shapeRows makes n rows of a shape.
func shapeRows(seed uint64, n int) ([]Row, []JobRow) {
	s := NewShape(seed, 1_700_000_000_000)
	var rows []Row
	var jobs []JobRow
	for range n {
		r, j := s.Next()
		rows = append(rows, r)
		if j != nil {
			jobs = append(jobs, *j)
		}
	}
	return rows, jobs
}

func TestShapeIsAStore(t *testing.T) {
	const n = 20_000
	rows, jobs := shapeRows(1, n)
	seen := map[string]bool{}
	for i, r := range rows {
		if !ids.Valid(ids.Artifact, r.ID) || seen[r.ID] {
			t.Fatalf("row %d: id %q is not a new artifact id", i, r.ID)
		}
		seen[r.ID] = true
		if i > 0 && r.ID <= rows[i-1].ID || i > 0 && r.CreatedAt <= rows[i-1].CreatedAt {
			t.Fatalf("row %d does not sort after row %d by id and time", i, i-1)
		}
		if len(r.Hash) != 64 || r.Size <= 0 || r.MimeType == "" {
			t.Fatalf("row %d: hash %q, size %d, type %q", i, r.Hash, r.Size, r.MimeType)
		}
		if len(r.Tags) > artifacts.MaxTags || !slices.IsSorted(r.Tags) || len(slices.Compact(slices.Clone(r.Tags))) != len(r.Tags) {
			t.Fatalf("row %d: tags %q are not sorted, unique and few enough", i, r.Tags)
		}
		if len(r.Parents) > artifacts.MaxParents {
			t.Fatalf("row %d has %d parents", i, len(r.Parents))
		}
		for _, p := range r.Parents {
			// Parents are made before their children, so the lineage has no cycle.
			if p < 0 || p >= i {
				t.Fatalf("row %d has parent %d, which is not an earlier row", i, p)
			}
		}
		if len(slices.Compact(slices.Sorted(slices.Values(r.Parents)))) != len(r.Parents) {
			t.Fatalf("row %d has a parent twice: %v", i, r.Parents)
		}
	}
	if len(jobs) != n/JobsPer {
		t.Errorf("%d jobs for %d rows, want one per %d", len(jobs), n, JobsPer)
	}
	for _, j := range jobs {
		if !ids.Valid(ids.Job, j.ID) || j.FinishedAt < j.CreatedAt || j.Status < 3 || j.Status > 5 || !slices.Contains(jobTools, j.Tool) {
			t.Fatalf("job %+v is not a finished job", j)
		}
	}
}

func TestShapeHasLineage(t *testing.T) {
	const n = 20_000
	rows, _ := shapeRows(1, n)
	var roots, merges int
	children := make([]int, n)
	depth := make([]int, n)
	for i, r := range rows {
		switch len(r.Parents) {
		case 0:
			roots++
		case 1:
		default:
			merges++
		}
		for _, p := range r.Parents {
			children[p]++
			depth[i] = max(depth[i], depth[p]+1)
		}
	}
	frac := func(k int) float64 { return float64(k) / n }
	if f := frac(roots); f < 0.10 || f > 0.30 {
		t.Errorf("%.2f of the artifacts are roots, want 0.10 to 0.30", f)
	}
	if f := frac(merges); f < 0.04 || f > 0.15 {
		t.Errorf("%.2f of the artifacts have several parents, want 0.04 to 0.15", f)
	}
	// Chains: continuing recent work makes long lines of descent.
	if d := slices.Max(depth); d < 40 {
		t.Errorf("the longest line of descent is %d generations, want at least 40", d)
	}
	// Fan-outs: themes have many children, most artifacts few.
	if c := slices.Max(children); c < 50 {
		t.Errorf("the artifact with most children has %d, want a theme with at least 50", c)
	}
	if c := children[hubEvery*3]; c < 20 {
		t.Errorf("theme row %d has %d children, want at least 20", hubEvery*3, c)
	}
}

func TestShapeVariationSets(t *testing.T) {
	const n = 20_000
	s := NewShape(1, 1_700_000_000_000)
	var rows []Row
	for range n {
		r, _ := s.Next()
		rows = append(rows, r)
	}
	members := map[string][]Row{}
	for _, r := range rows {
		if r.VariationSet != "" {
			members[r.VariationSet] = append(members[r.VariationSet], r)
		}
	}
	if len(members) != s.VariationSets() || len(members) < 50 {
		t.Fatalf("%d variation sets, the shape counts %d; want them equal and at least 50", len(members), s.VariationSets())
	}
	inSets := 0
	for k := range s.VariationSets() {
		name, first := s.VariationSet(k)
		ms := members[name]
		if len(ms) == 0 || ms[0].Index != first {
			t.Fatalf("variation set %d (%s) does not start at row %d", k, name, first)
		}
		inSets += len(ms)
		last := k == s.VariationSets()-1 // may be cut off by the end of the rows
		if len(ms) < 3 && !last || len(ms) > 12 {
			t.Errorf("variation set %s has %d members, want 3 to 12", name, len(ms))
		}
		for i, m := range ms {
			if m.VariationIndex != i+1 || !slices.Equal(m.Parents, ms[0].Parents) || len(m.Parents) == 0 {
				t.Errorf("member %d of %s: index %d, parents %v; want index %d and the first member's parents %v", i, name, m.VariationIndex, m.Parents, i+1, ms[0].Parents)
			}
		}
	}
	if f := float64(inSets) / n; f < 0.05 || f > 0.25 {
		t.Errorf("%.2f of the artifacts are in variation sets, want 0.05 to 0.25", f)
	}
}

func TestShapeTagsAndCreators(t *testing.T) {
	const n = 20_000
	rows, _ := shapeRows(1, n)
	tagCount := map[string]int{}
	creatorCount := map[string]int{}
	withProject := 0
	for _, r := range rows {
		creatorCount[r.Creator]++
		for _, tag := range r.Tags {
			tagCount[tag]++
			if tag == ProjectTag(r.Index) {
				withProject++
			}
		}
	}
	if f := float64(withProject) / n; f < 0.4 || f > 0.6 {
		t.Errorf("%.2f of the artifacts carry their project's tag, want about half", f)
	}
	// Tags: common ones on many artifacts, rare ones on a few.
	common, rare := tagCount[Vocabulary()[0]], tagCount[Vocabulary()[len(Vocabulary())-1]]
	if common < n/20 || rare > common/10 {
		t.Errorf("the most common tag is on %d artifacts, the rarest on %d; want a spread from over %d down to a tenth of it", common, rare, n/20)
	}
	if len(creatorCount) < Creators*3/4 || len(creatorCount) > Creators {
		t.Errorf("%d creators made artifacts, want most of %d", len(creatorCount), Creators)
	}
	most := 0
	for _, c := range creatorCount {
		most = max(most, c)
	}
	if most < n/10 {
		t.Errorf("the busiest creator made %d artifacts, want a few creators to make most (over %d)", most, n/10)
	}
}

func TestShapeIsRepeatable(t *testing.T) {
	a, _ := shapeRows(7, 500)
	b, _ := shapeRows(7, 500)
	c, _ := shapeRows(8, 500)
	differ := false
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Creator != b[i].Creator || !slices.Equal(a[i].Tags, b[i].Tags) || !slices.Equal(a[i].Parents, b[i].Parents) {
			t.Fatalf("row %d differs between two shapes of the same seed", i)
		}
		differ = differ || a[i].Creator != c[i].Creator || !slices.Equal(a[i].Tags, c[i].Tags)
	}
	if !differ {
		t.Error("shapes of different seeds made the same rows")
	}
}
