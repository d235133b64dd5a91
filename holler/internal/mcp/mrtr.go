package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
)

// A worker's questions to the client in the 2026-07-28 era (multi round-trip requests).
//
// The era has no requests of a server to its client, so a handler's AskClient cannot wait for
// an answer. The call is re-executed instead: the first run asks, and every question the
// handler asks that has no answer yet is collected by the request's inputRound; when the run
// ends, whatever the handler returned, the client gets all of them in one input_required result,
// with a requestState that carries (signed) the answers gathered so far and what was asked. The
// client calls again with the answers; the call runs again from the start, on any worker, behind
// any gateway that shares the state key, and this time AskClient answers at once the questions
// the state and the inputResponses answer. The round that asks nothing new is the last: its
// result goes to the client. The gateway's own confirmation of a risky call (inputreq.go) asks
// in the same round and state.

// codeMissingCapability is MCP 2026-07-28's MissingRequiredClientCapability: the request needs a
// capability the client did not declare in it.
const codeMissingCapability = -32021

// askAwaited is the message a handler's question gets while its answer is awaited.
const askAwaited = "the client's answer is awaited: the call ends here, the client is asked, and the call runs again with the answer"

// An inputRound is one modern request's questions and answers: what the retry brought (the
// state and inputResponses) and what this run asks.
type inputRound struct {
	signer       *reqstate.Signer
	method, name string
	caller       string        // the principal of the request's caller, which its states are bound to
	req          proto.Message // the decoded arguments
	args         string        // reqstate.ArgumentsDigest of req, made when first needed
	caps         clientCapabilities
	state        reqstate.State // zero on a first call
	rawState     string         // the requestState as the client sent it
	hasState     bool
	responses    map[string]json.RawMessage

	mu       sync.Mutex
	seq      int                          // numbers questions that come without a key
	pending  map[string]questions.Request // the questions this run asked without an answer
	digests  map[string]string            // questionDigest of each question asked, by key
	gathered map[string]reqstate.Answer   // the answers this run used, for the next state
	missing  map[string]any               // the capabilities of questions the client cannot answer
	bad      *questions.Malformed         // the first answer of the wrong shape
	// confirmed is the id of the accepted confirmation of the call, carried into the next state.
	confirmed string
	// filled are the arguments a person supplied (askargs.go), carried into the next state.
	filled json.RawMessage
	closed bool
}

// openRound reads the retry members of params for a request of method about name (a tool's,
// prompt's or resource's name) with the decoded arguments req, of a client that declared caps,
// sent by the caller of ctx. The error is a *questions.Malformed or a *reqstate.Error.
func (s *Server) openRound(ctx context.Context, method, name string, req proto.Message, caps clientCapabilities, params json.RawMessage) (*inputRound, error) {
	in, err := questions.ReadRetry(params)
	if err != nil {
		return nil, err
	}
	r := &inputRound{signer: s.states, method: method, name: name, caller: principalOf(ctx), req: req, caps: caps,
		hasState: in.HasState, rawState: in.State, responses: in.Responses}
	if in.HasState {
		if r.state, err = s.states.Open(in.State, method, name, r.argsDigest(), r.caller); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// argsDigest returns the digest of the request's arguments, which a state is bound to. Most
// calls ask nothing and never need it.
func (r *inputRound) argsDigest() string {
	if r.args == "" {
		r.args = reqstate.ArgumentsDigest(r.req)
	}
	return r.args
}

// ask is the ClientAsker of the request's calls: it answers from the state and the
// inputResponses, or records the question and tells the handler that the answer is awaited.
func (r *inputRound) ask(_ context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
	q, ok := questions.Of(req)
	if !ok {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "the request for the client is empty")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, hooteproto.NewError(hooteproto.CodeCanceled, "the request has been answered: a question asked after the handler returned is not put to the client")
	}
	key := req.GetKey()
	if key == "" {
		r.seq++
		key = "ask-" + strconv.Itoa(r.seq)
	} else if !hooteproto.ValidAskKey(key) {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "the question's key "+wording.Quote(key)+" is not a valid key")
	}
	if !r.caps.canAnswer(q.Method) {
		capName, capValue := questions.Capability(q.Method)
		if r.missing == nil {
			r.missing = make(map[string]any)
		}
		r.missing[capName] = capValue
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "the client cannot be asked "+q.Method+": this request's clientCapabilities (params._meta."+
			metaClientCapabilities+") do not declare "+wording.Quote(capName))
	}
	digest := questions.Digest(q)
	if d, asked := r.digests[key]; asked && d != digest {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "the call asked two different questions under the key "+wording.Quote(key)+": each question needs its own key")
	}
	if r.digests == nil {
		r.digests = make(map[string]string)
	}
	r.digests[key] = digest

	raw := r.answerFor(key, digest)
	if raw == nil {
		if len(r.pending) >= questions.MaxResponses {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "the call asked over "+strconv.Itoa(questions.MaxResponses)+" questions in one round")
		}
		if r.pending == nil {
			r.pending = make(map[string]questions.Request)
		}
		r.pending[key] = q
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable, askAwaited)
	}
	res, err := questions.Decode(q.Method, raw)
	if err != nil {
		field := "params." + questions.ParamInputResponses + "." + key
		if r.bad == nil {
			r.bad = &questions.Malformed{Why: field + " " + hooteproto.AsError(err).Message(), Field: field}
		}
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "the client's answer to "+wording.Quote(key)+" is malformed")
	}
	if r.gathered == nil {
		r.gathered = make(map[string]reqstate.Answer)
	}
	r.gathered[key] = reqstate.Answer{Question: digest, Answer: rawjson.Compact(raw)}
	return res, nil
}

