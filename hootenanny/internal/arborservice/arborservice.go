// Package arborservice serves the tools of the "arbor" service, conversation trees: tree_create,
// tree_get, tree_list, tree_add_node, tree_path, tree_leaves, tree_claim, tree_release,
// tree_archive, tree_delete and tree_render, over the tree store of package arbor.
//
// Trees belong to their caller, as jobs do. The gateway names who asked for each call
// (hoot.v1.Request's caller, when it checks tokens); a tree records the caller that created
// it, and a caller below the admin tier reads, grows, holds and lists only its own trees.
// Another caller's tree is answered exactly as a tree that does not exist. Without a caller (a
// gateway that checks no tokens) every tree is everyone's.
package arborservice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/internal/arbor"
	"github.com/hootenanny/hoot/hootenanny/internal/outage"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Pages and bounds of the tools.
const (
	// DefaultListLimit and DefaultLeavesLimit are the page sizes when a call gives none.
	DefaultListLimit   = 50
	DefaultLeavesLimit = 100
	// MaxGetNodes is the most nodes tree_get returns; a larger tree is read in parts.
	MaxGetNodes = 10_000
	// MaxRenderNodes is the most nodes tree_render draws.
	MaxRenderNodes = 20_000
)

// A Handler serves the "arbor" tools.
type Handler struct {
	store *arbor.Store
	log   *slog.Logger
}

var _ hootv1hoot.ArborHandler = (*Handler)(nil)

// New returns a Handler over store; a nil logger means slog.Default().
func New(store *arbor.Store, logger *slog.Logger) *Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return &Handler{store: store, log: logger}
}

// scope returns whose trees the caller of ctx may see: restricted is false for every tree (no
// caller, or an admin), and otherwise principal names the caller.
func scope(ctx context.Context) (principal string, restricted bool) {
	c := hooteproto.CallerFrom(ctx)
	if c == nil || c.GetTier() >= hootv1.Tier_TIER_ADMIN {
		return "", false
	}
	return c.GetPrincipal(), true
}

// tree reads the tree id as the caller of ctx may see it: another caller's tree is not found.
func (h *Handler) tree(ctx context.Context, id string) (arbor.Tree, error) {
	t, err := h.store.Get(ctx, id)
	if err != nil {
		return arbor.Tree{}, h.storeError(ctx, "reading the tree", err)
	}
	if principal, restricted := scope(ctx); restricted && t.Owner != principal {
		return arbor.Tree{}, h.storeError(ctx, "reading the tree", &arbor.NotFoundError{What: "tree", ID: id})
	}
	return t, nil
}

// content reads a node's content from a request's role, text and external fields.
func content(role hootv1.TurnRole, text, external string) (arbor.Content, error) {
	if external != "" {
		if text != "" || role != hootv1.TurnRole_TURN_ROLE_UNSPECIFIED {
			return arbor.Content{}, hooteproto.NewError(hooteproto.CodeInvalidArgument,
				"both external and text (or a role) were given; a node holds one or the other").
				WithField("external").
				WithHint("give text with a role, or external alone")
		}
		e, err := arbor.ParseExternal(external)
		if err != nil {
			return arbor.Content{}, invalid(err)
		}
		return arbor.Content{External: e}, nil
	}
	if text == "" {
		return arbor.Content{}, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			"the node has neither text nor external; it holds one of them").
			WithField("text").
			WithHint("give text with a role (role=user text=...), or an external handle (external=artifact:art_...)")
	}
	r := arbor.RoleUser
	switch role {
	case hootv1.TurnRole_TURN_ROLE_SYSTEM:
		r = arbor.RoleSystem
	case hootv1.TurnRole_TURN_ROLE_ASSISTANT:
		r = arbor.RoleAssistant
	case hootv1.TurnRole_TURN_ROLE_TOOL:
		r = arbor.RoleTool
	case hootv1.TurnRole_TURN_ROLE_USER, hootv1.TurnRole_TURN_ROLE_UNSPECIFIED:
	default:
		return arbor.Content{}, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("role %d is not system, user, assistant or tool", int32(role))).WithField("role")
	}
	c := arbor.Content{Role: r, Text: text}
	if err := c.Validate(); err != nil {
		return arbor.Content{}, invalid(err)
	}
	return c, nil
}

