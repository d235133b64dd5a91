package artifacts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
)

// TestStore is the store's contract: every case runs against each database engine, on a
// database of its own.
func TestStore(t *testing.T) {
	servicetest.EachEngine(t, func(t *testing.T, engine database.Engine) {
		for _, c := range []struct {
			name string
			fn   func(*testing.T, *Store)
		}{
			{"CreateGet", testCreateGet},
			{"CreateErrors", testCreateErrors},
			{"Lineage", testLineage},
			{"ListFiltersAndPages", testListFiltersAndPages},
			{"AnnotateAndTag", testAnnotateAndTag},
			{"ConcurrentVariations", testConcurrentVariations},
			{"ConcurrentTags", testConcurrentTags},
			{"TagOrder", testTagOrder},
			{"JobKeys", testJobKeys},
			{"Referenced", testReferenced},
		} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				db, _ := servicetest.OpenDatabase(t, engine)
				c.fn(t, NewStore(db))
			})
		}
	})
}

const hash = "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"

func create(t *testing.T, s *Store, n New) Artifact {
	t.Helper()
	if n.Hash == "" {
		n.Hash, n.Size, n.MimeType = hash, 11, "text/plain"
	}
	a, err := s.Create(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func idsOf(as []Artifact) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.ID)
	}
	return out
}

func testCreateGet(t *testing.T, s *Store) {
	ctx := context.Background()
	p := create(t, s, New{Tags: []string{"b", "a", "b"}, Creator: "me", Metadata: []byte{1, 2}})
	if !slices.Equal(p.Tags, []string{"a", "b"}) {
		t.Errorf("tags = %v, want sorted without duplicates", p.Tags)
	}
	c := create(t, s, New{ParentIDs: []string{p.ID}, VariationSet: "takes"})
	d := create(t, s, New{ParentIDs: []string{c.ID, p.ID}, VariationSet: "takes"})
	if c.VariationIndex != 1 || d.VariationIndex != 2 {
		t.Errorf("variation indexes = %d, %d; want 1, 2", c.VariationIndex, d.VariationIndex)
	}
	got, err := s.Get(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.ParentIDs, []string{c.ID, p.ID}) || got.Hash != hash || !got.CreatedAt.Equal(d.CreatedAt) {
		t.Errorf("Get = %+v, want %+v", got, d)
	}
	if got, _ := s.Get(ctx, p.ID); string(got.Metadata) != "\x01\x02" || got.Creator != "me" {
		t.Errorf("Get(parent) = %+v", got)
	}
	parents, _ := s.Parents(ctx, d.ID)
	if !slices.Equal(idsOf(parents), []string{c.ID, p.ID}) {
		t.Errorf("Parents = %v", idsOf(parents))
	}
	children, _ := s.Children(ctx, p.ID, 10)
	if !slices.Equal(idsOf(children), []string{c.ID, d.ID}) {
		t.Errorf("Children = %v", idsOf(children))
	}
}

func testCreateErrors(t *testing.T, s *Store) {
	ctx := context.Background()
	p := create(t, s, New{})
	missing := "art_00000000000000000000000000"
	_, err := s.Create(ctx, New{Hash: hash, ParentIDs: []string{p.ID, missing}})
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Parent != 1 || nf.ID != missing || !errors.Is(err, ErrNotFound) {
		t.Errorf("Create with a missing parent = %v", err)
	}
	many := make([]string, MaxTags+1)
	for i := range many {
		many[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	var le *LimitError
	if _, err := s.Create(ctx, New{Hash: hash, Tags: many}); !errors.As(err, &le) {
		t.Errorf("Create with too many tags = %v", err)
	}
	if n, _, _ := s.Counts(ctx); n != 1 {
		t.Errorf("failed creates left %d artifacts, want 1", n)
	}
	if _, err := s.Get(ctx, missing); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(missing) = %v", err)
	}
}

func testLineage(t *testing.T, s *Store) {
	ctx := context.Background()
	// g0 -> g1 -> g2 -> g3, and g0 -> g3 directly: g0 is both 1 and 3 generations back.
	g0 := create(t, s, New{})
	g1 := create(t, s, New{ParentIDs: []string{g0.ID}})
	g2 := create(t, s, New{ParentIDs: []string{g1.ID}})
	g3 := create(t, s, New{ParentIDs: []string{g2.ID, g0.ID}})
	for _, tc := range []struct {
		name string
		got  func() ([]Artifact, error)
		want []string
	}{
		{"ancestors", func() ([]Artifact, error) { return s.Ancestors(ctx, g3.ID, 10, 100) }, []string{g0.ID, g2.ID, g1.ID}},
		{"ancestors depth 1", func() ([]Artifact, error) { return s.Ancestors(ctx, g3.ID, 1, 100) }, []string{g0.ID, g2.ID}},
		{"ancestors limit", func() ([]Artifact, error) { return s.Ancestors(ctx, g3.ID, 10, 1) }, []string{g0.ID}},
		{"descendants", func() ([]Artifact, error) { return s.Descendants(ctx, g0.ID, 10, 100) }, []string{g1.ID, g3.ID, g2.ID}},
		{"none", func() ([]Artifact, error) { return s.Ancestors(ctx, g0.ID, 10, 100) }, nil},
	} {
		got, err := tc.got()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(idsOf(got), tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, idsOf(got), tc.want)
		}
	}
}