// answerFor returns the client's answer to the question key whose digest is digest: from the
// state, or from inputResponses when the last round asked this question (or, without a state,
// when the client answers it at once); nil when there is none. A null answer is none.
func (r *inputRound) answerFor(key, digest string) json.RawMessage {
	if a, ok := r.state.Answers[key]; ok && a.Question == digest {
		return a.Answer
	}
	raw, ok := r.responses[key]
	if !ok || rawjson.Kind(raw) == "null" {
		return nil
	}
	if r.hasState {
		if asked, ok := r.state.Asked[key]; !ok || asked != digest {
			return nil // an answer to another question, or to one never asked: ask anew
		}
	}
	return raw
}

// result returns the input_required result of this round: the handler's pending questions,
// and the gateway's own question confirm (when not empty) with its request under the key
// prefix+confirm, under a new state.
func (r *inputRound) result(prefix, confirm string, confirmReq questions.Request) (questions.InputRequired, error) {
	st := reqstate.State{Method: r.method, Name: r.name, Args: r.argsDigest(), Caller: r.caller, Question: confirm, Confirmed: r.confirmed, Filled: r.filled}
	requests := make(map[string]questions.Request, len(r.pending)+1)
	for k, q := range r.pending {
		requests[k] = q
		if st.Asked == nil {
			st.Asked = make(map[string]string, len(r.pending))
		}
		st.Asked[k] = r.digests[k]
	}
	if confirm != "" {
		requests[prefix+confirm] = confirmReq
	}
	// The answers of earlier rounds stay, unless this run asked the same key anew; the answers
	// this run used join them.
	for k, a := range r.state.Answers {
		if _, again := r.digests[k]; !again {
			if st.Answers == nil {
				st.Answers = make(map[string]reqstate.Answer)
			}
			st.Answers[k] = a
		}
	}
	for k, a := range r.gathered {
		if st.Answers == nil {
			st.Answers = make(map[string]reqstate.Answer)
		}
		st.Answers[k] = a
	}
	state, err := r.signer.Seal(st)
	if err != nil {
		return questions.InputRequired{}, err
	}
	return questions.InputRequired{ResultType: questions.ResultTypeInputRequired, InputRequests: requests, RequestState: state}, nil
}

