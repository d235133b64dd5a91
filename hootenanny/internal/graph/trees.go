package graph

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/arbor"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/ids"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/vektah/gqlparser/v2/ast"
	"google.golang.org/protobuf/proto"
)

// MaxTreeText is the most characters of a node's text that a TreeNode's text holds.
const MaxTreeText = 200

// Trees is what the engine reads of conversation trees.
type Trees interface {
	Get(ctx context.Context, id string) (arbor.Tree, error)
	Node(ctx context.Context, treeID, id string) (arbor.Node, error)
	Walk(ctx context.Context, treeID, from string, maxDepth, limit int) ([]arbor.Node, bool, error)
	NodesPointingTo(ctx context.Context, source, identifier string, limit int) ([]arbor.Node, error)
}

// WithTrees lets the engine answer tree_node and an artifact's tree_nodes from trees. Without
// it, tree_node is null and tree_nodes empty.
func (e *Engine) WithTrees(trees Trees) *Engine {
	e.trees = trees
	return e
}

// visible reports whether the caller of the execution may see the tree treeID: below the admin
// tier, only its own trees (as in the arbor service); without a caller, every tree. Owners are
// read once per execution.
func (x *execution) visible(treeID string) (bool, error) {
	c := hooteproto.CallerFrom(x.ctx)
	if c == nil || c.GetTier() >= hootv1.Tier_TIER_ADMIN {
		return true, nil
	}
	if x.owners == nil {
		x.owners = map[string]string{}
	}
	owner, ok := x.owners[treeID]
	if !ok {
		t, err := x.e.trees.Get(x.ctx, treeID)
		if errors.Is(err, arbor.ErrNotFound) {
			t.Owner = ""
		} else if err != nil {
			return false, err
		}
		owner = t.Owner
		x.owners[treeID] = owner
	}
	return owner != "" && owner == c.GetPrincipal(), nil
}

// rootTreeNode answers tree_node(tree_id, node_id): null for a node that does not exist or
// that lies in another caller's tree.
func (x *execution) rootTreeNode(qf *hootv1.QueryField, fs []*ast.Field, args map[string]any) error {
	f := fs[0]
	treeID, _ := args["tree_id"].(string)
	nodeID, _ := args["node_id"].(string)
	if !ids.Valid(ids.Tree, treeID) {
		return located(f.Position, "tree_node(tree_id: %q): a tree id is \"tree_\" and 26 lowercase letters and digits", treeID)
	}
	if !ids.Valid(ids.Node, nodeID) {
		return located(f.Position, "tree_node(node_id: %q): a node id is \"node_\" and 26 lowercase letters and digits", nodeID)
	}
	if x.e.trees == nil {
		return nil
	}
	ok, err := x.visible(treeID)
	if err != nil || !ok {
		return err
	}
	n, err := x.e.trees.Node(x.ctx, treeID, nodeID)
	if errors.Is(err, arbor.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := x.count(f, 1); err != nil {
		return err
	}
	node, err := x.treeNode(n, sub(fs))
	if err != nil {
		return err
	}
	qf.Value = &hootv1.QueryField_TreeNode{TreeNode: node}
	return nil
}

// artifactTreeNodes answers an artifact's tree_nodes: of the first limit nodes that point at
// it, those the caller may see.
func (x *execution) artifactTreeNodes(f *ast.Field, set ast.SelectionSet, id string, limit int) (*hootv1.TreeNodeNodeList, error) {
	list := &hootv1.TreeNodeNodeList{}
	if x.e.trees == nil {
		return list, nil
	}
	ns, err := x.e.trees.NodesPointingTo(x.ctx, "artifact", id, limit)
	if err != nil {
		return nil, err
	}
	return x.treeNodeList(f, ns, set)
}

// treeNodeList returns the nodes of ns the caller may see.
func (x *execution) treeNodeList(f *ast.Field, ns []arbor.Node, set ast.SelectionSet) (*hootv1.TreeNodeNodeList, error) {
	list := &hootv1.TreeNodeNodeList{Items: []*hootv1.TreeNodeNode{}}
	for _, n := range ns {
		ok, err := x.visible(n.TreeID)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if err := x.count(f, 1); err != nil {
			return nil, err
		}
		node, err := x.treeNode(n, set)
		if err != nil {
			return nil, err
		}
		list.Items = append(list.Items, node)
	}
	return list, nil
}

// treeNode returns the node n with the fields set selects; n's tree is one the caller may see.
func (x *execution) treeNode(n arbor.Node, set ast.SelectionSet) (*hootv1.TreeNodeNode, error) {
	out := &hootv1.TreeNodeNode{}
	keys, fields := x.collect(set)
	for _, key := range keys {
		fs := fields[key]
		f := fs[0]
		switch f.Name {
		case "tree_id":
			out.TreeId = proto.String(n.TreeID)
		case "node_id":
			out.NodeId = proto.String(n.ID)
		case "role":
			role := "external"
			if !n.Content.IsExternal() {
				role = strings.ToLower(n.Content.Role.String())
			}
			out.Role = proto.String(role)
		case "text":
			text := n.Content.Text
			if n.Content.IsExternal() {
				text = n.Content.External.String()
			}
			out.Text = proto.String(shorten(text, MaxTreeText))
		case "path_length":
			out.PathLength = proto.Uint32(uint32(n.Depth))
		case "artifacts":
			out.Artifacts = &hootv1.ArtifactNodeList{Items: []*hootv1.ArtifactNode{}}
			if !n.Content.IsExternal() || n.Content.External.Source != "artifact" {
				continue
			}
			a, err := x.e.arts.Get(x.ctx, n.Content.External.Identifier)
			if errors.Is(err, artifacts.ErrNotFound) {
				continue // the handle names an artifact that is gone
			}
			if err != nil {
				return nil, err
			}
			if out.Artifacts, err = x.artifactList(f, []artifacts.Artifact{a}, sub(fs)); err != nil {
				return nil, err
			}
		case "children":
			limit, err := x.limit(f, f.ArgumentMap(x.vars), "limit", 20, MaxLimit)
			if err != nil {
				return nil, err
			}
			out.Children = &hootv1.TreeNodeNodeList{Items: []*hootv1.TreeNodeNode{}}
			if n.ChildCount == 0 {
				continue // the store counts a node's children; none need no walk
			}
			// The walk returns the node itself first, then its children oldest first.
			ns, _, err := x.e.trees.Walk(x.ctx, n.TreeID, n.ID, 1, limit+1)
			if err != nil {
				return nil, err
			}
			if len(ns) > 0 && ns[0].ID == n.ID {
				ns = ns[1:]
			}
			if len(ns) > limit {
				ns = ns[:limit]
			}
			if out.Children, err = x.treeNodeList(f, ns, sub(fs)); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// shorten cuts s to at most n characters, marking a cut with an ellipsis.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