func testListFiltersAndPages(t *testing.T, s *Store) {
	ctx := context.Background()
	start := time.Now()
	p := create(t, s, New{Tags: []string{"root"}, Creator: "alice"})
	var made []string
	for i := range 7 {
		creator := "bob"
		if i%2 == 0 {
			creator = "alice"
		}
		made = append(made, create(t, s, New{Tags: []string{"child"}, Creator: creator, ParentIDs: []string{p.ID}}).ID)
	}
	slices.Reverse(made)
	for _, tc := range []struct {
		name string
		f    Filter
		want int
	}{
		{"all", Filter{}, 8},
		{"tag", Filter{Tag: "child"}, 7},
		{"creator", Filter{Creator: "alice"}, 5},
		{"parent", Filter{ParentID: p.ID}, 7},
		{"tag and creator", Filter{Tag: "child", Creator: "bob"}, 3},
		{"since", Filter{Since: start.Add(-time.Minute)}, 8},
		{"since later", Filter{Since: time.Now().Add(time.Minute)}, 0},
		{"unknown tag", Filter{Tag: "nope"}, 0},
	} {
		as, _, err := s.List(ctx, tc.f)
		if err != nil || len(as) != tc.want {
			t.Errorf("%s: %d artifacts, %v; want %d", tc.name, len(as), err, tc.want)
		}
	}
	var paged []string
	cursor := ""
	for {
		as, next, err := s.List(ctx, Filter{Tag: "child", Limit: 3, After: cursor})
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, idsOf(as)...)
		if next == "" {
			break
		}
		cursor = next
	}
	if !slices.Equal(paged, made) {
		t.Errorf("pages gave %v, want %v (newest first)", paged, made)
	}
}

