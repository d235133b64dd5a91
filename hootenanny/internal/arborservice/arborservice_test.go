package arborservice

import (
	"context"
	"errors"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/arbor"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

func newHandler(t *testing.T) *Handler {
	t.Helper()
	db, _ := servicetest.OpenDatabase(t, database.SQLite)
	return New(arbor.NewStore(db), nil)
}

func as(principal string, tier hootv1.Tier) context.Context {
	return hooteproto.WithCaller(context.Background(), &hootv1.Caller{Principal: principal, Tier: tier})
}

func code(err error) hooteproto.Code {
	var e *hooteproto.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return hooteproto.CodeInternal
}

// TestConversation grows the two-branch conversation through the tools and renders it in each
// format.
func TestConversation(t *testing.T) {
	h := newHandler(t)
	ctx := as("token:alice", hootv1.Tier_TIER_STANDARD)
	created, err := h.TreeCreate(ctx, &hootv1.TreeCreateRequest{
		Role: hootv1.TurnRole_TURN_ROLE_SYSTEM, Content: &hootv1.TreeCreateRequest_Text{Text: "You are a helpful assistant"},
		Metadata: map[string]string{"topic": "greetings"},
	})
	if err != nil {
		t.Fatal(err)
	}
	tree, root := created.GetTree(), created.GetRoot()
	if tree.GetOwner() != "token:alice" || tree.GetMetadata()["topic"] != "greetings" {
		t.Errorf("created %v", tree)
	}
	add := func(parent string, role hootv1.TurnRole, text string) *hootv1.TreeNode {
		t.Helper()
		r, err := h.TreeAddNode(ctx, &hootv1.TreeAddNodeRequest{TreeId: tree.GetId(), ParentId: parent, Role: role, Content: &hootv1.TreeAddNodeRequest_Text{Text: text}})
		if err != nil {
			t.Fatal(err)
		}
		return r.GetNode()
	}
	u1 := add(root.GetId(), hootv1.TurnRole_TURN_ROLE_USER, "Hello, how are you?")
	add(u1.GetId(), hootv1.TurnRole_TURN_ROLE_ASSISTANT, "I'm doing well, thank you! How can I help?")
	u2 := add(root.GetId(), hootv1.TurnRole_TURN_ROLE_UNSPECIFIED, "What's the weather?")
	a2 := add(u2.GetId(), hootv1.TurnRole_TURN_ROLE_ASSISTANT, "I don't have access to weather data.")

	r, err := h.TreeRender(ctx, &hootv1.TreeRenderRequest{TreeId: tree.GetId()})
	if err != nil {
		t.Fatal(err)
	}
	want := `└── System: You are a helpful assistant
    ├── User: Hello, how are you?
    │   └── Assistant: I'm doing well, thank you! How can I help?
    └── User: What's the weather?
        └── Assistant: I don't have access to weather data.
`
	if c := r.GetContent(); len(c) != 1 || c[0].GetText() != want {
		t.Errorf("the render's text content: %v", c)
	}
	if r.GetText() != want || r.GetNodesDrawn() != 5 || r.GetTruncated() {
		t.Errorf("render (%d drawn, truncated %v):\n%s", r.GetNodesDrawn(), r.GetTruncated(), r.GetText())
	}
	md, err := h.TreeRender(ctx, &hootv1.TreeRenderRequest{TreeId: tree.GetId(), MaxDepth: 1, Format: hootv1.RenderFormat_RENDER_FORMAT_MARKDOWN})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.GetText(), "- **System**: You are a helpful assistant\n  - **User**: Hello, how are you?\n  - **User**: What's the weather?\n") || !md.GetTruncated() {
		t.Errorf("markdown to depth 1:\n%s", md.GetText())
	}
	typed, err := h.TreeRender(ctx, &hootv1.TreeRenderRequest{TreeId: tree.GetId(), NodeId: u2.GetId(), Format: hootv1.RenderFormat_RENDER_FORMAT_NODES})
	if err != nil {
		t.Fatal(err)
	}
	if n := typed.GetNodes(); len(n) != 2 || n[0].GetId() != u2.GetId() || n[1].GetText().GetText() != "I don't have access to weather data." || typed.GetText() != "" {
		t.Errorf("typed subtree %v", typed)
	}

	path, err := h.TreePath(ctx, &hootv1.TreePathRequest{TreeId: tree.GetId(), NodeId: a2.GetId()})
	if err != nil {
		t.Fatal(err)
	}
	if n := path.GetNodes(); len(n) != 3 || n[0].GetId() != root.GetId() || n[1].GetId() != u2.GetId() || n[2].GetId() != a2.GetId() {
		t.Errorf("path %v", path)
	}
	leaves, err := h.TreeLeaves(ctx, &hootv1.TreeLeavesRequest{TreeId: tree.GetId()})
	if err != nil || len(leaves.GetLeaves()) != 2 {
		t.Errorf("leaves %v, %v", leaves, err)
	}
	got, err := h.TreeGet(ctx, &hootv1.TreeGetRequest{TreeId: tree.GetId()})
	if err != nil || len(got.GetNodes()) != 5 || got.GetTree().GetNodeCount() != 5 || len(got.GetNodes()[0].GetChildIds()) != 2 {
		t.Errorf("get %v, %v", got, err)
	}
	ext, err := h.TreeAddNode(ctx, &hootv1.TreeAddNodeRequest{TreeId: tree.GetId(), ParentId: a2.GetId(), Content: &hootv1.TreeAddNodeRequest_External{External: "[artifact:art_01jd8x2k3m4n5p6q7r8s9t0vwx]"}})
	if err != nil || ext.GetNode().GetExternal().GetSource() != "artifact" {
		t.Errorf("external node %v, %v", ext, err)
	}
}