// TreeCreate makes a tree owned by the caller, with its root.
func (h *Handler) TreeCreate(ctx context.Context, req *hootv1.TreeCreateRequest) (*hootv1.TreeCreateResult, error) {
	c, err := content(req.GetRole(), req.GetText(), req.GetExternal())
	if err != nil {
		return nil, err
	}
	t, root, err := h.store.Create(ctx, hooteproto.CallerFrom(ctx).GetPrincipal(), req.GetMetadata(), c)
	if err != nil {
		return nil, h.storeError(ctx, "creating the tree", err)
	}
	return &hootv1.TreeCreateResult{Tree: TreeProto(t), Root: NodeProto(root)}, nil
}

// TreeGet returns a tree with all its nodes.
func (h *Handler) TreeGet(ctx context.Context, req *hootv1.TreeGetRequest) (*hootv1.TreeGetResult, error) {
	t, err := h.tree(ctx, req.GetTreeId())
	if err != nil {
		return nil, err
	}
	if t.NodeCount > MaxGetNodes {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("tree %s has %d nodes, more than tree_get returns (%d)", t.ID, t.NodeCount, MaxGetNodes)).
			WithField("tree_id").
			WithHint("read it in parts: tree_render with node_id and max_depth (format nodes), tree_path to one node, tree_leaves")
	}
	nodes, _, err := h.store.Walk(ctx, t.ID, t.RootID, 0, MaxGetNodes)
	if err != nil {
		return nil, h.storeError(ctx, "reading the nodes", err)
	}
	return &hootv1.TreeGetResult{Tree: TreeProto(t), Nodes: nodesProto(nodes)}, nil
}

// TreeList lists the caller's trees (an admin's, any owner's), newest first.
func (h *Handler) TreeList(ctx context.Context, req *hootv1.TreeListRequest) (*hootv1.TreeListResult, error) {
	limit := int(req.GetLimit())
	if limit == 0 {
		limit = DefaultListLimit
	}
	f := arbor.Filter{Owner: req.GetOwner(), Cursor: req.GetCursor(), Limit: limit, IncludeArchived: req.GetIncludeArchived()}
	if principal, restricted := scope(ctx); restricted {
		if f.Owner != "" && f.Owner != principal {
			return nil, hooteproto.NewError(hooteproto.CodePermissionDenied,
				"only an admin lists another owner's trees").
				WithField("owner").
				WithHint("leave owner out to list your own trees")
		}
		f.Owner, f.Restricted = principal, true
	}
	trees, next, err := h.store.List(ctx, f)
	if err != nil {
		return nil, h.storeError(ctx, "listing the trees", err)
	}
	out := &hootv1.TreeListResult{NextCursor: next}
	for _, t := range trees {
		out.Trees = append(out.Trees, TreeProto(t))
	}
	return out, nil
}

// TreeAddNode adds a node under any node of a tree.
func (h *Handler) TreeAddNode(ctx context.Context, req *hootv1.TreeAddNodeRequest) (*hootv1.TreeAddNodeResult, error) {
	c, err := content(req.GetRole(), req.GetText(), req.GetExternal())
	if err != nil {
		return nil, err
	}
	t, err := h.tree(ctx, req.GetTreeId())
	if err != nil {
		return nil, err
	}
	n, err := h.store.Add(ctx, t.ID, req.GetParentId(), c)
	if err != nil {
		e := h.storeError(ctx, "adding the node", err)
		if nf := (*arbor.NotFoundError)(nil); errors.As(err, &nf) && nf.What == "node" {
			e.(*hooteproto.Error).WithField("parent_id")
		}
		return nil, e
	}
	return &hootv1.TreeAddNodeResult{Node: NodeProto(n)}, nil
}

// TreePath returns the nodes from the root to a node.
func (h *Handler) TreePath(ctx context.Context, req *hootv1.TreePathRequest) (*hootv1.TreePathResult, error) {
	t, err := h.tree(ctx, req.GetTreeId())
	if err != nil {
		return nil, err
	}
	nodes, err := h.store.Path(ctx, t.ID, req.GetNodeId())
	if err != nil {
		return nil, h.storeError(ctx, "reading the path", err)
	}
	return &hootv1.TreePathResult{Nodes: nodesProto(nodes)}, nil
}

