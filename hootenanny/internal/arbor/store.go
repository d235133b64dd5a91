package arbor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/ids"
)

// A Store keeps conversation trees in a database opened with package database, of either
// engine. It is safe for concurrent use, also by several processes sharing the database.
type Store struct {
	db  *database.DB
	now func() time.Time
}

// NewStore returns a Store over db.
func NewStore(db *database.DB) *Store { return &Store{db: db, now: time.Now} }

// nodeColumns are the columns scanNode reads, in its order.
const nodeColumns = `n.id, n.tree_id, n.parent_id, n.depth, n.child_count, n.role, n.text, n.ext_source, n.ext_id, n.created_at`

type scanner interface{ Scan(...any) error }

func scanNode(r scanner) (Node, error) {
	var (
		n       Node
		role    int64
		depth   int64
		count   int64
		created int64
	)
	err := r.Scan(&n.ID, &n.TreeID, &n.ParentID, &depth, &count, &role, &n.Content.Text,
		&n.Content.External.Source, &n.Content.External.Identifier, &created)
	n.Depth, n.ChildCount, n.Content.Role = int(depth), int(count), Role(role)
	n.CreatedAt = time.Unix(0, created).UTC()
	return n, err
}

// Create makes a tree owned by owner, with metadata and a root node holding root.
func (s *Store) Create(ctx context.Context, owner string, metadata map[string]string, root Content) (Tree, Node, error) {
	if err := validateMetadata(metadata); err != nil {
		return Tree{}, Node{}, err
	}
	if err := root.Validate(); err != nil {
		return Tree{}, Node{}, err
	}
	now := s.now()
	t := Tree{ID: ids.New(ids.Tree, now), Owner: owner, Metadata: metadata, NodeCount: 1, CreatedAt: now.UTC()}
	n := Node{ID: ids.New(ids.Node, now), TreeID: t.ID, Content: root, CreatedAt: now.UTC()}
	t.RootID = n.ID
	err := s.db.Write(ctx, func(tx *database.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO trees (id, owner, ref_count, root_id, node_count, archived, created_at) VALUES (?, ?, 0, ?, 1, 0, ?)`,
			t.ID, owner, n.ID, now.UnixNano()); err != nil {
			return err
		}
		for k, v := range metadata {
			if _, err := tx.ExecContext(ctx, `INSERT INTO tree_metadata (tree_id, key, value) VALUES (?, ?, ?)`, t.ID, k, v); err != nil {
				return err
			}
		}
		return insertNode(ctx, tx, n)
	})
	if err != nil {
		return Tree{}, Node{}, err
	}
	if t.Metadata == nil {
		t.Metadata = map[string]string{}
	}
	return t, n, nil
}

func insertNode(ctx context.Context, tx *database.Tx, n Node) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO tree_nodes (id, tree_id, parent_id, depth, child_count, role, text, ext_source, ext_id, created_at) VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`,
		n.ID, n.TreeID, n.ParentID, n.Depth, int(n.Content.Role), n.Content.Text, n.Content.External.Source, n.Content.External.Identifier, n.CreatedAt.UnixNano())
	return err
}

// Get returns the tree id with its metadata.
func (s *Store) Get(ctx context.Context, id string) (Tree, error) {
	t, err := s.tree(ctx, s.db, id)
	if err != nil {
		return Tree{}, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM tree_metadata WHERE tree_id = ?`, id)
	if err != nil {
		return Tree{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return Tree{}, err
		}
		t.Metadata[k] = v
	}
	return t, rows.Err()
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *database.Row
}

const treeColumns = `id, owner, ref_count, root_id, node_count, archived, created_at`

func scanTree(r scanner) (Tree, error) {
	var (
		t                          Tree
		refs, count, arch, created int64
	)
	err := r.Scan(&t.ID, &t.Owner, &refs, &t.RootID, &count, &arch, &created)
	t.RefCount, t.NodeCount, t.Archived = int(refs), int(count), arch != 0
	t.CreatedAt = time.Unix(0, created).UTC()
	t.Metadata = map[string]string{}
	return t, err
}

// tree reads the tree id without its metadata.
func (s *Store) tree(ctx context.Context, q querier, id string) (Tree, error) {
	t, err := scanTree(q.QueryRowContext(ctx, `SELECT `+treeColumns+` FROM trees WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Tree{}, &NotFoundError{What: "tree", ID: id}
	}
	return t, err
}

// A Filter says which trees [Store.List] returns.
type Filter struct {
	// Owner, when Restricted or not empty, keeps the trees of that owner only.
	Owner      string
	Restricted bool
	// Cursor is the last id of the previous page.
	Cursor          string
	Limit           int
	IncludeArchived bool
}

// List returns trees newest first, and the cursor of the next page ("" on the last).
func (s *Store) List(ctx context.Context, f Filter) ([]Tree, string, error) {
	if f.Limit <= 0 || f.Limit > MaxPage {
		return nil, "", &InvalidError{Field: "limit", Problem: fmt.Sprintf("the limit must be 1 to %d, not %d", MaxPage, f.Limit)}
	}
	var (
		where []string
		args  []any
	)
	if f.Restricted || f.Owner != "" {
		where, args = append(where, "owner = ?"), append(args, f.Owner)
	}
	if f.Cursor != "" {
		where, args = append(where, "id < ?"), append(args, f.Cursor)
	}
	if !f.IncludeArchived {
		where = append(where, "archived = 0")
	}
	q := `SELECT ` + treeColumns + ` FROM trees`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY id DESC LIMIT ?`
	args = append(args, f.Limit+1)
	out, err := queryAll(ctx, s.db, scanTree, q, args...)
	if err != nil {
		return nil, "", err
	}
	out, next := cutPage(out, f.Limit, func(t Tree) string { return t.ID })
	return out, next, nil
}

// Add adds a node holding c under the node parentID of the tree treeID.
func (s *Store) Add(ctx context.Context, treeID, parentID string, c Content) (Node, error) {
	nodes, err := s.AddChain(ctx, treeID, parentID, c)
	if err != nil {
		return Node{}, err
	}
	return nodes[0], nil
}

// AddChain adds a branch of nodes under the node parentID of the tree treeID, one holding each
// of cs, each under the one before, in one transaction: all of them are added or none is. A
// conversation turn (the user's node, the answer, its attachment) is added so, so that a
// failure or a cancel part way leaves no half turn. Every node but the last is returned with
// its one child.
func (s *Store) AddChain(ctx context.Context, treeID, parentID string, cs ...Content) ([]Node, error) {
	if len(cs) == 0 {
		return nil, &InvalidError{Problem: "no nodes to add"}
	}
	for _, c := range cs {
		if err := c.Validate(); err != nil {
			return nil, err
		}
	}
	now := s.now()
	nodes := make([]Node, len(cs))
	for i, c := range cs {
		nodes[i] = Node{ID: ids.New(ids.Node, now), TreeID: treeID, ParentID: parentID, Content: c, CreatedAt: now.UTC()}
		if i > 0 {
			nodes[i].ParentID = nodes[i-1].ID
			nodes[i-1].ChildIDs, nodes[i-1].ChildCount = []string{nodes[i].ID}, 1
		}
	}
	err := s.db.Write(ctx, func(tx *database.Tx) error {
		t, err := s.tree(ctx, tx, treeID)
		if err != nil {
			return err
		}
		if t.Archived {
			return &StateError{Problem: fmt.Sprintf("tree %s is archived and takes no more nodes", treeID)}
		}
		if t.NodeCount+len(cs) > MaxNodes {
			return &LimitError{Problem: fmt.Sprintf("tree %s has %d nodes; %d more would pass %d, the most a tree may have", treeID, t.NodeCount, len(cs), MaxNodes)}
		}
		var depth int64
		err = tx.QueryRowContext(ctx, `SELECT depth FROM tree_nodes WHERE id = ? AND tree_id = ?`, parentID, treeID).Scan(&depth)
		if errors.Is(err, sql.ErrNoRows) {
			return &NotFoundError{What: "node", ID: parentID, TreeID: treeID}
		}
		if err != nil {
			return err
		}
		if int(depth)+len(cs) > MaxDepth {
			if len(cs) == 1 {
				return &LimitError{Problem: fmt.Sprintf("node %s is at depth %d, the greatest a node may have; nothing can be added under it", parentID, depth)}
			}
			return &LimitError{Problem: fmt.Sprintf("node %s is at depth %d; %d nodes under it would pass depth %d, the greatest a node may have", parentID, depth, len(cs), MaxDepth)}
		}
		for i := range nodes {
			nodes[i].Depth = int(depth) + 1 + i
			if err := insertNode(ctx, tx, nodes[i]); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE tree_nodes SET child_count = child_count + 1 WHERE id = ?`, nodes[i].ParentID); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE trees SET node_count = node_count + ? WHERE id = ?`, len(cs), treeID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return nodes, nil
}

// Node returns the node id of the tree treeID.
func (s *Store) Node(ctx context.Context, treeID, id string) (Node, error) {
	n, err := scanNode(s.db.QueryRowContext(ctx, `SELECT `+nodeColumns+` FROM tree_nodes n WHERE n.id = ? AND n.tree_id = ?`, id, treeID))
	if errors.Is(err, sql.ErrNoRows) {
		return Node{}, &NotFoundError{What: "node", ID: id, TreeID: treeID}
	}
	return n, err
}

// Path returns the nodes from the root of the tree treeID to its node id, root first.
func (s *Store) Path(ctx context.Context, treeID, id string) ([]Node, error) {
	out, err := queryAll(ctx, s.db, scanNode, `WITH RECURSIVE up (id, parent_id) AS (
		SELECT id, parent_id FROM tree_nodes WHERE id = ? AND tree_id = ?
		UNION ALL
		SELECT p.id, p.parent_id FROM tree_nodes p JOIN up ON p.id = up.parent_id
	) SELECT `+nodeColumns+` FROM tree_nodes n JOIN up ON n.id = up.id ORDER BY n.depth`, id, treeID)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, &NotFoundError{What: "node", ID: id, TreeID: treeID}
	}
	// Each node's child on the path is one of its children.
	for i := 0; i+1 < len(out); i++ {
		out[i].ChildIDs = []string{out[i+1].ID}
	}
	return out, nil
}

// Leaves returns the nodes of the tree treeID without children, oldest first, after cursor,
// and the cursor of the next page ("" on the last).
func (s *Store) Leaves(ctx context.Context, treeID, cursor string, limit int) ([]Node, string, error) {
	if limit <= 0 || limit > MaxPage {
		return nil, "", &InvalidError{Field: "limit", Problem: fmt.Sprintf("the limit must be 1 to %d, not %d", MaxPage, limit)}
	}
	if _, err := s.tree(ctx, s.db, treeID); err != nil {
		return nil, "", err
	}
	out, err := queryAll(ctx, s.db, scanNode, `SELECT `+nodeColumns+` FROM tree_nodes n WHERE n.tree_id = ? AND n.child_count = 0 AND n.id > ? ORDER BY n.id LIMIT ?`,
		treeID, cursor, limit+1)
	if err != nil {
		return nil, "", err
	}
	out, next := cutPage(out, limit, func(n Node) string { return n.ID })
	return out, next, nil
}

// Walk returns the subtree under the node from of the tree treeID, to maxDepth levels below it
// (0: all), at most limit nodes, each before its children and children oldest first, with
// the depth of each relative to the tree's root. truncated says that nodes of the subtree were
// left out, by the depth or the limit. A node's ChildIDs lists the children returned.
func (s *Store) Walk(ctx context.Context, treeID, from string, maxDepth, limit int) (nodes []Node, truncated bool, err error) {
	if limit <= 0 || limit > MaxWalk {
		return nil, false, &InvalidError{Field: "limit", Problem: fmt.Sprintf("a walk returns 1 to %d nodes, not %d", MaxWalk, limit)}
	}
	if maxDepth <= 0 || maxDepth > MaxDepth {
		maxDepth = MaxDepth
	}
	// The walk goes level by level, so a limit cuts the deepest nodes first. A node's children
	// are in its tree, so they are found by the parent's id alone, on its own index.
	flat, err := queryAll(ctx, s.db, scanNode, `WITH RECURSIVE sub (id, lvl) AS (
		SELECT id, 0 FROM tree_nodes WHERE id = ? AND tree_id = ?
		UNION ALL
		SELECT c.id, sub.lvl + 1 FROM sub JOIN tree_nodes c ON c.parent_id = sub.id WHERE sub.lvl < ?
	) SELECT `+nodeColumns+` FROM sub JOIN tree_nodes n ON n.id = sub.id ORDER BY sub.lvl, n.id LIMIT ?`,
		from, treeID, maxDepth, limit+1)
	if err != nil {
		return nil, false, err
	}
	if len(flat) == 0 {
		return nil, false, &NotFoundError{What: "node", ID: from, TreeID: treeID}
	}
	if len(flat) > limit {
		flat, truncated = flat[:limit], true
	}
	// Each node before its children: children are listed in id order, so a stack gives the
	// walk in order without recursion, however deep the tree.
	byID := make(map[string]int, len(flat))
	for i := range flat {
		byID[flat[i].ID] = i
	}
	for i := range flat {
		if p, ok := byID[flat[i].ParentID]; ok && flat[i].ID != from {
			flat[p].ChildIDs = append(flat[p].ChildIDs, flat[i].ID)
		}
	}
	nodes = make([]Node, 0, len(flat))
	stack := []int{0}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := flat[i]
		slices.Sort(n.ChildIDs)
		if len(n.ChildIDs) < n.ChildCount {
			truncated = true
		}
		nodes = append(nodes, n)
		for j := len(n.ChildIDs) - 1; j >= 0; j-- {
			stack = append(stack, byID[n.ChildIDs[j]])
		}
	}
	return nodes, truncated, nil
}

// Claim adds one to the reference count of the tree id.
func (s *Store) Claim(ctx context.Context, id string) (Tree, error) {
	return s.change(ctx, id, func(tx *database.Tx, t Tree) error {
		if t.Archived {
			return &StateError{Problem: fmt.Sprintf("tree %s is archived; an archived tree cannot be claimed", id)}
		}
		_, err := tx.ExecContext(ctx, `UPDATE trees SET ref_count = ref_count + 1 WHERE id = ?`, id)
		return err
	})
}

// Release takes one from the reference count of the tree id.
func (s *Store) Release(ctx context.Context, id string) (Tree, error) {
	return s.change(ctx, id, func(tx *database.Tx, t Tree) error {
		if t.RefCount == 0 {
			return &StateError{Problem: fmt.Sprintf("no one holds tree %s: its reference count is 0", id)}
		}
		_, err := tx.ExecContext(ctx, `UPDATE trees SET ref_count = ref_count - 1 WHERE id = ?`, id)
		return err
	})
}

// Archive archives the tree id, which no one may hold.
func (s *Store) Archive(ctx context.Context, id string) (Tree, error) {
	return s.change(ctx, id, func(tx *database.Tx, t Tree) error {
		if t.RefCount > 0 {
			return &StateError{Problem: fmt.Sprintf("tree %s is held %d times; release it before archiving it", id, t.RefCount)}
		}
		_, err := tx.ExecContext(ctx, `UPDATE trees SET archived = 1 WHERE id = ?`, id)
		return err
	})
}

// change runs fn on the tree id in a write transaction, then reads the tree again.
func (s *Store) change(ctx context.Context, id string, fn func(*database.Tx, Tree) error) (Tree, error) {
	err := s.db.Write(ctx, func(tx *database.Tx) error {
		t, err := s.tree(ctx, tx, id)
		if err != nil {
			return err
		}
		return fn(tx, t)
	})
	if err != nil {
		return Tree{}, err
	}
	return s.Get(ctx, id)
}

// Delete removes the tree id and its nodes, and returns how many nodes it had. A held tree is
// refused unless force is set.
func (s *Store) Delete(ctx context.Context, id string, force bool) (int, error) {
	var n int
	err := s.db.Write(ctx, func(tx *database.Tx) error {
		t, err := s.tree(ctx, tx, id)
		if err != nil {
			return err
		}
		if t.RefCount > 0 && !force {
			return &StateError{Problem: fmt.Sprintf("tree %s is held %d times; release it first, or delete it with force", id, t.RefCount)}
		}
		n = t.NodeCount
		for _, q := range []string{
			`DELETE FROM tree_nodes WHERE tree_id = ?`,
			`DELETE FROM tree_metadata WHERE tree_id = ?`,
			`DELETE FROM trees WHERE id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// NodesPointingTo returns up to limit nodes, oldest first, whose external handle names the
// identifier of source: an artifact's nodes, a job's, another node's.
func (s *Store) NodesPointingTo(ctx context.Context, source, identifier string, limit int) ([]Node, error) {
	if limit <= 0 || limit > MaxPage {
		return nil, &InvalidError{Field: "limit", Problem: fmt.Sprintf("the limit must be 1 to %d, not %d", MaxPage, limit)}
	}
	return queryAll(ctx, s.db, scanNode, `SELECT `+nodeColumns+` FROM tree_nodes n WHERE n.ext_source = ? AND n.ext_id = ? ORDER BY n.id LIMIT ?`,
		source, identifier, limit)
}

// queryAll runs q and reads every row with scan.
func queryAll[T any](ctx context.Context, db *database.DB, scan func(scanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// cutPage keeps the first limit of out, read with one more than limit, and returns the
// cursor of the next page: the id of the last one kept, or "" when there is no more.
func cutPage[T any](out []T, limit int, id func(T) string) ([]T, string) {
	if len(out) <= limit {
		return out, ""
	}
	out = out[:limit]
	return out, id(out[len(out)-1])
}
