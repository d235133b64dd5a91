package arbor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

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
			{"BranchAndRender", testBranchAndRender},
			{"AddErrors", testAddErrors},
			{"AddChain", testAddChain},
			{"Path", testPath},
			{"Leaves", testLeaves},
			{"WalkDepthAndLimit", testWalkDepthAndLimit},
			{"ListOwnersAndPages", testListOwnersAndPages},
			{"ClaimReleaseArchive", testClaimReleaseArchive},
			{"Delete", testDelete},
			{"ConcurrentAdds", testConcurrentAdds},
			{"NodesPointingTo", testNodesPointingTo},
		} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				db, _ := servicetest.OpenDatabase(t, engine)
				c.fn(t, NewStore(db))
			})
		}
	})
}

var ctx = context.Background()

func sys(s string) Content  { return Content{Role: RoleSystem, Text: s} }
func user(s string) Content { return Content{Role: RoleUser, Text: s} }
func asst(s string) Content { return Content{Role: RoleAssistant, Text: s} }

func mustCreate(t *testing.T, s *Store, owner string) (Tree, Node) {
	t.Helper()
	tr, root, err := s.Create(ctx, owner, nil, sys("You are a helpful assistant"))
	if err != nil {
		t.Fatal(err)
	}
	return tr, root
}