// TreeLeaves lists the nodes of a tree without children.
func (h *Handler) TreeLeaves(ctx context.Context, req *hootv1.TreeLeavesRequest) (*hootv1.TreeLeavesResult, error) {
	t, err := h.tree(ctx, req.GetTreeId())
	if err != nil {
		return nil, err
	}
	limit := int(req.GetLimit())
	if limit == 0 {
		limit = DefaultLeavesLimit
	}
	leaves, next, err := h.store.Leaves(ctx, t.ID, req.GetCursor(), limit)
	if err != nil {
		return nil, h.storeError(ctx, "reading the leaves", err)
	}
	return &hootv1.TreeLeavesResult{Leaves: nodesProto(leaves), NextCursor: next}, nil
}

// TreeClaim adds one to a tree's reference count.
func (h *Handler) TreeClaim(ctx context.Context, req *hootv1.TreeClaimRequest) (*hootv1.TreeClaimResult, error) {
	t, err := h.change(ctx, req.GetTreeId(), h.store.Claim)
	if err != nil {
		return nil, err
	}
	return &hootv1.TreeClaimResult{Tree: t}, nil
}

// TreeRelease takes one from a tree's reference count.
func (h *Handler) TreeRelease(ctx context.Context, req *hootv1.TreeReleaseRequest) (*hootv1.TreeReleaseResult, error) {
	t, err := h.change(ctx, req.GetTreeId(), h.store.Release)
	if err != nil {
		return nil, err
	}
	return &hootv1.TreeReleaseResult{Tree: t}, nil
}

// TreeArchive archives a tree no one holds.
func (h *Handler) TreeArchive(ctx context.Context, req *hootv1.TreeArchiveRequest) (*hootv1.TreeArchiveResult, error) {
	t, err := h.change(ctx, req.GetTreeId(), h.store.Archive)
	if err != nil {
		return nil, err
	}
	return &hootv1.TreeArchiveResult{Tree: t}, nil
}

func (h *Handler) change(ctx context.Context, id string, fn func(context.Context, string) (arbor.Tree, error)) (*hootv1.Tree, error) {
	if _, err := h.tree(ctx, id); err != nil {
		return nil, err
	}
	t, err := fn(ctx, id)
	if err != nil {
		return nil, h.storeError(ctx, "changing the tree", err)
	}
	return TreeProto(t), nil
}

// TreeDelete deletes a tree and its nodes.
func (h *Handler) TreeDelete(ctx context.Context, req *hootv1.TreeDeleteRequest) (*hootv1.TreeDeleteResult, error) {
	t, err := h.tree(ctx, req.GetTreeId())
	if err != nil {
		return nil, err
	}
	n, err := h.store.Delete(ctx, t.ID, req.GetForce())
	if err != nil {
		return nil, h.storeError(ctx, "deleting the tree", err)
	}
	return &hootv1.TreeDeleteResult{TreeId: t.ID, NodesDeleted: uint32(n)}, nil
}

// TreeRender draws a tree or a subtree to a depth.
func (h *Handler) TreeRender(ctx context.Context, req *hootv1.TreeRenderRequest) (*hootv1.TreeRenderResult, error) {
	t, err := h.tree(ctx, req.GetTreeId())
	if err != nil {
		return nil, err
	}
	from := req.GetNodeId()
	if from == "" {
		from = t.RootID
	}
	nodes, truncated, err := h.store.Walk(ctx, t.ID, from, int(req.GetMaxDepth()), MaxRenderNodes)
	if err != nil {
		return nil, h.storeError(ctx, "reading the nodes", err)
	}
	out := &hootv1.TreeRenderResult{NodesDrawn: uint32(len(nodes)), Truncated: truncated}
	switch req.GetFormat() {
	case hootv1.RenderFormat_RENDER_FORMAT_MARKDOWN:
		out.Text = arbor.RenderMarkdown(nodes, truncated)
	case hootv1.RenderFormat_RENDER_FORMAT_NODES:
		out.Nodes = nodesProto(nodes)
	case hootv1.RenderFormat_RENDER_FORMAT_TEXT, hootv1.RenderFormat_RENDER_FORMAT_UNSPECIFIED:
		out.Text = arbor.RenderText(nodes, truncated)
	default:
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("format %d is not text, markdown or nodes", int32(req.GetFormat()))).WithField("format")
	}
	if out.Text != "" {
		out.Content = []*hootv1.Content{{Block: &hootv1.Content_Text{Text: out.Text}}}
	}
	return out, nil
}