// TestOwners shows that a caller below the admin tier sees only its own trees, and another's
// as not found.
func TestOwners(t *testing.T) {
	h := newHandler(t)
	alice, bob := as("token:alice", hootv1.Tier_TIER_STANDARD), as("token:bob", hootv1.Tier_TIER_STANDARD)
	admin := as("token:root", hootv1.Tier_TIER_ADMIN)
	c, err := h.TreeCreate(alice, &hootv1.TreeCreateRequest{Content: &hootv1.TreeCreateRequest_Text{Text: "alice's"}})
	if err != nil {
		t.Fatal(err)
	}
	id, root := c.GetTree().GetId(), c.GetRoot().GetId()
	if _, err := h.TreeCreate(bob, &hootv1.TreeCreateRequest{Content: &hootv1.TreeCreateRequest_Text{Text: "bob's"}}); err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"get": func() error { _, err := h.TreeGet(bob, &hootv1.TreeGetRequest{TreeId: id}); return err },
		"add": func() error {
			_, err := h.TreeAddNode(bob, &hootv1.TreeAddNodeRequest{TreeId: id, ParentId: root, Content: &hootv1.TreeAddNodeRequest_Text{Text: "x"}})
			return err
		},
		"path":    func() error { _, err := h.TreePath(bob, &hootv1.TreePathRequest{TreeId: id, NodeId: root}); return err },
		"leaves":  func() error { _, err := h.TreeLeaves(bob, &hootv1.TreeLeavesRequest{TreeId: id}); return err },
		"render":  func() error { _, err := h.TreeRender(bob, &hootv1.TreeRenderRequest{TreeId: id}); return err },
		"claim":   func() error { _, err := h.TreeClaim(bob, &hootv1.TreeClaimRequest{TreeId: id}); return err },
		"release": func() error { _, err := h.TreeRelease(bob, &hootv1.TreeReleaseRequest{TreeId: id}); return err },
		"archive": func() error { _, err := h.TreeArchive(bob, &hootv1.TreeArchiveRequest{TreeId: id}); return err },
		"delete":  func() error { _, err := h.TreeDelete(bob, &hootv1.TreeDeleteRequest{TreeId: id}); return err },
	} {
		if err := call(); code(err) != hooteproto.CodeNotFound {
			t.Errorf("bob's %s of alice's tree: %v, want not found", name, err)
		}
	}
	list, err := h.TreeList(bob, &hootv1.TreeListRequest{})
	if err != nil || len(list.GetTrees()) != 1 || list.GetTrees()[0].GetOwner() != "token:bob" {
		t.Errorf("bob's list %v, %v", list, err)
	}
	if _, err := h.TreeList(bob, &hootv1.TreeListRequest{Owner: "token:alice"}); code(err) != hooteproto.CodePermissionDenied {
		t.Errorf("bob listing alice's trees: %v", err)
	}
	all, err := h.TreeList(admin, &hootv1.TreeListRequest{})
	if err != nil || len(all.GetTrees()) != 2 {
		t.Errorf("the admin's list %v, %v", all, err)
	}
	only, err := h.TreeList(admin, &hootv1.TreeListRequest{Owner: "token:alice"})
	if err != nil || len(only.GetTrees()) != 1 {
		t.Errorf("the admin's list of alice's trees %v, %v", only, err)
	}
	if _, err := h.TreeRender(admin, &hootv1.TreeRenderRequest{TreeId: id}); err != nil {
		t.Errorf("the admin renders alice's tree: %v", err)
	}
	d, err := h.TreeDelete(admin, &hootv1.TreeDeleteRequest{TreeId: id})
	if err != nil || d.GetNodesDeleted() != 1 {
		t.Errorf("the admin deletes alice's tree: %v, %v", d, err)
	}
}

