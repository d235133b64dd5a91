package mcp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
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
	confirm(ctx context.Context, q consent.Question) (consent.Answer, map[string]json.RawMessage, error)
}

// An elicitConfirmer asks with elicitation/create, a request on the stream of the tools/call
// being confirmed.
type elicitConfirmer struct {
	s    *Server
	sess *session
	out  notifier
}

var _ confirmer = elicitConfirmer{}

func (c elicitConfirmer) confirm(ctx context.Context, q consent.Question) (consent.Answer, map[string]json.RawMessage, error) {
	msg, err := c.s.requestClient(ctx, c.sess, c.out, questions.MethodElicit, questions.Elicit{Message: q.Message(), RequestedSchema: q.RequestedSchema()})
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
		return q.Accepted(r.Content), r.Content, nil
	case "decline":
		return consent.Declined, nil, nil
	case "cancel":
		return consent.Cancelled, nil, nil
	}
	return consent.Declined, nil, errors.New("the client answered elicitation/create with the unknown action " + wording.Quote(r.Action))
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
