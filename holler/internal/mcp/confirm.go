package mcp

import (
	"context"
	"encoding/json"

	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/round"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
)

// This file picks how a call is put to a person before it runs, for the policy (package
// consent). The policy only sees the answer; a consent.Confirmer asks: consent.Elicitor asks with
// elicitation/create on the call's own stream, which protocol versions 2025-06-18 and 2025-11-25
// have. The 2026-07-28 era asks through an input_required result instead, with package round's
// Confirmer: another confirmer, not another policy.

// elicitRequester returns the consent.Requester of a call of sess whose stream is out: a
// request to the client on that stream.
func (s *Server) elicitRequester(sess *sessions.Session, out sessions.Notifier) consent.Requester {
	return func(ctx context.Context, method string, params any) (json.RawMessage, json.RawMessage, error) {
		msg, err := s.clientCalls.Ask(ctx, sess, out, method, params)
		if err != nil {
			return nil, nil, err
		}
		return msg.Result, msg.Error, nil
	}
}

// A requestCarrier is a notifier that can tell whether a request of the server reaches the
// client on it (an HTTP answer does only as an event stream).
type requestCarrier interface {
	CarriesRequests() bool
}

// confirmerFor returns how a person can be asked during a call of sess whose stream is out, or
// nil and the reason, as the end of a sentence, why they cannot.
func (s *Server) confirmerFor(sess *sessions.Session, out sessions.Notifier) (consent.Confirmer, string) {
	v := sess.ProtocolVersion()
	switch rc, ok := out.(requestCarrier); {
	case sess.Modern && !sess.Caps().ElicitForm:
		return nil, "this request's clientCapabilities (params._meta." + era.MetaClientCapabilities + ") declare no elicitation in form mode, so nobody can be asked"
	case sess.Modern:
		// callTool gives it the request's round once the arguments are decoded.
		return &round.Confirmer{}, ""
	case v < era.V20250618:
		return nil, "this session speaks protocol " + v + ", which has no elicitation to ask a person with"
	case !sess.Caps().ElicitForm:
		return nil, "this client did not declare the elicitation capability (form mode) in initialize, so nobody can be asked"
	case !ok || !rc.CarriesRequests():
		return nil, "this request cannot carry a question to the client (over HTTP, its Accept header must include text/event-stream)"
	}
	return consent.Elicitor{Request: s.elicitRequester(sess, out)}, ""
}