func TestBadInput(t *testing.T) {
	h := newHandler(t)
	ctx := context.Background()
	c, err := h.TreeCreate(ctx, &hootv1.TreeCreateRequest{Content: &hootv1.TreeCreateRequest_Text{Text: "root"}})
	if err != nil {
		t.Fatal(err)
	}
	id, root := c.GetTree().GetId(), c.GetRoot().GetId()
	for _, tc := range []struct {
		name  string
		err   error
		code  hooteproto.Code
		field string
	}{
		{"bad external", func() error {
			_, err := h.TreeAddNode(ctx, &hootv1.TreeAddNodeRequest{TreeId: id, ParentId: root, Content: &hootv1.TreeAddNodeRequest_External{External: "web:x"}})
			return err
		}(), hooteproto.CodeInvalidArgument, "external"},
		{"bad text", func() error {
			_, err := h.TreeAddNode(ctx, &hootv1.TreeAddNodeRequest{TreeId: id, ParentId: root, Content: &hootv1.TreeAddNodeRequest_Text{Text: "\xff"}})
			return err
		}(), hooteproto.CodeInvalidArgument, "text"},
		{"missing parent", func() error {
			_, err := h.TreeAddNode(ctx, &hootv1.TreeAddNodeRequest{TreeId: id, ParentId: "node_00000000000000000000000000", Content: &hootv1.TreeAddNodeRequest_Text{Text: "x"}})
			return err
		}(), hooteproto.CodeNotFound, "parent_id"},
		{"missing tree", func() error {
			_, err := h.TreeRender(ctx, &hootv1.TreeRenderRequest{TreeId: "tree_00000000000000000000000000"})
			return err
		}(), hooteproto.CodeNotFound, "tree_id"},
		{"release unheld", func() error {
			_, err := h.TreeRelease(ctx, &hootv1.TreeReleaseRequest{TreeId: id})
			return err
		}(), hooteproto.CodeInvalidArgument, "tree_id"},
		{"no content", func() error {
			_, err := h.TreeAddNode(ctx, &hootv1.TreeAddNodeRequest{TreeId: id, ParentId: root, Role: hootv1.TurnRole_TURN_ROLE_USER})
			return err
		}(), hooteproto.CodeInvalidArgument, "text"},
		{"bad role", func() error {
			_, err := h.TreeCreate(ctx, &hootv1.TreeCreateRequest{Role: 42, Content: &hootv1.TreeCreateRequest_Text{Text: "x"}})
			return err
		}(), hooteproto.CodeInvalidArgument, "role"},
	} {
		var e *hooteproto.Error
		if !errors.As(tc.err, &e) || e.Code() != tc.code || e.Field() != tc.field {
			t.Errorf("%s: %v, want %v on %s", tc.name, tc.err, tc.code, tc.field)
		}
	}
}