// invalid turns the store's refusal of input into an error on the field at fault.
func invalid(err error) error {
	var inv *arbor.InvalidError
	if errors.As(err, &inv) {
		e := hooteproto.NewError(hooteproto.CodeInvalidArgument, inv.Problem).WithField(inv.Field)
		switch inv.Field {
		case "external":
			e = e.WithHint("write the handle as source:identifier with source artifact, job or node, for instance artifact:art_01jd8x2k3m4n5p6q7r8s9t0vwx")
		case "text":
			e = e.WithHint(fmt.Sprintf("give valid UTF-8 text of at most %d characters; keep longer text as an artifact and add it as external artifact:ID", arbor.MaxTextRunes))
		case "metadata":
			e = e.WithHint(fmt.Sprintf("keep metadata to %d entries, keys of 1 to %d characters and values of at most %d", arbor.MaxMetadata, arbor.MaxKeyLen, arbor.MaxValueLen))
		}
		return e
	}
	return err
}

// storeError turns an error of the store into one for the caller.
func (h *Handler) storeError(ctx context.Context, op string, err error) error {
	var (
		nf *arbor.NotFoundError
		le *arbor.LimitError
		se *arbor.StateError
		ie *arbor.InvalidError
	)
	switch {
	case errors.As(err, &nf) && nf.What == "node":
		return hooteproto.NewError(hooteproto.CodeNotFound, nf.Error()).WithField("node_id").
			WithHint("name a node of this tree, as tree_get, tree_leaves or tree_render (format nodes) return them")
	case errors.As(err, &nf):
		return hooteproto.NewError(hooteproto.CodeNotFound, nf.Error()).WithField("tree_id").
			WithHint("find your trees with tree_list, or make one with tree_create")
	case errors.As(err, &le):
		return hooteproto.NewError(hooteproto.CodeInvalidArgument, le.Problem).WithField("parent_id").
			WithHint(fmt.Sprintf("a tree holds at most %d nodes, %d deep; start a new tree with tree_create and point to this one with external node:ID", arbor.MaxNodes, arbor.MaxDepth))
	case errors.As(err, &se):
		return hooteproto.NewError(hooteproto.CodeInvalidArgument, se.Problem).WithField("tree_id").
			WithHint("see the tree's ref_count and archived with tree_get or tree_list")
	case errors.As(err, &ie):
		return invalid(err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return hooteproto.AsError(err)
	}
	if e := outage.Error(op, err); e != nil {
		h.log.WarnContext(ctx, "arborservice: "+op+" failed", "err", err)
		return e
	}
	h.log.ErrorContext(ctx, "arborservice: "+op+" failed", "err", err)
	return hooteproto.NewError(hooteproto.CodeInternal, op+" failed inside the worker").
		WithHint("this is a fault in the server, not in the call; if it keeps happening, tell the server's operator")
}

// TreeProto returns t in its wire form.
func TreeProto(t arbor.Tree) *hootv1.Tree {
	return &hootv1.Tree{
		Id:        t.ID,
		Owner:     t.Owner,
		RefCount:  uint32(t.RefCount),
		Metadata:  t.Metadata,
		RootId:    t.RootID,
		NodeCount: uint32(t.NodeCount),
		Archived:  t.Archived,
		CreatedAt: timestamppb.New(t.CreatedAt),
	}
}

// NodeProto returns n in its wire form.
func NodeProto(n arbor.Node) *hootv1.TreeNode {
	out := &hootv1.TreeNode{
		Id:         n.ID,
		TreeId:     n.TreeID,
		ParentId:   n.ParentID,
		ChildIds:   n.ChildIDs,
		ChildCount: uint32(n.ChildCount),
		Depth:      uint32(n.Depth),
		CreatedAt:  timestamppb.New(n.CreatedAt),
	}
	if n.Content.IsExternal() {
		out.Content = &hootv1.TreeNode_External{External: &hootv1.TreeExternal{
			Source: n.Content.External.Source, Identifier: n.Content.External.Identifier,
		}}
	} else {
		out.Content = &hootv1.TreeNode_Text{Text: &hootv1.TreeText{
			Role: hootv1.TurnRole(n.Content.Role), Text: n.Content.Text,
		}}
	}
	return out
}

func nodesProto(nodes []arbor.Node) []*hootv1.TreeNode {
	out := make([]*hootv1.TreeNode, len(nodes))
	for i, n := range nodes {
		out[i] = NodeProto(n)
	}
	return out
}
