package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/arguments"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/round"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
)

// Arguments a person supplies. A tool's request field marked (hoot.v1.field).elicit is one the
// caller may leave out: the gateway then asks the person for it, with a form, before anything
// reaches a worker, exactly where it asks whether a risky call may run (package consent), through
// the same confirmer: elicitation/create on the call's stream up to 2025-11-25, an input_required
// round in 2026-07-28. When both apply, one form asks both. The answers fill the arguments, which
// are then decoded and validated like any caller's, and the call goes on as usual (a job is created
// only now, so a task-required tool answers its CreateTaskResult on the round that brought the
// answers). The generator writes each such field's form property (hootv1hoot.ElicitField); this
// file only puts them together.

// A personCall is the call whose arguments or confirmation a person is asked for.
type personCall struct {
	msg   *jsonrpc.Message
	sess  *sessions.Session
	out   sessions.Notifier
	tool  *hootv1hoot.Tool
	args  json.RawMessage // the arguments as the caller sent them
	round *round.Round    // the 2026-07-28 round of the call, or nil
}

// askPerson puts to a person what the call c, whose decoded arguments are req, needs of them
// before it runs: whether it may run (when d requires confirmation; ask is then the confirmer
// the policy chose) and the elicited arguments the caller left out. It returns the arguments to
// call with (req, or a new message with the person's answers filled in) and the decision, or a
// response when the call ends here: a question (input_required), a refusal, or an answer that
// does not validate.
func (s *Server) askPerson(ctx context.Context, c personCall, d consent.Decision, ask consent.Confirmer, req proto.Message) (proto.Message, consent.Decision, *jsonrpc.Response) {
	t, r := c.tool, c.round
	if r != nil && len(r.Filled()) > 0 {
		// A later round of a call whose arguments a person supplied in an earlier one: the
		// signed state carries them, so they are not asked again.
		var answers map[string]json.RawMessage
		if json.Unmarshal(r.Filled(), &answers) == nil {
			filled, bad := arguments.Fill(t, c.args, answers)
			if bad != nil {
				return nil, d, s.badAnswer(c, bad)
			}
			req = filled
			r.SetFilled(r.Filled())
		}
	}
	missing := arguments.Missing(t, req)
	confirm := d.Confirmation == consent.ConfirmationRequired
	if !confirm && len(missing) == 0 {
		return req, d, nil
	}
	if len(missing) > 0 {
		d.Asked = consent.ElicitNames(missing)
		if ask == nil {
			var cannot string
			if ask, cannot = s.confirmerFor(c.sess, c.out); ask == nil {
				d.Outcome = consent.OutcomeCannotElicit
				return nil, d, s.refuse(c.msg.ID, c.sess, t, d, cannot, nil)
			}
		}
	}
	if mc, ok := ask.(*round.Confirmer); ok {
		mc.Round = r
	}
	q := consent.NewQuestion(t, req)
	q.Confirm, q.Fill = confirm, missing
	// The wait is bounded like a call.
	actx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
	a, content, aerr := ask.Confirm(actx, q)
	d = consent.Answered(d, q.Confirm, a, aerr)
	waited := context.Cause(actx)
	cancel()
	if resp := s.inputAnswer(c.msg.ID, c.sess, t, aerr); resp != nil {
		return nil, d, resp
	}
	if errors.Is(context.Cause(ctx), sessions.ErrCancelledByClient) {
		e := hooteproto.NewError(hooteproto.CodeCanceled, "the call of "+wording.Quote(t.Name)+" was cancelled while a person was asked about it").
			WithHint("The call was cancelled at the client's request.")
		return nil, d, jsonrpc.NewResult(c.msg.ID, toolresult.Failure(t.Name, e))
	}
	if d.Refused() {
		return nil, d, s.refuse(c.msg.ID, c.sess, t, d, "", waited)
	}
	if len(missing) == 0 {
		return req, d, nil
	}
	answers := make(map[string]json.RawMessage, len(missing))
	for _, f := range missing {
		if v, ok := content[f.Name]; ok && rawjson.Kind(v) != "null" {
			answers[f.Name] = rawjson.Compact(v)
		}
	}
	filled, bad := arguments.Fill(t, c.args, answers)
	if bad != nil {
		return nil, d, s.badAnswer(c, bad)
	}
	if left := arguments.Missing(t, filled); len(left) > 0 {
		return nil, d, s.badAnswer(c, &arguments.Error{
			Message:  "the person accepted the form without filling " + strings.Join(consent.ElicitNames(left), ", "),
			Field:    left[0].Name,
			Expected: "a value for each field of the form",
		})
	}
	if r != nil {
		// The later rounds of the call (its handler's questions) run with the same answers.
		b, err := json.Marshal(answers)
		if err == nil {
			r.SetFilled(b)
		}
	}
	return filled, d, nil
}

