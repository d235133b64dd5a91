package arbor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/ids"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
)

// seedBig writes a tree of n nodes straight into the database, in one transaction and many
// rows a statement: a conversation whose first chain nodes are one long line of turns, and whose
// other nodes branch off earlier nodes, chosen by a fixed rule. It returns the tree and the
// deepest node of the chain.
func seedBig(tb testing.TB, s *Store, n, chain int) (Tree, Node) {
	tb.Helper()
	ctx := context.Background()
	tr, root, err := s.Create(ctx, "bench", nil, sys("You are a helpful assistant"))
	if err != nil {
		tb.Fatal(err)
	}
	nodes := make([]Node, n)
	nodes[0] = root
	now := time.Now()
	for i := 1; i < n; i++ {
		p := i - 1
		if i >= chain {
			p = int((uint64(i) * 2654435761) % uint64(i)) // an earlier node, spread over the whole tree
		}
		role := RoleUser
		if nodes[p].Content.Role == RoleUser {
			role = RoleAssistant
		}
		nodes[i] = Node{
			ID: ids.New(ids.Node, now), TreeID: tr.ID, ParentID: nodes[p].ID, Depth: nodes[p].Depth + 1,
			Content:   Content{Role: role, Text: fmt.Sprintf("turn %d: %s", i, strings.Repeat("words ", i%20))},
			CreatedAt: now,
		}
		nodes[p].ChildCount++
	}
	const batch = 500
	err = s.db.Write(ctx, func(tx *database.Tx) error {
		for start := 1; start < n; start += batch {
			end := min(start+batch, n)
			var (
				q    strings.Builder
				args []any
			)
			q.WriteString(`INSERT INTO tree_nodes (id, tree_id, parent_id, depth, child_count, role, text, ext_source, ext_id, created_at) VALUES `)
			for i := start; i < end; i++ {
				if i > start {
					q.WriteString(", ")
				}
				q.WriteString("(?, ?, ?, ?, ?, ?, ?, '', '', ?)")
				nd := nodes[i]
				args = append(args, nd.ID, nd.TreeID, nd.ParentID, nd.Depth, nd.ChildCount, int(nd.Content.Role), nd.Content.Text, nd.CreatedAt.UnixNano())
			}
			if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tree_nodes SET child_count = ? WHERE id = ?`, nodes[0].ChildCount, root.ID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE trees SET node_count = ? WHERE id = ?`, n, tr.ID)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return tr, nodes[chain-1]
}

// BenchmarkTree100k measures, on each engine, a tree of 10^5 nodes whose longest line is 5000
// turns and whose other nodes branch off earlier nodes anywhere: drawing it to a depth of 3 from
// the root (which, in this shape, reaches the 20000-node bound of a render), drawing the
// subtree under the end of its longest line to a depth of 3, the path from the root to that
// end, a page of its leaves, and a node added to a tree of 9*10^4.
func BenchmarkTree100k(b *testing.B) {
	const n, chain = 100_000, 5_000
	for _, engine := range servicetest.Engines {
		b.Run(engine.String(), func(b *testing.B) {
			db, _ := servicetest.OpenDatabase(b, engine)
			s := NewStore(db)
			tr, deepest := seedBig(b, s, n, chain)
			ctx := context.Background()
			b.Run("render_depth_3", func(b *testing.B) {
				for b.Loop() {
					nodes, truncated, err := s.Walk(ctx, tr.ID, tr.RootID, 3, MaxWalk)
					if err != nil || !truncated || len(nodes) < 4 {
						b.Fatal(len(nodes), truncated, err)
					}
					_ = RenderText(nodes, truncated)
				}
			})
			b.Run("render_depth_3_subtree", func(b *testing.B) {
				from := deepest.ParentID
				for b.Loop() {
					nodes, _, err := s.Walk(ctx, tr.ID, from, 3, MaxWalk)
					if err != nil || len(nodes) < 2 {
						b.Fatal(len(nodes), err)
					}
					_ = RenderText(nodes, false)
				}
			})
			b.Run("path_5000", func(b *testing.B) {
				for b.Loop() {
					path, err := s.Path(ctx, tr.ID, deepest.ID)
					if err != nil || len(path) != chain {
						b.Fatal(len(path), err)
					}
				}
			})
			b.Run("leaves_page_100", func(b *testing.B) {
				for b.Loop() {
					leaves, _, err := s.Leaves(ctx, tr.ID, "", 100)
					if err != nil || len(leaves) != 100 {
						b.Fatal(len(leaves), err)
					}
				}
			})
			// A tree at its limit takes no more nodes: nodes are added to one of 9*10^4.
			more, moreDeepest := seedBig(b, s, n-10_000, chain)
			b.Run("add_to_90000", func(b *testing.B) {
				for b.Loop() {
					if _, err := s.Add(ctx, more.ID, moreDeepest.ID, user("one more")); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// TestBigTree checks, on SQLite, what the benchmark measures: a tree of 10^5 nodes draws to a
// depth, gives the path to its deepest chain node, and refuses the node past its limit.
func TestBigTree(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 10^5 nodes")
	}
	db, _ := servicetest.OpenDatabase(t, database.SQLite)
	s := NewStore(db)
	tr, deepest := seedBig(t, s, MaxNodes, 5_000)
	ctx := context.Background()
	nodes, truncated, err := s.Walk(ctx, tr.ID, tr.RootID, 2, MaxWalk)
	if err != nil || !truncated {
		t.Fatal(err, truncated)
	}
	for _, n := range nodes {
		if n.Depth > 2 {
			t.Fatalf("a walk to depth 2 drew %s at depth %d", n.ID, n.Depth)
		}
	}
	if lines := strings.Count(RenderText(nodes, truncated), "\n"); lines != len(nodes)+1 {
		t.Errorf("%d lines for %d nodes and the truncation line", lines, len(nodes))
	}
	path, err := s.Path(ctx, tr.ID, deepest.ID)
	if err != nil || len(path) != 5_000 || path[0].ID != tr.RootID || path[len(path)-1].ID != deepest.ID {
		t.Fatalf("path of %d nodes, %v", len(path), err)
	}
	var le *LimitError
	if _, err := s.Add(ctx, tr.ID, deepest.ID, user("one too many")); err == nil || !asLimit(err, &le) {
		t.Errorf("a node past %d: %v", MaxNodes, err)
	}
	// A whole walk stops at its limit and says so.
	all, truncated, err := s.Walk(ctx, tr.ID, tr.RootID, 0, MaxWalk)
	if err != nil || len(all) != MaxWalk || !truncated {
		t.Errorf("a whole walk: %d nodes, truncated %v, %v", len(all), truncated, err)
	}
}

func asLimit(err error, le **LimitError) bool { return errors.As(err, le) }
