package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// This file puts a call to a person before it runs, for the policy (package consent). The policy
// only sees the answer; a [confirmer] asks: the one here asks with elicitation/create on the call's
// own stream, which protocol versions 2025-06-18 and 2025-11-25 have. The 2026-07-28 era asks
// through an input_required result instead, with the confirmer of inputreq.go: another confirmer,
// not another policy.

// A confirmer puts a question to a person and waits for the answer, with the form's content
// when the person accepted it; an error means that no answer came (ctx ended, or the client
// failed the request).
type confirmer interface {
	confirm(ctx context.Context, q confirmQuestion) (consent.Answer, map[string]json.RawMessage, error)
}

// A confirmQuestion is one call put to a person: the tool and its decoded arguments, and what
// the person is asked: whether the call may run, the arguments they supply (askargs.go), or
// both in one form.
type confirmQuestion struct {
	tool *hootv1hoot.Tool
	// confirm asks whether the call may run; fill are the arguments the person supplies.
	confirm bool
	fill    []hootv1hoot.ElicitField
	// args are the call's arguments that differ from their defaults, each as "name: value",
	// in the order of the request's fields, values shortened.
	args []string
	// req is the decoded arguments, which a question asked across two requests is bound to.
	req proto.Message
}

// maxShownArguments bounds the arguments a question lists; the rest are counted.
const maxShownArguments = 12

// newConfirmQuestion returns the question whether the call of t with req may run.
func newConfirmQuestion(t *hootv1hoot.Tool, req proto.Message) confirmQuestion {
	return confirmQuestion{tool: t, confirm: true, args: argumentLines(req), req: req}
}

// argumentLines returns the fields set in req as "name: value" lines, in field order, with
// each value as compact JSON shortened to a line.
func argumentLines(req proto.Message) []string {
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(req)
	var set map[string]json.RawMessage
	if err != nil || json.Unmarshal(b, &set) != nil {
		return nil
	}
	var lines []string
	fields := req.ProtoReflect().Descriptor().Fields()
	for i := range fields.Len() {
		name := string(fields.Get(i).Name())
		if v, ok := set[name]; ok {
			lines = append(lines, name+": "+wording.Short(string(rawjson.Compact(v))))
		}
	}
	return lines
}

// message is what the person reads: which tool, what it does, why they are asked, and the
// arguments.
func (q confirmQuestion) message() string {
	if !q.confirm {
		return q.fillMessage()
	}
	t := q.tool
	var b strings.Builder
	q.introduce(&b, "Run the tool ", "? ")
	switch {
	case t.Annotations.Destructive && t.Tier >= hootv1.Tier_TIER_ADMIN:
		b.WriteString("It is destructive (it may destroy or overwrite stored data) and an admin tool.")
	case t.Annotations.Destructive:
		b.WriteString("It is destructive: it may destroy or overwrite stored data.")
	default:
		b.WriteString("It is an admin tool: it changes the server itself.")
	}
	b.WriteString("\nArguments: ")
	if len(q.args) == 0 {
		b.WriteString("none (the tool's defaults)")
	} else {
		b.WriteString(q.shownArguments())
	}
	b.WriteString("\nA model asked for this call. Tick confirm and accept to run it once, with these arguments; decline to refuse it.")
	if len(q.fill) > 0 {
		b.WriteString("\n" + q.fillNeeds())
	}
	return b.String()
}

// introduce writes lead, the tool's name and title, then after, and the first paragraph of its
// description: the opening of every question about a call.
func (q confirmQuestion) introduce(b *strings.Builder, lead, after string) {
	b.WriteString(lead + q.tool.Name)
	if q.tool.Title != "" {
		b.WriteString(" (" + q.tool.Title + ")")
	}
	b.WriteString(after)
	if first, _, _ := strings.Cut(q.tool.Description, "\n\n"); first != "" {
		b.WriteString(strings.TrimSpace(first) + " ")
	}
}