// badAnswer answers a call whose arguments, filled with a person's answers, do not validate:
// a tool error that says which answer was wrong and how to go on. The request itself was well
// formed, so it is not a JSON-RPC error.
func (s *Server) badAnswer(c personCall, bad *arguments.Error) *jsonrpc.Response {
	t := c.tool
	field := bad.Field
	if field == "" {
		field = strings.Join(consent.ElicitNames(t.Elicit), ", ")
	}
	again := "call " + t.Name + " again, which asks the person anew"
	if c.sess.Modern {
		again += " (without " + questions.ParamRequestState + " and " + questions.ParamInputResponses + ")"
	}
	e := hooteproto.NewError(hooteproto.CodeInvalidArgument, "the person's answer for "+field+" of "+wording.Quote(t.Name)+" is not valid: "+bad.Message+"; it did not run").
		WithHint("Either " + again + ", or pass " + field + " in the arguments yourself; example shows a valid call.")
	g := &guidance.Data{
		Hint:     e.Hint(),
		Tool:     t.Name,
		Field:    bad.Field,
		Expected: bad.Expected,
		Got:      bad.Got,
		Usage:    t.Usage,
		Example:  guidance.ExampleCall(t),
	}
	if s.cfg.MinimalErrors {
		g = &guidance.Data{Hint: e.Hint()}
	}
	s.log.Info("mcp: a person's answer was refused", "tool", t.Name, "session", c.sess.ID(), "field", bad.Field, "why", bad.Message)
	return jsonrpc.NewResult(c.msg.ID, toolresult.Guided(t.Name, e, g))
}

// inputAnswer returns the answer of a call whose confirmer ended with err when that error is an
// answer of its own: the input_required result that asks the question, or the refusal of the
// retry's requestState or inputResponses. It returns nil for any other error.
func (s *Server) inputAnswer(id json.RawMessage, sess *sessions.Session, t *hootv1hoot.Tool, err error) *jsonrpc.Response {
	var ir *round.InputRequired
	if errors.As(err, &ir) {
		s.log.Info("mcp: tool call waits for a person", "tool", t.Name, "session", sess.ID())
		return jsonrpc.NewResult(id, ir.Result)
	}
	if err != nil {
		return s.roundFailure(id, methodToolsCall, t.Name, err)
	}
	return nil
}

// How a call is put to a person before it runs is picked here, for the policy (package
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

// A RequestCarrier is a notifier that can tell whether a request of the server reaches the
// client on it (an HTTP answer does only as an event stream).
type RequestCarrier interface {
	CarriesRequests() bool
}

// confirmerFor returns how a person can be asked during a call of sess whose stream is out, or
// nil and the reason, as the end of a sentence, why they cannot.
func (s *Server) confirmerFor(sess *sessions.Session, out sessions.Notifier) (consent.Confirmer, string) {
	v := sess.ProtocolVersion()
	switch rc, ok := out.(RequestCarrier); {
	case sess.Modern && !sess.Caps().ElicitForm:
		return nil, "this request's clientCapabilities (params._meta." + era.MetaClientCapabilities + ") declare no elicitation in form mode, so nobody can be asked"
	case sess.Modern:
		// CallTool gives it the request's round once the arguments are decoded.
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
