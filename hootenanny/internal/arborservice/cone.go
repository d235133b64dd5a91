package arborservice

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"unicode/utf8"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/arbor"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/artifactservice"
	"github.com/hootenanny/hoot/hooteproto"
)

// The bounds of a conversation turn.
const (
	// MaxChatNodes is the most nodes of the path sent to the model: the system prompts, then the
	// newest of the rest.
	MaxChatNodes = 64
	// MaxChatRunes is the most characters of text sent to the model; the oldest turns (after
	// the system prompts) are left out first.
	MaxChatRunes = 200_000
	// DefaultChatTokens is the model's answer length when the call gives none.
	DefaultChatTokens = 1024
	// ABCMediaType is the media type of a tune the model wrote.
	ABCMediaType = "text/vnd.abc"
)

// Cone serves the "cone" tool, cone_chat: a conversation turn on an arbor tree, answered by
// the client's own model through MCP sampling. The tree's owner rules are arbor's: the caller
// must see the tree.
type Cone struct {
	trees *Handler
	cas   cas.Store
	arts  *artifacts.Store
	log   *slog.Logger
}

var _ hootv1hoot.ConeHandler = (*Cone)(nil)

// NewCone returns the cone_chat handler over arbor's trees (through trees), storing tunes in
// store and arts.
func NewCone(trees *Handler, store cas.Store, arts *artifacts.Store) *Cone {
	return &Cone{trees: trees, cas: store, arts: arts, log: trees.log}
}

// ConeChat asks the client's model to answer the conversation from the root to node_id followed
// by message, then appends the user's node and the answer's node (and a tune's artifact). It
// asks before it changes anything: in MCP 2026-07-28 the handler runs again once the client has
// answered, and the first run must leave the tree as it was.
func (c *Cone) ConeChat(ctx context.Context, req *hootv1.ConeChatRequest) (*hootv1.ConeChatResult, error) {
	user := arbor.Content{Role: arbor.RoleUser, Text: req.GetMessage()}
	if req.GetMessage() == "" {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "the message is empty").
			WithField("message").WithHint("give the user's message to answer")
	}
	if err := user.Validate(); err != nil {
		return nil, invalid(err)
	}
	t, err := c.trees.tree(ctx, req.GetTreeId())
	if err != nil {
		return nil, err
	}
	path, err := c.trees.store.Path(ctx, t.ID, req.GetNodeId())
	if err != nil {
		return nil, c.trees.storeError(ctx, "reading the path", err)
	}
	// A turn adds two nodes below node_id (three with a tune); refuse one that cannot fit before
	// the model is asked for nothing.
	if depth := len(path) - 1; depth+2 > arbor.MaxDepth {
		return nil, turnError(c.trees.storeError(ctx, "checking the depth", &arbor.LimitError{Problem: fmt.Sprintf(
			"node %s is at depth %d; a turn adds the user's node and the answer under it, past depth %d, the greatest a node may have", req.GetNodeId(), depth, arbor.MaxDepth)}))
	}
	sampling, sent, dropped := Conversation(path, req.GetMessage())
	tokens := req.GetMaxTokens()
	if tokens == 0 {
		tokens = DefaultChatTokens
	}
	sampling.MaxTokens = tokens
	hooteproto.ReportProgress(ctx, 0, 3, "asking the client's model")
	res, err := hooteproto.AskClient(ctx, &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Sampling{Sampling: sampling}})
	if err != nil {
		if ctx.Err() != nil {
			return nil, hooteproto.AsError(ctx.Err())
		}
		return nil, askError(err)
	}
	if te := res.GetError(); te != nil {
		return nil, askError(hooteproto.ErrorFromTool(te))
	}
	answer := res.GetSampling().GetContent().GetText()
	if answer == "" {
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "the client's model answered with no text").
			WithHint("call cone_chat again; if it keeps happening, check the model the client samples")
	}
	if n := utf8.RuneCountInString(answer); n > arbor.MaxTextRunes {
		answer = string([]rune(answer)[:arbor.MaxTextRunes])
	}
	// The tune is kept first (an object before the node that names it); then the turn's nodes
	// are added in one transaction, so that a cancel or a failure from here on leaves the tree
	// as it was, not a user's node without its answer. A tune kept for a turn that then fails
	// stays an artifact of its own, tagged cone.
	turn := []arbor.Content{user, {Role: arbor.RoleAssistant, Text: answer}}
	var artifactID string
	if tune := ExtractABC(answer); tune != "" {
		hooteproto.ReportProgress(ctx, 1, 3, "keeping the tune as an artifact")
		a, err := artifactservice.StoreNew(ctx, c.cas, c.arts, c.log, "arborservice", "the tune", []byte(tune), artifacts.New{
			MimeType: ABCMediaType, Tags: []string{"cone", "abc"}, Creator: hooteproto.CallerFrom(ctx).GetPrincipal(),
		})
		if err != nil {
			return nil, err
		}
		artifactID = a.GetId()
		turn = append(turn, arbor.Content{External: arbor.External{Source: "artifact", Identifier: artifactID}})
	}
	hooteproto.ReportProgress(ctx, 2, 3, "storing the turn")
	nodes, err := c.trees.store.AddChain(ctx, t.ID, req.GetNodeId(), turn...)
	if err != nil {
		return nil, turnError(c.trees.storeError(ctx, "adding the turn", err))
	}
	out := &hootv1.ConeChatResult{
		User: NodeProto(nodes[0]), Assistant: NodeProto(nodes[1]), Model: res.GetSampling().GetModel(),
		NodesSent: uint32(sent), NodesDropped: uint32(dropped),
	}
	if artifactID != "" {
		out.Attachment, out.ArtifactId = NodeProto(nodes[2]), artifactID
	}
	hooteproto.ReportProgress(ctx, 3, 3, "done")
	return out, nil
}

