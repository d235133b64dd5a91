package arborservice

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/arbor"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

func newCone(t *testing.T) (*Cone, *Handler, cas.Store, *artifacts.Store) {
	t.Helper()
	db, _ := servicetest.OpenDatabase(t, database.SQLite)
	store, err := cas.OpenDir(filepath.Join(t.TempDir(), "cas"), nil)
	if err != nil {
		t.Fatal(err)
	}
	arts := artifacts.NewStore(db)
	h := New(arbor.NewStore(db), nil)
	return NewCone(h, store, arts), h, store, arts
}

// answering returns ctx with an asker whose model answers answer, recording each question.
func answering(ctx context.Context, answer string, asked *[]*hootv1.SamplingRequest) context.Context {
	return hooteproto.WithAsk(ctx, func(_ context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
		*asked = append(*asked, req.GetSampling())
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Sampling{Sampling: &hootv1.SamplingResult{
			Role: hootv1.Role_ROLE_ASSISTANT, Model: "fake-model",
			Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: answer}},
		}}}, nil
	})
}

const tuneAnswer = "Here is a reel:\n\n```abc\nX:1\nT:Drafted\nM:4/4\nK:D\n|:d2fd Adfd|\n```\n\nEnjoy."

// TestConeChat sends the path as the conversation, appends both turns, and keeps the tune.
func TestConeChat(t *testing.T) {
	c, h, store, arts := newCone(t)
	ctx := as("token:alice", hootv1.Tier_TIER_STANDARD)
	created, err := h.TreeCreate(ctx, &hootv1.TreeCreateRequest{Role: hootv1.TurnRole_TURN_ROLE_SYSTEM, Content: &hootv1.TreeCreateRequest_Text{Text: "You compose folk tunes."}})
	if err != nil {
		t.Fatal(err)
	}
	tree := created.GetTree().GetId()
	u, err := h.TreeAddNode(ctx, &hootv1.TreeAddNodeRequest{TreeId: tree, ParentId: created.GetRoot().GetId(), Content: &hootv1.TreeAddNodeRequest_Text{Text: "Hello"}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := h.TreeAddNode(ctx, &hootv1.TreeAddNodeRequest{TreeId: tree, ParentId: u.GetNode().GetId(), Role: hootv1.TurnRole_TURN_ROLE_ASSISTANT, Content: &hootv1.TreeAddNodeRequest_Text{Text: "Hi! What shall we write?"}})
	if err != nil {
		t.Fatal(err)
	}
	x, err := h.TreeAddNode(ctx, &hootv1.TreeAddNodeRequest{TreeId: tree, ParentId: a.GetNode().GetId(), Content: &hootv1.TreeAddNodeRequest_External{External: "artifact:art_sketch"}})
	if err != nil {
		t.Fatal(err)
	}
	var asked []*hootv1.SamplingRequest
	var progress []string
	ctx = hooteproto.WithProgress(answering(ctx, tuneAnswer, &asked), func(p *hootv1.Progress) { progress = append(progress, p.GetMessage()) })
	res, err := c.ConeChat(ctx, &hootv1.ConeChatRequest{TreeId: tree, NodeId: x.GetNode().GetId(), Message: "A reel in D, please."})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	q := asked[0]
	if q.GetSystemPrompt() != "You compose folk tunes." || q.GetMaxTokens() != DefaultChatTokens {
		t.Errorf("system %q, max tokens %d", q.GetSystemPrompt(), q.GetMaxTokens())
	}
	var got []string
	for _, m := range q.GetMessages() {
		got = append(got, m.GetRole().String()+"="+m.GetContent().GetText())
	}
	want := []string{"ROLE_USER=Hello", "ROLE_ASSISTANT=Hi! What shall we write?", "ROLE_USER=(attached: [artifact:art_sketch])", "ROLE_USER=A reel in D, please."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("messages\n got %q\nwant %q", got, want)
	}
	if res.GetUser().GetParentId() != x.GetNode().GetId() || res.GetUser().GetChildCount() != 1 || res.GetUser().GetChildIds()[0] != res.GetAssistant().GetId() || res.GetUser().GetText().GetText() != "A reel in D, please." {
		t.Errorf("user node %v", res.GetUser())
	}
	if res.GetAssistant().GetParentId() != res.GetUser().GetId() || res.GetAssistant().GetText().GetText() != tuneAnswer || res.GetModel() != "fake-model" {
		t.Errorf("assistant node %v", res.GetAssistant())
	}
	if res.GetNodesSent() != 4 || res.GetNodesDropped() != 0 {
		t.Errorf("sent %d dropped %d", res.GetNodesSent(), res.GetNodesDropped())
	}
	att := res.GetAttachment()
	if att.GetParentId() != res.GetAssistant().GetId() || att.GetExternal().GetSource() != "artifact" || att.GetExternal().GetIdentifier() != res.GetArtifactId() {
		t.Fatalf("attachment %v, artifact %q", att, res.GetArtifactId())
	}
	art, err := arts.Get(context.Background(), res.GetArtifactId())
	if err != nil {
		t.Fatal(err)
	}
	if art.MimeType != ABCMediaType || art.Creator != "token:alice" {
		t.Errorf("artifact %+v", art)
	}
	h2, err := cas.ParseHash(art.Hash)
	if err != nil {
		t.Fatal(err)
	}
	rc, _, err := store.Open(context.Background(), h2)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(rc)
	rc.Close()
	if string(body) != "X:1\nT:Drafted\nM:4/4\nK:D\n|:d2fd Adfd|\n" {
		t.Errorf("stored tune %q", body)
	}
	path, err := h.TreePath(as("token:alice", hootv1.Tier_TIER_STANDARD), &hootv1.TreePathRequest{TreeId: tree, NodeId: att.GetId()})
	if err != nil || len(path.GetNodes()) != 7 {
		t.Errorf("path to the attachment: %d nodes, %v", len(path.GetNodes()), err)
	}
	if len(progress) < 2 || progress[0] != "asking the client's model" {
		t.Errorf("progress %q", progress)
	}
}

// TestConeChatRefusals: another caller's tree is not found, a client that cannot sample gets
// an error that says so, and neither leaves a node behind.
func TestConeChatRefusals(t *testing.T) {
	c, h, _, _ := newCone(t)
	alice := as("token:alice", hootv1.Tier_TIER_STANDARD)
	created, err := h.TreeCreate(alice, &hootv1.TreeCreateRequest{Content: &hootv1.TreeCreateRequest_Text{Text: "Hi"}})
	if err != nil {
		t.Fatal(err)
	}
	tree, root := created.GetTree().GetId(), created.GetRoot().GetId()
	var asked []*hootv1.SamplingRequest
	bob := answering(as("token:bob", hootv1.Tier_TIER_STANDARD), "no", &asked)
	_, err = c.ConeChat(bob, &hootv1.ConeChatRequest{TreeId: tree, NodeId: root, Message: "hello"})
	servicetest.WantError(t, err, hooteproto.CodeNotFound, "tree_id", "")
	if len(asked) != 0 {
		t.Error("another caller's tree reached the model")
	}

	cannot := hooteproto.WithAsk(alice, func(context.Context, *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Error{Error: hooteproto.ToolErrorOf(hooteproto.NewError(hooteproto.CodeUnavailable, "the client does not support sampling"))}}, nil
	})
	_, err = c.ConeChat(cannot, &hootv1.ConeChatRequest{TreeId: tree, NodeId: root, Message: "hello"})
	e := servicetest.WantError(t, err, hooteproto.CodeUnavailable, "", "sampling")
	if !strings.Contains(e.Hint(), "sampling") {
		t.Errorf("hint %q", e.Hint())
	}
	_, err = c.ConeChat(alice, &hootv1.ConeChatRequest{TreeId: tree, NodeId: root, Message: "hello"})
	servicetest.WantError(t, err, hooteproto.CodeUnavailable, "", "no client")

	ctx := answering(alice, "fine", &asked)
	_, err = c.ConeChat(ctx, &hootv1.ConeChatRequest{TreeId: tree, NodeId: "node_missing", Message: "hello"})
	servicetest.WantError(t, err, hooteproto.CodeNotFound, "node_id", "")
	cctx, cancel := context.WithCancel(alice)
	cancelled := hooteproto.WithAsk(cctx, func(ctx context.Context, _ *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	})
	_, err = c.ConeChat(cancelled, &hootv1.ConeChatRequest{TreeId: tree, NodeId: root, Message: "hello"})
	if code(err) != hooteproto.CodeCanceled {
		t.Errorf("a call cancelled while the model answers: %v", err)
	}
	g, err := h.TreeGet(alice, &hootv1.TreeGetRequest{TreeId: tree})
	if err != nil || len(g.GetNodes()) != 1 {
		t.Errorf("the refused turns left %d nodes (%v)", len(g.GetNodes()), err)
	}
}

// TestConversationBounds keeps the system prompt and the newest turns.
func TestConversationBounds(t *testing.T) {
	path := []arbor.Node{{Content: arbor.Content{Role: arbor.RoleSystem, Text: "sys"}}}
	for i := 0; i < MaxChatNodes+10; i++ {
		path = append(path, arbor.Node{Content: arbor.Content{Role: arbor.RoleUser, Text: strings.Repeat("x", i+1)}})
	}
	req, sent, dropped := Conversation(path, "new")
	if req.GetSystemPrompt() != "sys" || sent != MaxChatNodes || dropped != len(path)-MaxChatNodes {
		t.Fatalf("sent %d dropped %d system %q", sent, dropped, req.GetSystemPrompt())
	}
	msgs := req.GetMessages()
	if len(msgs) != MaxChatNodes || msgs[len(msgs)-2].GetContent().GetText() != strings.Repeat("x", MaxChatNodes+10) {
		t.Errorf("%d messages, the one before the new message is %d long", len(msgs), len(msgs[len(msgs)-2].GetContent().GetText()))
	}
	big := []arbor.Node{{Content: arbor.Content{Role: arbor.RoleUser, Text: strings.Repeat("y", MaxChatRunes)}}, {Content: arbor.Content{Role: arbor.RoleAssistant, Text: "short"}}}
	req, sent, dropped = Conversation(big, "new")
	if sent != 1 || dropped != 1 || len(req.GetMessages()) != 2 {
		t.Errorf("over the character bound: sent %d dropped %d", sent, dropped)
	}
}

func TestExtractABC(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{tuneAnswer, "X:1\nT:Drafted\nM:4/4\nK:D\n|:d2fd Adfd|\n"},
		{"Try this:\nX:2\nT:Bare\nK:G\nGABc dedB|\n\nThat's it.", "X:2\nT:Bare\nK:G\nGABc dedB|\n"},
		{"```\nprint('no tune')\n```", ""},
		{"X:1 is not a header here, and K: neither", ""},
		{"X:3\nT:No key", ""},
		{"", ""},
	} {
		if got := ExtractABC(tc.in); got != tc.want {
			t.Errorf("ExtractABC(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzExtractABC(f *testing.F) {
	f.Add(tuneAnswer)
	f.Add("X:1\nK:C\n")
	f.Add("```abc\nX:1\nK:C\nC```")
	f.Fuzz(func(t *testing.T, s string) {
		got := ExtractABC(s)
		if got != "" && (!strings.Contains(got, "X:") || !strings.Contains(got, "K:") || len(got) > len(s)+1) {
			t.Errorf("ExtractABC(%q) = %q", s, got)
		}
	})
}

// TestConeChatWholeTurn: a turn is added whole or not at all. At the bottom of a tree the
// answer's tune does not fit: the user's node and the answer are not added either. A node with
// no room for a turn is refused before the model is asked; a call cancelled as the model
// answers adds nothing.
func TestConeChatWholeTurn(t *testing.T) {
	c, h, _, _ := newCone(t)
	alice := as("token:alice", hootv1.Tier_TIER_STANDARD)
	created, err := h.TreeCreate(alice, &hootv1.TreeCreateRequest{Content: &hootv1.TreeCreateRequest_Text{Text: "Deep"}})
	if err != nil {
		t.Fatal(err)
	}
	tree := created.GetTree().GetId()
	deep := make([]arbor.Content, arbor.MaxDepth-1)
	for i := range deep {
		deep[i] = arbor.Content{Role: arbor.RoleUser, Text: "down"}
	}
	down, err := h.store.AddChain(context.Background(), tree, created.GetRoot().GetId(), deep...)
	if err != nil {
		t.Fatal(err)
	}
	roomForTwo, bottom := down[len(down)-2], down[len(down)-1] // at depths MaxDepth-2 and MaxDepth-1
	count := func() int {
		t.Helper()
		g, err := h.store.Get(context.Background(), tree)
		if err != nil {
			t.Fatal(err)
		}
		return g.NodeCount
	}
	before := count()

	var asked []*hootv1.SamplingRequest
	_, err = c.ConeChat(answering(alice, tuneAnswer, &asked), &hootv1.ConeChatRequest{TreeId: tree, NodeId: roomForTwo.ID, Message: "One more"})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "node_id", "depth")
	if len(asked) != 1 || count() != before {
		t.Errorf("a turn whose tune does not fit: asked %d times, %d nodes added", len(asked), count()-before)
	}

	_, err = c.ConeChat(answering(alice, "fine", &asked), &hootv1.ConeChatRequest{TreeId: tree, NodeId: bottom.ID, Message: "One more"})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "node_id", "depth")
	if len(asked) != 1 || count() != before {
		t.Errorf("a turn with no room: asked %d times (want the model not asked), %d nodes added", len(asked), count()-before)
	}

	// The answer comes as the call is cancelled: nothing is added.
	cctx, cancel := context.WithCancel(alice)
	late := hooteproto.WithAsk(cctx, func(context.Context, *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
		cancel()
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Sampling{Sampling: &hootv1.SamplingResult{
			Role: hootv1.Role_ROLE_ASSISTANT, Model: "fake-model", Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: "too late"}},
		}}}, nil
	})
	_, err = c.ConeChat(late, &hootv1.ConeChatRequest{TreeId: tree, NodeId: created.GetRoot().GetId(), Message: "Cancelled"})
	if code(err) != hooteproto.CodeCanceled {
		t.Errorf("a call cancelled as the answer came: %v", err)
	}
	if count() != before {
		t.Errorf("the cancelled turn added %d nodes", count()-before)
	}
}