func mustAdd(t *testing.T, s *Store, tree, parent string, c Content) Node {
	t.Helper()
	n, err := s.Add(ctx, tree, parent, c)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func testCreateGet(t *testing.T, s *Store) {
	tr, root, err := s.Create(ctx, "token:alice", map[string]string{"topic": "weather", "lang": "en"}, sys("Be brief"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tr.ID, "tree_") || !strings.HasPrefix(root.ID, "node_") || tr.RootID != root.ID {
		t.Fatalf("ids: tree %s, root %s, root_id %s", tr.ID, root.ID, tr.RootID)
	}
	got, err := s.Get(ctx, tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Owner != "token:alice" || got.NodeCount != 1 || got.RefCount != 0 || got.Archived ||
		got.Metadata["topic"] != "weather" || got.Metadata["lang"] != "en" || len(got.Metadata) != 2 ||
		!got.CreatedAt.Equal(tr.CreatedAt.Truncate(0)) {
		t.Errorf("Get = %+v, created %+v", got, tr)
	}
	n, err := s.Node(ctx, tr.ID, root.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n.Content != sys("Be brief") || n.ParentID != "" || n.Depth != 0 {
		t.Errorf("root = %+v", n)
	}
	if _, err := s.Get(ctx, "tree_00000000000000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a missing tree: %v", err)
	}
	if _, err := s.Node(ctx, tr.ID, "node_00000000000000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Node of a missing node: %v", err)
	}
}

func testCreateErrors(t *testing.T, s *Store) {
	big := map[string]string{}
	for i := range MaxMetadata + 1 {
		big[fmt.Sprint(i)] = "v"
	}
	for _, c := range []struct {
		name  string
		meta  map[string]string
		root  Content
		field string
	}{
		{"no role", nil, Content{Text: "x", External: External{Source: "bogus", Identifier: "x"}}, "external"},
		{"bad role", nil, Content{Role: 9, Text: "x"}, "role"},
		{"long text", nil, user(strings.Repeat("a", MaxTextRunes+1)), "text"},
		{"bad utf-8", nil, user("\xff"), "text"},
		{"many metadata", big, sys("x"), "metadata"},
		{"empty key", map[string]string{"": "v"}, sys("x"), "metadata"},
		{"long value", map[string]string{"k": strings.Repeat("v", MaxValueLen+1)}, sys("x"), "metadata"},
	} {
		_, _, err := s.Create(ctx, "", c.meta, c.root)
		var inv *InvalidError
		if !errors.As(err, &inv) || inv.Field != c.field {
			t.Errorf("%s: %v, want an error on %s", c.name, err, c.field)
		}
	}
	if trees, _, err := s.List(ctx, Filter{Limit: 10}); err != nil || len(trees) != 0 {
		t.Errorf("refused creations left %d trees (%v)", len(trees), err)
	}
}

// testBranchAndRender builds the two-branch conversation in the store and draws it.
func testBranchAndRender(t *testing.T, s *Store) {
	tr, root := mustCreate(t, s, "")
	u1 := mustAdd(t, s, tr.ID, root.ID, user("Hello, how are you?"))
	mustAdd(t, s, tr.ID, u1.ID, asst("I'm doing well, thank you! How can I help?"))
	u2 := mustAdd(t, s, tr.ID, root.ID, user("What's the weather?"))
	a2 := mustAdd(t, s, tr.ID, u2.ID, asst("I don't have access to weather data."))
	if a2.Depth != 2 || a2.ParentID != u2.ID {
		t.Errorf("a2 = %+v", a2)
	}
	nodes, truncated, err := s.Walk(ctx, tr.ID, root.ID, 0, MaxWalk)
	if err != nil || truncated {
		t.Fatal(err, truncated)
	}
	want := `└── System: You are a helpful assistant
    ├── User: Hello, how are you?
    │   └── Assistant: I'm doing well, thank you! How can I help?
    └── User: What's the weather?
        └── Assistant: I don't have access to weather data.
`
	if got := RenderText(nodes, truncated); got != want {
		t.Errorf("render:\n%s\nwant\n%s", got, want)
	}
	// A subtree.
	nodes, _, err = s.Walk(ctx, tr.ID, u2.ID, 0, MaxWalk)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := RenderText(nodes, false), "└── User: What's the weather?\n    └── Assistant: I don't have access to weather data.\n"; got != want {
		t.Errorf("subtree:\n%s\nwant\n%s", got, want)
	}
	got, _ := s.Get(ctx, tr.ID)
	if got.NodeCount != 5 {
		t.Errorf("node_count %d, want 5", got.NodeCount)
	}
	// External nodes.
	e := mustAdd(t, s, tr.ID, a2.ID, Content{External: External{Source: "artifact", Identifier: "art_01jd8x2k3m4n5p6q7r8s9t0vwx"}})
	n, err := s.Node(ctx, tr.ID, e.ID)
	if err != nil || n.Content != e.Content || !n.Content.IsExternal() {
		t.Errorf("external node read back as %+v, %v", n, err)
	}
}

func testAddErrors(t *testing.T, s *Store) {
	tr, root := mustCreate(t, s, "")
	other, otherRoot := mustCreate(t, s, "")
	if _, err := s.Add(ctx, tr.ID, otherRoot.ID, user("x")); !errors.Is(err, ErrNotFound) {
		t.Errorf("a parent of another tree: %v", err)
	}
	if _, err := s.Add(ctx, "tree_00000000000000000000000000", root.ID, user("x")); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing tree: %v", err)
	}
	var inv *InvalidError
	if _, err := s.Add(ctx, tr.ID, root.ID, user("\xff")); !errors.As(err, &inv) {
		t.Errorf("bad text: %v", err)
	}
	if _, err := s.Archive(ctx, other.ID); err != nil {
		t.Fatal(err)
	}
	var st *StateError
	if _, err := s.Add(ctx, other.ID, otherRoot.ID, user("x")); !errors.As(err, &st) {
		t.Errorf("a node added to an archived tree: %v", err)
	}
	if got, _ := s.Get(ctx, tr.ID); got.NodeCount != 1 {
		t.Errorf("refused adds changed node_count to %d", got.NodeCount)
	}
}

// testAddChain adds a branch whole, and refuses one that would pass the greatest depth without
// adding any of its nodes.
func testAddChain(t *testing.T, s *Store) {
	tr, root := mustCreate(t, s, "")
	chain, err := s.AddChain(ctx, tr.ID, root.ID, user("Hello"), asst("Hi"), Content{External: External{Source: "artifact", Identifier: "art_x"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range chain {
		parent := root.ID
		if i > 0 {
			parent = chain[i-1].ID
		}
		if n.ParentID != parent || n.Depth != i+1 {
			t.Errorf("node %d: parent %s at depth %d, want %s at %d", i, n.ParentID, n.Depth, parent, i+1)
		}
		if stored, err := s.Node(ctx, tr.ID, n.ID); err != nil || stored.ChildCount != n.ChildCount || stored.Content != n.Content {
			t.Errorf("node %d stored as %+v (%v), returned as %+v", i, stored, err, n)
		}
	}
	if chain[0].ChildCount != 1 || chain[0].ChildIDs[0] != chain[1].ID || chain[2].ChildCount != 0 {
		t.Errorf("children: %+v", chain)
	}
	if got, _ := s.Get(ctx, tr.ID); got.NodeCount != 4 {
		t.Errorf("node_count %d, want 4", got.NodeCount)
	}

	// A branch down to the greatest depth, then one that would pass it: refused whole.
	deep := make([]Content, MaxDepth-4)
	for i := range deep {
		deep[i] = user(fmt.Sprint(i))
	}
	down, err := s.AddChain(ctx, tr.ID, chain[2].ID, deep...)
	if err != nil {
		t.Fatal(err)
	}
	last := down[len(down)-1]
	if last.Depth != MaxDepth-1 {
		t.Fatalf("the deep branch ends at depth %d", last.Depth)
	}
	before, _ := s.Get(ctx, tr.ID)
	var le *LimitError
	if _, err := s.AddChain(ctx, tr.ID, last.ID, user("fits"), asst("does not")); !errors.As(err, &le) || !strings.Contains(le.Problem, "2 nodes under it") {
		t.Fatalf("a branch past the greatest depth: %v", err)
	}
	if after, _ := s.Get(ctx, tr.ID); after.NodeCount != before.NodeCount {
		t.Errorf("the refused branch changed node_count from %d to %d", before.NodeCount, after.NodeCount)
	}
	if leaves, _, err := s.Leaves(ctx, tr.ID, "", 10); err != nil || len(leaves) != 1 || leaves[0].ID != last.ID {
		t.Errorf("after the refused branch the leaves are %+v (%v)", leaves, err)
	}
	if _, err := s.AddChain(ctx, tr.ID, last.ID, user("fits")); err != nil {
		t.Errorf("a node at the greatest depth: %v", err)
	}
	if _, err := s.AddChain(ctx, tr.ID, root.ID); err == nil {
		t.Error("an empty chain was taken")
	}
}

func testPath(t *testing.T, s *Store) {
	tr, root := mustCreate(t, s, "")
	parent := root
	var chain []Node
	for i := range 50 {
		parent = mustAdd(t, s, tr.ID, parent.ID, user(fmt.Sprint("turn ", i)))
		chain = append(chain, parent)
		// A sibling at every step, which the path must not include.
		mustAdd(t, s, tr.ID, chain[len(chain)-1].ID, asst("aside"))
	}
	last := chain[len(chain)-1]
	path, err := s.Path(ctx, tr.ID, last.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(path) != 51 || path[0].ID != root.ID || path[50].ID != last.ID {
		t.Fatalf("path of %d nodes from %s to %s", len(path), path[0].ID, path[len(path)-1].ID)
	}
	for i := 1; i < len(path); i++ {
		if path[i].ParentID != path[i-1].ID || path[i].Depth != i {
			t.Fatalf("path[%d] = %+v after %s", i, path[i], path[i-1].ID)
		}
	}
	if _, err := s.Path(ctx, tr.ID, "node_00000000000000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("path to a missing node: %v", err)
	}
	other, _ := mustCreate(t, s, "")
	if _, err := s.Path(ctx, other.ID, last.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("path to a node of another tree: %v", err)
	}
}

func testLeaves(t *testing.T, s *Store) {
	tr, root := mustCreate(t, s, "")
	var want []string
	for i := range 7 {
		u := mustAdd(t, s, tr.ID, root.ID, user(fmt.Sprint("q", i)))
		a := mustAdd(t, s, tr.ID, u.ID, asst(fmt.Sprint("a", i)))
		want = append(want, a.ID)
	}
	var got []string
	cursor := ""
	for range 10 {
		page, next, err := s.Leaves(ctx, tr.ID, cursor, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range page {
			if n.ChildCount != 0 {
				t.Errorf("leaf %s has %d children", n.ID, n.ChildCount)
			}
			got = append(got, n.ID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("leaves %v, want %v", got, want)
	}
	if _, _, err := s.Leaves(ctx, tr.ID, "", MaxPage+1); err == nil {
		t.Error("a page over the limit was accepted")
	}
	if _, _, err := s.Leaves(ctx, "tree_00000000000000000000000000", "", 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("leaves of a missing tree: %v", err)
	}
}

func testWalkDepthAndLimit(t *testing.T, s *Store) {
	tr, root := mustCreate(t, s, "")
	// Three children of the root, each with a chain of three.
	for i := range 3 {
		p := mustAdd(t, s, tr.ID, root.ID, user(fmt.Sprint("b", i)))
		for j := range 3 {
			p = mustAdd(t, s, tr.ID, p.ID, asst(fmt.Sprint("b", i, ".", j)))
		}
	}
	nodes, truncated, err := s.Walk(ctx, tr.ID, root.ID, 1, MaxWalk)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 4 || !truncated {
		t.Errorf("depth 1: %d nodes, truncated %v; want 4, true", len(nodes), truncated)
	}
	nodes, truncated, err = s.Walk(ctx, tr.ID, root.ID, 4, MaxWalk)
	if err != nil || len(nodes) != 13 || truncated {
		t.Errorf("depth 4: %d nodes, truncated %v, %v; want 13, false", len(nodes), truncated, err)
	}
	// Each before its children, children oldest first.
	for i, n := range nodes[1:] {
		if n.Depth > 1 && n.ParentID != nodes[i].ID {
			t.Errorf("node %d (%s) follows %s, not its parent %s", i+1, n.ID, nodes[i].ID, n.ParentID)
		}
	}
	nodes, truncated, err = s.Walk(ctx, tr.ID, root.ID, 0, 5)
	if err != nil || len(nodes) != 5 || !truncated {
		t.Errorf("limit 5: %d nodes, truncated %v, %v", len(nodes), truncated, err)
	}
	// The limit cuts the deepest level first.
	for _, n := range nodes {
		if n.Depth > 2 {
			t.Errorf("a limited walk drew %s at depth %d before shallower nodes", n.ID, n.Depth)
		}
	}
	if _, _, err := s.Walk(ctx, tr.ID, "node_00000000000000000000000000", 0, 5); !errors.Is(err, ErrNotFound) {
		t.Errorf("walk from a missing node: %v", err)
	}
}

func testListOwnersAndPages(t *testing.T, s *Store) {
	var alice []string
	for range 5 {
		tr, _ := mustCreate(t, s, "token:alice")
		alice = append([]string{tr.ID}, alice...) // newest first
		mustCreate(t, s, "token:bob")
	}
	var got []string
	cursor := ""
	for range 10 {
		page, next, err := s.List(ctx, Filter{Owner: "token:alice", Restricted: true, Limit: 2, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range page {
			got = append(got, tr.ID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if strings.Join(got, ",") != strings.Join(alice, ",") {
		t.Errorf("alice's trees %v, want %v", got, alice)
	}
	all, _, err := s.List(ctx, Filter{Limit: 100})
	if err != nil || len(all) != 10 {
		t.Errorf("all trees: %d, %v", len(all), err)
	}
	// A restricted caller without a principal sees only trees without an owner.
	none, _, err := s.List(ctx, Filter{Restricted: true, Limit: 100})
	if err != nil || len(none) != 0 {
		t.Errorf("trees of no owner: %d, %v", len(none), err)
	}
	if _, err := s.Archive(ctx, alice[0]); err != nil {
		t.Fatal(err)
	}
	page, _, _ := s.List(ctx, Filter{Owner: "token:alice", Limit: 100})
	withArchived, _, _ := s.List(ctx, Filter{Owner: "token:alice", Limit: 100, IncludeArchived: true})
	if len(page) != 4 || len(withArchived) != 5 {
		t.Errorf("after archiving one: %d trees listed, %d with the archived", len(page), len(withArchived))
	}
	if _, _, err := s.List(ctx, Filter{Limit: 0}); err == nil {
		t.Error("a limit of 0 was accepted")
	}
}

func testClaimReleaseArchive(t *testing.T, s *Store) {
	tr, _ := mustCreate(t, s, "")
	var st *StateError
	if _, err := s.Release(ctx, tr.ID); !errors.As(err, &st) {
		t.Errorf("release of an unheld tree: %v", err)
	}
	for i := 1; i <= 2; i++ {
		got, err := s.Claim(ctx, tr.ID)
		if err != nil || got.RefCount != i {
			t.Fatalf("claim %d: %+v, %v", i, got, err)
		}
	}
	if _, err := s.Archive(ctx, tr.ID); !errors.As(err, &st) {
		t.Errorf("archive of a held tree: %v", err)
	}
	for i := 1; i >= 0; i-- {
		got, err := s.Release(ctx, tr.ID)
		if err != nil || got.RefCount != i {
			t.Fatalf("release to %d: %+v, %v", i, got, err)
		}
	}
	got, err := s.Archive(ctx, tr.ID)
	if err != nil || !got.Archived {
		t.Fatalf("archive: %+v, %v", got, err)
	}
	if _, err := s.Claim(ctx, tr.ID); !errors.As(err, &st) {
		t.Errorf("claim of an archived tree: %v", err)
	}
	if _, err := s.Claim(ctx, "tree_00000000000000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("claim of a missing tree: %v", err)
	}
}

func testDelete(t *testing.T, s *Store) {
	tr, root := mustCreate(t, s, "")
	keep, keepRoot := mustCreate(t, s, "")
	mustAdd(t, s, tr.ID, root.ID, user("x"))
	if _, err := s.Claim(ctx, tr.ID); err != nil {
		t.Fatal(err)
	}
	var st *StateError
	if _, err := s.Delete(ctx, tr.ID, false); !errors.As(err, &st) {
		t.Errorf("delete of a held tree: %v", err)
	}
	n, err := s.Delete(ctx, tr.ID, true)
	if err != nil || n != 2 {
		t.Fatalf("delete: %d, %v", n, err)
	}
	if _, err := s.Get(ctx, tr.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the deleted tree: %v", err)
	}
	if _, err := s.Node(ctx, tr.ID, root.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("a node of the deleted tree: %v", err)
	}
	if _, err := s.Node(ctx, keep.ID, keepRoot.ID); err != nil {
		t.Errorf("another tree lost its root: %v", err)
	}
	if _, err := s.Delete(ctx, tr.ID, true); !errors.Is(err, ErrNotFound) {
		t.Errorf("a second delete: %v", err)
	}
}

func testConcurrentAdds(t *testing.T, s *Store) {
	tr, root := mustCreate(t, s, "")
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Add(ctx, tr.ID, root.ID, user(fmt.Sprint("branch ", i)))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Get(ctx, tr.ID)
	r, _ := s.Node(ctx, tr.ID, root.ID)
	if got.NodeCount != n+1 || r.ChildCount != n {
		t.Errorf("node_count %d, root's children %d; want %d, %d", got.NodeCount, r.ChildCount, n+1, n)
	}
}

func testNodesPointingTo(t *testing.T, s *Store) {
	tr, root := mustCreate(t, s, "")
	a := mustAdd(t, s, tr.ID, root.ID, Content{External: External{Source: "artifact", Identifier: "art_1"}})
	mustAdd(t, s, tr.ID, root.ID, Content{External: External{Source: "job", Identifier: "art_1"}})
	got, err := s.NodesPointingTo(ctx, "artifact", "art_1", 10)
	if err != nil || len(got) != 1 || got[0].ID != a.ID {
		t.Errorf("nodes pointing to art_1: %+v, %v", got, err)
	}
}