// shownArguments lists the call's arguments, at most maxShownArguments of them and a count
// of the rest.
func (q confirmQuestion) shownArguments() string {
	if n := len(q.args); n > maxShownArguments {
		return strings.Join(q.args[:maxShownArguments], ", ") + " and " + strconv.Itoa(n-maxShownArguments) + " more"
	}
	return strings.Join(q.args, ", ")
}

// confirmField is the one field of the confirmation form.
const confirmField = "confirm"

// requestedSchema is the form of the question: one boolean, unticked until the person ticks
// it, so that a client that accepts forms unread does not confirm anything.
func (q confirmQuestion) requestedSchema() map[string]any {
	props, required := q.fillProperties()
	if q.confirm {
		props[confirmField] = map[string]any{
			"type":        "boolean",
			"title":       "Run " + q.tool.Name,
			"description": "Tick to run " + q.tool.Name + " once with the arguments shown.",
			"default":     false,
		}
		required = append(required, confirmField)
	}
	return map[string]any{
		"type":       "object",
		"properties": props,
		"required":   required,
	}
}

// An elicitConfirmer asks with elicitation/create, a request on the stream of the tools/call
// being confirmed.
type elicitConfirmer struct {
	s    *Server
	sess *session
	out  notifier
}

var _ confirmer = elicitConfirmer{}

func (c elicitConfirmer) confirm(ctx context.Context, q confirmQuestion) (consent.Answer, map[string]json.RawMessage, error) {
	msg, err := c.s.requestClient(ctx, c.sess, c.out, questions.MethodElicit, questions.Elicit{Message: q.message(), RequestedSchema: q.requestedSchema()})
	if err != nil {
		return consent.Declined, nil, err
	}
	if msg.Error != nil {
		return consent.Declined, nil, errors.New("the client failed elicitation/create: " + string(msg.Error))
	}
	var r struct {
		Action  string                     `json:"action"`
		Content map[string]json.RawMessage `json:"content"`
	}
	if json.Unmarshal(msg.Result, &r) != nil {
		return consent.Declined, nil, errors.New("the client's answer to elicitation/create is malformed")
	}
	switch r.Action {
	case "accept":
		return q.accepted(r.Content), r.Content, nil
	case "decline":
		return consent.Declined, nil, nil
	case "cancel":
		return consent.Cancelled, nil, nil
	}
	return consent.Declined, nil, errors.New("the client answered elicitation/create with the unknown action " + wording.Quote(r.Action))
}

// accepted returns what an accepted form with content answers q: accepted, unless q asks
// whether the call may run and the confirm box is not ticked.
func (q confirmQuestion) accepted(content map[string]json.RawMessage) consent.Answer {
	if q.confirm && string(rawjson.Compact(content[confirmField])) != "true" {
		return consent.AcceptedUnticked
	}
	return consent.Accepted
}

// A requestCarrier is a notifier that can tell whether a request of the server reaches the
// client on it (an HTTP answer does only as an event stream).
type requestCarrier interface {
	carriesRequests() bool
}

// confirmerFor returns how a person can be asked during a call of sess whose stream is out, or
// nil and the reason, as the end of a sentence, why they cannot.
func (s *Server) confirmerFor(sess *session, out notifier) (confirmer, string) {
	v := sess.protocolVersion()
	switch rc, ok := out.(requestCarrier); {
	case sess.modern && !sess.canElicitForm():
		return nil, "this request's clientCapabilities (params._meta." + metaClientCapabilities + ") declare no elicitation in form mode, so nobody can be asked"
	case sess.modern:
		// callTool gives it the request's round once the arguments are decoded.
		return &modernConfirmer{}, ""
	case v < protocolVersion20250618:
		return nil, "this session speaks protocol " + v + ", which has no elicitation to ask a person with"
	case !sess.canElicitForm():
		return nil, "this client did not declare the elicitation capability (form mode) in initialize, so nobody can be asked"
	case !ok || !rc.carriesRequests():
		return nil, "this request cannot carry a question to the client (over HTTP, its Accept header must include text/event-stream)"
	}
	return elicitConfirmer{s: s, sess: sess, out: out}, ""
}