// turnError names node_id, the argument of cone_chat, in an error that arbor's tools give about
// parent_id.
func turnError(err error) error {
	e := hooteproto.AsError(err)
	if e.Field() == "parent_id" {
		return e.WithField("node_id")
	}
	return e
}

// askError says what to do when the client's model could not be asked. A refusal without a
// hint is the client's (most often: it does not sample); asking that client again will not
// help, so it is not retryable.
func askError(err error) error {
	e := hooteproto.AsError(err)
	if e.Hint() == "" {
		return e.WithRetryable(false).WithHint("cone_chat needs a client that supports MCP sampling (its own model answers); use a client that declares the sampling capability, or add turns yourself with tree_add_node")
	}
	return e
}

// Conversation builds the sampling request for the path from the root and the user's new
// message: system nodes become the system prompt, user and assistant (and tool) nodes the
// messages, external nodes a short user line naming the handle. The system prompts are always
// kept; of the rest the newest are kept, at most MaxChatNodes nodes and MaxChatRunes
// characters in all. It returns how many nodes of the path were sent and left out.
func Conversation(path []arbor.Node, message string) (req *hootv1.SamplingRequest, sent, dropped int) {
	var system []string
	var turns []arbor.Node
	budget := MaxChatRunes - utf8.RuneCountInString(message)
	for _, n := range path {
		if !n.Content.IsExternal() && n.Content.Role == arbor.RoleSystem {
			system = append(system, n.Content.Text)
			budget -= utf8.RuneCountInString(n.Content.Text)
			sent++
			continue
		}
		turns = append(turns, n)
	}
	keep := len(turns)
	for i := len(turns) - 1; i >= 0; i-- {
		size := utf8.RuneCountInString(line(turns[i]))
		if sent+len(turns)-i > MaxChatNodes || size > budget {
			break
		}
		budget -= size
		keep = i
	}
	dropped = keep
	req = &hootv1.SamplingRequest{SystemPrompt: strings.Join(system, "\n\n")}
	for _, n := range turns[keep:] {
		role := hootv1.Role_ROLE_USER
		if !n.Content.IsExternal() && n.Content.Role == arbor.RoleAssistant {
			role = hootv1.Role_ROLE_ASSISTANT
		}
		req.Messages = append(req.Messages, &hootv1.SamplingMessage{Role: role, Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: line(n)}}})
		sent++
	}
	req.Messages = append(req.Messages, &hootv1.SamplingMessage{Role: hootv1.Role_ROLE_USER, Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: message}}})
	return req, sent, dropped
}

// line is a node's text as the model sees it.
func line(n arbor.Node) string {
	switch {
	case n.Content.IsExternal():
		return fmt.Sprintf("(attached: %s)", n.Content.External)
	case n.Content.Role == arbor.RoleTool:
		return "Tool result: " + n.Content.Text
	}
	return n.Content.Text
}

var (
	fence    = regexp.MustCompile("(?s)```[ \\t]*(?:abc)?[ \\t]*\\r?\\n(.*?)```")
	abcStart = regexp.MustCompile(`(?m)^X:[ \t]*\d+[ \t]*\r?$`)
	abcKey   = regexp.MustCompile(`(?m)^K:`)
)

// ExtractABC returns the first ABC tune in a model's answer: a fenced block holding an X: and
// a K: header line, or else the lines from an X: header line to the first blank line after a
// K: line. It returns "" when the answer holds no tune.
func ExtractABC(answer string) string {
	for _, m := range fence.FindAllStringSubmatch(answer, -1) {
		if abcStart.MatchString(m[1]) && abcKey.MatchString(m[1]) {
			return strings.TrimSpace(m[1]) + "\n"
		}
	}
	loc := abcStart.FindStringIndex(answer)
	if loc == nil {
		return ""
	}
	rest := answer[loc[0]:]
	k := abcKey.FindStringIndex(rest)
	if k == nil {
		return ""
	}
	end := len(rest)
	if i := strings.Index(rest[k[0]:], "\n\n"); i >= 0 {
		end = k[0] + i
	}
	tune := strings.TrimSpace(strings.TrimSuffix(rest[:end], "```"))
	return tune + "\n"
}
