package queryservice

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/internal/arbor"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/graph"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

// TestTreesThroughDispatch shows that the caller a call carries decides which tree nodes of an
// artifact its query sees: the owner sees the node, another caller sees none.
func TestTreesThroughDispatch(t *testing.T) { servicetest.EachEngine(t, testTreesThroughDispatch) }

func testTreesThroughDispatch(t *testing.T, engine database.Engine) {
	ctx := context.Background()
	db, _ := servicetest.OpenDatabase(t, engine)
	arts := artifacts.NewStore(db)
	trees := arbor.NewStore(db)
	a, err := arts.Create(ctx, artifacts.New{Hash: strings.Repeat("a", 64), MimeType: "text/plain"})
	if err != nil {
		t.Fatal(err)
	}
	tree, root, err := trees.Create(ctx, "token:alice", nil, arbor.Content{Role: arbor.RoleUser, Text: "keep this"})
	if err != nil {
		t.Fatal(err)
	}
	n, err := trees.Add(ctx, tree.ID, root.ID, arbor.Content{External: arbor.External{Source: "artifact", Identifier: a.ID}})
	if err != nil {
		t.Fatal(err)
	}
	svc := hootv1hoot.NewQueryService(New(graph.New(arts, nil).WithTrees(trees), slog.New(slog.DiscardHandler)))
	nodes := func(principal string) []*hootv1.TreeNodeNode {
		t.Helper()
		cctx := hooteproto.WithCaller(ctx, &hootv1.Caller{Principal: principal, Tier: hootv1.Tier_TIER_STANDARD})
		res, err := svc.Dispatch(cctx, &hootv1.Payload{Request: &hootv1.Payload_ArtifactQuery{ArtifactQuery: &hootv1.ArtifactQueryRequest{
			Query: `{ artifact(id: "` + a.ID + `") { tree_nodes { node_id path_length } } }`,
		}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.GetArtifactQuery().GetData()[0].GetArtifact().GetTreeNodes().GetItems()
	}
	if got := nodes("token:alice"); len(got) != 1 || got[0].GetNodeId() != n.ID || got[0].GetPathLength() != 1 {
		t.Errorf("the owner's tree nodes = %v, want node %s at path length 1", got, n.ID)
	}
	if got := nodes("token:bob"); len(got) != 0 {
		t.Errorf("another caller sees %v, want no nodes", got)
	}
}
