package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/arbor"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/encoding/protojson"
)

// treeFixture is two trees over one artifact: alice's (a system root, a user turn under it and
// under that the artifact's handle) and bob's (a user root and the same handle under it).
type treeFixture struct {
	e                            *Engine
	art                          string
	alice, aRoot, aTurn, aHandle string
	bob, bRoot, bHandle          string
}

func newTreeFixture(t *testing.T, engine database.Engine) *treeFixture {
	t.Helper()
	ctx := context.Background()
	db, _ := servicetest.OpenDatabase(t, engine)
	arts := artifacts.NewStore(db)
	trees := arbor.NewStore(db)
	a, err := arts.Create(ctx, artifacts.New{Hash: strings.Repeat("b", 64), Size: 3, MimeType: "audio/midi"})
	if err != nil {
		t.Fatal(err)
	}
	f := &treeFixture{e: New(arts, nil).WithTrees(trees), art: a.ID}
	handle := arbor.Content{External: arbor.External{Source: "artifact", Identifier: a.ID}}
	add := func(tree, parent string, c arbor.Content) string {
		n, err := trees.Add(ctx, tree, parent, c)
		if err != nil {
			t.Fatal(err)
		}
		return n.ID
	}
	tr, root, err := trees.Create(ctx, "token:alice", nil, arbor.Content{Role: arbor.RoleSystem, Text: strings.Repeat("be brief ", 40)})
	if err != nil {
		t.Fatal(err)
	}
	f.alice, f.aRoot = tr.ID, root.ID
	f.aTurn = add(f.alice, f.aRoot, arbor.Content{Role: arbor.RoleUser, Text: "a tune in D"})
	f.aHandle = add(f.alice, f.aTurn, handle)
	tr, root, err = trees.Create(ctx, "token:bob", nil, arbor.Content{Role: arbor.RoleUser, Text: "bob's"})
	if err != nil {
		t.Fatal(err)
	}
	f.bob, f.bRoot = tr.ID, root.ID
	f.bHandle = add(f.bob, f.bRoot, handle)
	return f
}

func (f *treeFixture) names(s string) string {
	for name, id := range map[string]string{"ART": f.art, "ALICE": f.alice, "AROOT": f.aRoot, "ATURN": f.aTurn, "AHANDLE": f.aHandle, "BOB": f.bob, "BROOT": f.bRoot, "BHANDLE": f.bHandle} {
		s = strings.ReplaceAll(s, id, name)
	}
	return s
}

func as(principal string, tier hootv1.Tier) context.Context {
	return hooteproto.WithCaller(context.Background(), &hootv1.Caller{Principal: principal, Tier: tier})
}

// TestTreeQueries shows an artifact's tree nodes and a tree node's artifacts and children, and
// that below the admin tier a caller sees only its own trees' nodes.
func TestTreeQueries(t *testing.T) { servicetest.EachEngine(t, testTreeQueries) }