func testAnnotateAndTag(t *testing.T, s *Store) {
	ctx := context.Background()
	a := create(t, s, New{Tags: []string{"draft"}})
	if _, err := s.Annotate(ctx, a.ID, "too slow", "sleepy", "listener"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Annotate(ctx, "art_00000000000000000000000000", "x", "", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("Annotate(missing) = %v", err)
	}
	anns, err := s.Annotations(ctx, a.ID, 10)
	if err != nil || len(anns) != 1 || anns[0].Vibe != "sleepy" {
		t.Errorf("Annotations = %+v, %v", anns, err)
	}
	got, err := s.Tag(ctx, a.ID, []string{"keeper", "mix"}, []string{"draft", "mix"})
	if err != nil || !slices.Equal(got.Tags, []string{"keeper"}) {
		t.Errorf("Tag = %v, %v; want [keeper]", got.Tags, err)
	}
	if _, err := s.Tag(ctx, "art_00000000000000000000000000", []string{"x"}, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("Tag(missing) = %v", err)
	}
}

// Under a job's keys, each artifact of the job is made once, however often the job runs.
func testJobKeys(t *testing.T, s *Store) {
	run := func(job string, n int) []string {
		ctx := WithJobKeys(context.Background(), job)
		var made []string
		for i := range n {
			a, err := s.Create(ctx, New{Hash: hash, Size: 11, MimeType: "text/plain", Tags: []string{"run"}, Creator: string(rune('a' + i))})
			if err != nil {
				t.Fatal(err)
			}
			made = append(made, a.ID)
		}
		return made
	}
	// A first run made two artifacts before its worker died; the second run makes three.
	first := run("job_1", 2)
	second := run("job_1", 3)
	if !slices.Equal(first, second[:2]) || slices.Contains(first, second[2]) {
		t.Errorf("second run made %v after the first made %v; want the first two again and one new", second, first)
	}
	if other := run("job_2", 1); slices.Contains(second, other[0]) {
		t.Errorf("another job got artifact %s of job_1", other[0])
	}
	if again, err := s.Get(context.Background(), second[1]); err != nil || again.Creator != "b" {
		t.Errorf("the keyed artifact = %+v, %v", again, err)
	}
	// Outside a job, the same call makes a new artifact each time.
	a := create(t, s, New{})
	b := create(t, s, New{})
	if a.ID == b.ID {
		t.Error("two artifacts made outside a job share an id")
	}
	if total, _, err := s.Counts(context.Background()); err != nil || total != 6 {
		t.Errorf("%d artifacts stored (%v), want 6 (3 + 1 keyed, 2 plain)", total, err)
	}
}

// Artifacts made at once in one variation set get the indexes 1, 2, 3... each once.
func testConcurrentVariations(t *testing.T, s *Store) {
	const n = 12
	var wg sync.WaitGroup
	indexes := make(chan int, n)
	for range n {
		wg.Go(func() {
			a, err := s.Create(context.Background(), New{Hash: hash, Size: 11, MimeType: "text/plain", VariationSet: "takes"})
			if err != nil {
				t.Error(err)
				return
			}
			indexes <- a.VariationIndex
		})
	}
	wg.Wait()
	close(indexes)
	var got []int
	for i := range indexes {
		got = append(got, i)
	}
	slices.Sort(got)
	want := make([]int, n)
	for i := range want {
		want[i] = i + 1
	}
	if !slices.Equal(got, want) {
		t.Errorf("variation indexes = %v, want %v", got, want)
	}
	if as, _, err := s.List(context.Background(), Filter{VariationSet: "takes"}); err != nil || len(as) != n {
		t.Errorf("List(variation set) = %d artifacts, %v; want %d", len(as), err, n)
	}
}

// Tags added at once never take an artifact past MaxTags: each change sees the others.
func testConcurrentTags(t *testing.T, s *Store) {
	ctx := context.Background()
	var start []string
	for i := range MaxTags - 4 {
		start = append(start, fmt.Sprintf("t%02d", i))
	}
	a := create(t, s, New{Tags: start})
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	added, refused := 0, 0
	for i := range n {
		wg.Go(func() {
			_, err := s.Tag(ctx, a.ID, []string{fmt.Sprintf("x%d", i), fmt.Sprintf("y%d", i)}, nil)
			var le *LimitError
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				added++
			case errors.As(err, &le):
				refused++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := s.Get(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if added != 2 || refused != n-2 || len(got.Tags) != MaxTags {
		t.Errorf("%d changes added tags, %d were refused, the artifact has %d tags; want 2, %d, %d", added, refused, len(got.Tags), n-2, MaxTags)
	}
}

// Tags come back sorted by bytes, as Go sorts strings, and adding a tag again changes nothing.
func testTagOrder(t *testing.T, s *Store) {
	ctx := context.Background()
	tags := []string{"b", "B", "a", "_z", "é", "Z9", "a-b", "a_b", "ab"}
	a := create(t, s, New{Tags: tags})
	want := slices.Sorted(slices.Values(tags))
	got, err := s.Get(ctx, a.ID)
	if err != nil || !slices.Equal(got.Tags, want) {
		t.Errorf("Get tags = %q, %v; want %q", got.Tags, err, want)
	}
	got, err = s.Tag(ctx, a.ID, []string{"b", "b", "new"}, nil)
	if want := slices.Sorted(slices.Values(append(tags, "new"))); err != nil || !slices.Equal(got.Tags, want) {
		t.Errorf("Tag again = %q, %v; want %q", got.Tags, err, want)
	}
	if as, _, err := s.List(ctx, Filter{Tag: "é"}); err != nil || len(as) != 1 {
		t.Errorf("List(tag é) = %d, %v", len(as), err)
	}
	if n, _, err := s.Counts(ctx); err != nil || n != 1 {
		t.Errorf("Counts = %d, %v; want 1", n, err)
	}
}

func testReferenced(t *testing.T, s *Store) {
	ctx := context.Background()
	hashOf := func(i int) string { return fmt.Sprintf("%064x", i) }
	// Named hashes on both sides of a batch's edge, one of them by two artifacts.
	named := []int{0, 7, ReferencedBatch - 1, ReferencedBatch, ReferencedBatch + 3}
	for _, i := range named {
		create(t, s, New{Hash: hashOf(i), Size: 1, MimeType: "text/plain"})
	}
	create(t, s, New{Hash: hashOf(7), Size: 1, MimeType: "text/plain"})
	var ask []string
	for i := range ReferencedBatch + 10 {
		ask = append(ask, hashOf(i))
	}
	got, err := s.Referenced(ctx, ask)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(named) {
		t.Errorf("Referenced found %d named hashes, want %d: %v", len(got), len(named), got)
	}
	for _, i := range named {
		if !got[hashOf(i)] {
			t.Errorf("hash %d is named by an artifact, but Referenced says it is not", i)
		}
	}
	if got, err := s.Referenced(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("Referenced(nil) = %v, %v", got, err)
	}
	if got, err := s.Referenced(ctx, []string{hashOf(1)}); err != nil || got[hashOf(1)] {
		t.Errorf("Referenced of an unnamed hash = %v, %v", got, err)
	}
}