// end closes the round once the call has ended, failed or not, and returns what the request
// answers instead of the call's own result: -32602 for a malformed answer, the input_required
// result when questions are pending, -32021 when the call failed after asking what the client
// cannot answer; nil to answer with the call's result.
func (s *Server) endRound(id json.RawMessage, r *inputRound, failed bool) *jsonrpc.Response {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	switch {
	case r.bad != nil:
		return s.roundFailure(id, r.method, r.name, r.bad)
	case len(r.pending) > 0:
		res, err := r.result("", "", questions.Request{})
		if err != nil {
			return s.fail(id, jsonrpc.CodeInvalidParams, "invalid params: "+err.Error(), &guidance.Data{
				Hint:  "Answer with less: the answers are carried back to the client in requestState, which is bounded to " + strconv.Itoa(reqstate.MaxBytes) + " bytes.",
				Field: "params." + questions.ParamInputResponses,
			})
		}
		keys := make([]string, 0, len(res.InputRequests))
		for k := range res.InputRequests {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		s.log.Info("mcp: request waits for the client's answers", "method", r.method, "name", r.name, "questions", strings.Join(keys, ","))
		return jsonrpc.NewResult(id, res)
	case failed && len(r.missing) > 0:
		return s.missingCapability(id, r.method, r.name, r.missing)
	}
	return nil
}

// missingCapability answers -32021: the request needed capabilities the client did not declare.
// error.data carries requiredCapabilities even when guidance is off, as the protocol asks.
func (s *Server) missingCapability(id json.RawMessage, method, name string, missing map[string]any) *jsonrpc.Response {
	names := make([]string, 0, len(missing))
	for k := range missing {
		names = append(names, k)
	}
	sort.Strings(names)
	text := "missing required client capability: " + wording.Quote(name) + " needs the client to declare " + strings.Join(names, ", ") +
		" in params._meta." + metaClientCapabilities
	g := &guidance.Data{
		Hint: "Declare " + strings.Join(names, " and ") + " in params._meta." + metaClientCapabilities + " of the " + method +
			" (only if the client can answer such questions), and call again; requiredCapabilities shows what to add.",
		Field:                "params._meta." + metaClientCapabilities,
		RequiredCapabilities: missing,
	}
	if method == methodToolsCall {
		g.Tool = name
	}
	if s.cfg.MinimalErrors {
		return jsonrpc.NewError(id, codeMissingCapability, text, &guidance.Data{RequiredCapabilities: missing})
	}
	return jsonrpc.NewError(id, codeMissingCapability, text, g)
}

// roundFailure answers a retry whose requestState or inputResponses this server will not take
// (a *reqstate.Error or a *questions.Malformed); it returns nil for any other error.
func (s *Server) roundFailure(id json.RawMessage, method, name string, err error) *jsonrpc.Response {
	what := wording.Quote(name)
	again := "Call " + name + " again"
	if method != methodToolsCall {
		what = method + " of " + wording.Quote(name)
		again = "Send the " + method + " of " + wording.Quote(name) + " again"
	}
	var se *reqstate.Error
	var ma *questions.Malformed
	switch {
	case errors.As(err, &se):
		s.log.Info("mcp: requestState refused", "method", method, "name", name, "why", se.Why)
		hint := se.Hint
		if hint == "" {
			hint = again + " without requestState and inputResponses: the questions are asked again, " +
				"and the retry carries the new requestState unchanged, to this server or to one that shares its --state-key."
		}
		g := &guidance.Data{Hint: hint, Field: "params." + questions.ParamRequestState}
		if method == methodToolsCall {
			g.Tool = name
		}
		return s.fail(id, jsonrpc.CodeInvalidParams, "invalid params: "+se.Why+"; "+what+" did not run", g)
	case errors.As(err, &ma):
		g := &guidance.Data{
			Hint: "Answer each question of inputRequests under its key with the result of its method: elicitation/create " +
				`{"action":"accept","content":{...}}, sampling/createMessage {"role":"assistant","content":{"type":"text","text":"..."},"model":"..."}, ` +
				`roots/list {"roots":[{"uri":"file:///..."}]}; or ` + strings.ToLower(again[:1]) + again[1:] + " without requestState and inputResponses to be asked afresh.",
			Field: ma.Field,
		}
		if method == methodToolsCall {
			g.Tool = name
		}
		return s.fail(id, jsonrpc.CodeInvalidParams, "invalid params: "+ma.Why, g)
	}
	return nil
}

// modernStatus is the HTTP status of a modern response that is not streamed: 400 for a missing
// client capability, which the era sends as a client error, and 200 otherwise.
func modernStatus(resp *jsonrpc.Response) int {
	if resp.Error != nil && resp.Error.Code == codeMissingCapability {
		return http.StatusBadRequest
	}
	return http.StatusOK
}