func testTreeQueries(t *testing.T, engine database.Engine) {
	f := newTreeFixture(t, engine)
	alice := as("token:alice", hootv1.Tier_TIER_STANDARD)
	admin := as("token:root", hootv1.Tier_TIER_ADMIN)
	nodesOf := `{ artifact(id: "` + f.art + `") { tree_nodes { tree_id node_id role text path_length } } }`
	turn := func(tree, node string) string {
		return `{ tree_node(tree_id: "` + tree + `", node_id: "` + node + `") { node_id role text children { node_id role text artifacts { id mime_type } } } }`
	}
	long := strings.Repeat("be brief ", 40)
	short := string([]rune(long)[:MaxTreeText-1]) + "…"
	for _, tc := range []struct {
		name  string
		ctx   context.Context
		query string
		want  string
	}{
		{"an admin sees every tree's nodes of an artifact", admin, nodesOf,
			`{"data":[{"name":"artifact","artifact":{"tree_nodes":{"items":[{"tree_id":"ALICE","node_id":"AHANDLE","role":"external","text":"[artifact:ART]","path_length":2},{"tree_id":"BOB","node_id":"BHANDLE","role":"external","text":"[artifact:ART]","path_length":1}]}}}],"nodes":3}`},
		{"alice sees only hers", alice, nodesOf,
			`{"data":[{"name":"artifact","artifact":{"tree_nodes":{"items":[{"tree_id":"ALICE","node_id":"AHANDLE","role":"external","text":"[artifact:ART]","path_length":2}]}}}],"nodes":2}`},
		{"a turn's children and their artifacts", alice, turn(f.alice, f.aTurn),
			`{"data":[{"name":"tree_node","tree_node":{"node_id":"ATURN","role":"user","text":"a tune in D","children":{"items":[{"node_id":"AHANDLE","role":"external","text":"[artifact:ART]","artifacts":{"items":[{"id":"ART","mime_type":"audio/midi"}]}}]}}}],"nodes":3}`},
		{"a long text comes short", alice, `{ tree_node(tree_id: "` + f.alice + `", node_id: "` + f.aRoot + `") { text path_length } }`,
			`{"data":[{"name":"tree_node","tree_node":{"text":"` + short + `","path_length":0}}],"nodes":1}`},
		{"another's tree node is absent", alice, turn(f.bob, f.bRoot),
			`{"data":[{"name":"tree_node"}]}`},
		{"a node of another tree is absent", alice, turn(f.alice, f.bRoot),
			`{"data":[{"name":"tree_node"}]}`},
		{"an admin reads bob's", admin, turn(f.bob, f.bRoot),
			`{"data":[{"name":"tree_node","tree_node":{"node_id":"BROOT","role":"user","text":"bob's","children":{"items":[{"node_id":"BHANDLE","role":"external","text":"[artifact:ART]","artifacts":{"items":[{"id":"ART","mime_type":"audio/midi"}]}}]}}}],"nodes":3}`},
		{"children bounded by limit", admin, `{ tree_node(tree_id: "` + f.alice + `", node_id: "` + f.aRoot + `") { children(limit: 1) { node_id children(limit: 1) { node_id } } } }`,
			`{"data":[{"name":"tree_node","tree_node":{"children":{"items":[{"node_id":"ATURN","children":{"items":[{"node_id":"AHANDLE"}]}}]}}}],"nodes":3}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := f.e.Query(tc.ctx, tc.query, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, b); err != nil {
				t.Fatal(err)
			}
			got := f.names(buf.String())
			if got != f.names(tc.want) {
				t.Errorf("got  %s\nwant %s", got, f.names(tc.want))
			}
		})
	}
}

// TestTreeQueryErrors shows the mistakes a tree query can make refused with the field at fault.
func TestTreeQueryErrors(t *testing.T) { servicetest.EachEngine(t, testTreeQueryErrors) }

func testTreeQueryErrors(t *testing.T, engine database.Engine) {
	f := newTreeFixture(t, engine)
	for _, tc := range []struct{ name, query, want string }{
		{"bad tree id", `{ tree_node(tree_id: "nope", node_id: "` + f.aRoot + `") { text } }`, `"tree_"`},
		{"bad node id", `{ tree_node(tree_id: "` + f.alice + `", node_id: "art_x") { text } }`, `"node_"`},
		{"bad limit", `{ artifact(id: "` + f.art + `") { tree_nodes(limit: 0) { text } } }`, "1 to 500"},
		{"bad children limit", `{ tree_node(tree_id: "` + f.alice + `", node_id: "` + f.aRoot + `") { children(limit: 501) { text } } }`, "1 to 500"},
		{"too costly", `{ artifacts(limit: 500) { tree_nodes(limit: 500) { children(limit: 500) { text artifacts { id } } } } }`, "too costly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.e.Query(context.Background(), tc.query, "", nil)
			var he *hooteproto.Error
			if !errors.As(err, &he) || he.Code() != hooteproto.CodeInvalidArgument || !strings.Contains(he.Error(), tc.want) {
				t.Fatalf("got %v, want an invalid argument naming %s", err, tc.want)
			}
		})
	}
}
