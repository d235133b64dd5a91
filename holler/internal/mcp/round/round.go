// Package round is one request of the 2026-07-28 era that asks the client something (a
// multi round-trip request): the questions a worker's handler asks and the gateway's own
// confirmation, put to the client in one input_required result with a signed requestState,
// and the answers its retry brings.
package round

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
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
// handler asks that has no answer yet is collected by the request's Round; when the run
// ends, whatever the handler returned, the client gets all of them in one input_required result,
// with a requestState that carries (signed) the answers gathered so far and what was asked. The
// client calls again with the answers; the call runs again from the start, on any worker, behind
// any gateway that shares the state key, and this time AskClient answers at once the questions
// the state and the inputResponses answer. The round that asks nothing new is the last: its
// result goes to the client. The gateway's own confirmation of a risky call (Confirmer) asks
// in the same round and state.

// askAwaited is the message a handler's question gets while its answer is awaited.
const askAwaited = "the client's answer is awaited: the call ends here, the client is asked, and the call runs again with the answer"

// A Round is one modern request's questions and answers: what the retry brought (the
// state and inputResponses) and what this run asks.
type Round struct {
	signer       *reqstate.Signer
	method, name string
	caller       string        // the principal of the request's caller, which its states are bound to
	req          proto.Message // the decoded arguments
	args         string        // reqstate.ArgumentsDigest of req, made when first needed
	canAnswer    func(method string) bool
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
	// filled are the arguments a person supplied, carried into the next state.
	filled json.RawMessage
	closed bool
}

// Open reads the retry members of params for a request of method about name (a tool's,
// prompt's or resource's name) with the decoded arguments req, sent by caller (the principal
// its states are bound to), whose client can answer the questions of the methods canAnswer
// reports. The error is a *questions.Malformed or a *reqstate.Error.
func Open(signer *reqstate.Signer, method, name, caller string, req proto.Message, canAnswer func(method string) bool, params json.RawMessage) (*Round, error) {
	in, err := questions.ReadRetry(params)
	if err != nil {
		return nil, err
	}
	r := &Round{signer: signer, method: method, name: name, caller: caller, req: req, canAnswer: canAnswer,
		hasState: in.HasState, rawState: in.State, responses: in.Responses}
	if in.HasState {
		if r.state, err = signer.Open(in.State, method, name, r.argsDigest(), r.caller); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Method and Name are the request's method and what it is about.
func (r *Round) Method() string { return r.method }

// Name is the name of the tool, prompt or resource the request is about.
func (r *Round) Name() string { return r.name }

// Filled returns the arguments a person supplied in an earlier round, as the state carries
// them; nil when none.
func (r *Round) Filled() json.RawMessage { return r.state.Filled }

// SetFilled records the arguments a person supplied, so that the later rounds of the call run
// with them.
func (r *Round) SetFilled(b json.RawMessage) { r.filled = b }

// argsDigest returns the digest of the request's arguments, which a state is bound to. Most
// calls ask nothing and never need it.
func (r *Round) argsDigest() string {
	if r.args == "" {
		r.args = reqstate.ArgumentsDigest(r.req)
	}
	return r.args
}

// Ask is the ClientAsker of the request's calls: it answers from the state and the
// inputResponses, or records the question and tells the handler that the answer is awaited.
func (r *Round) Ask(_ context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
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
	if r.canAnswer == nil || !r.canAnswer(q.Method) {
		capName, capValue := questions.Capability(q.Method)
		if r.missing == nil {
			r.missing = make(map[string]any)
		}
		r.missing[capName] = capValue
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "the client cannot be asked "+q.Method+": this request's clientCapabilities (params._meta."+
			MetaClientCapabilities+") do not declare "+wording.Quote(capName))
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
func (r *Round) answerFor(key, digest string) json.RawMessage {
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
func (r *Round) result(prefix, confirm string, confirmReq questions.Request) (questions.InputRequired, error) {
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

// MetaClientCapabilities is the _meta member of a 2026-07-28 request that declares what its
// client can do.
const MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"

// An Ending is what a request answers instead of its call's own result once its round ends.
type Ending struct {
	// Malformed is the first answer of the wrong shape (-32602).
	Malformed *questions.Malformed
	// Asks is the input_required result of the questions pending, when Pending; Err the
	// failure to make it (a state too large).
	Pending bool
	Asks    questions.InputRequired
	Err     error
	// Missing are the capabilities of the questions the client cannot answer, when the call
	// failed after asking them (-32021).
	Missing map[string]any
}

// End closes the round once the call has ended, failed or not, and returns what the request
// answers instead of the call's own result; the zero Ending to answer with the call's result.
// A question asked after End is not put to the client.
func (r *Round) End(failed bool) Ending {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	switch {
	case r.bad != nil:
		return Ending{Malformed: r.bad}
	case len(r.pending) > 0:
		res, err := r.result("", "", questions.Request{})
		return Ending{Pending: true, Asks: res, Err: err}
	case failed && len(r.missing) > 0:
		return Ending{Missing: r.missing}
	}
	return Ending{}
}

// An InputRequired is the answer of a call whose confirmation must be asked in an
// input_required result: the Confirmer returns it as its error, and the call answers with it.
type InputRequired struct {
	Result questions.InputRequired
}

func (e *InputRequired) Error() string { return "the call waits for a person's answer" }

// A Confirmer asks a person through an input_required result: the first call gets the
// question, and the retry that carries the answer and the state gets the answer. It keeps what
// it learns in the request's round, so that the state of a later round of the same call (the
// handler's own questions) remembers that the call was confirmed.
type Confirmer struct {
	Round *Round
}

var _ consent.Confirmer = (*Confirmer)(nil)

// Confirm asks q in the round, or reads the answer its retry brought.
func (c *Confirmer) Confirm(ctx context.Context, q consent.Question) (consent.Answer, map[string]json.RawMessage, error) {
	r := c.Round
	if r == nil {
		return consent.Declined, nil, errors.New("the call has no input round to ask in")
	}
	if r.state.Confirmed != "" && q.Confirm && len(q.Fill) == 0 {
		// A state of a later round of a call that was confirmed: signed, and bound to this
		// tool and these arguments. Each such state runs the call once at this server, as the
		// accepted answer itself does: a replayed retry does not run it again.
		sum := sha256.Sum256([]byte(r.rawState))
		if err := r.signer.Use(ctx, "round-"+hex.EncodeToString(sum[:12]), time.UnixMilli(r.state.Expires)); err != nil {
			return consent.Declined, nil, err
		}
		r.confirmed = r.state.Confirmed
		return consent.Accepted, nil, nil
	}
	if r.state.Question == "" {
		// A first call, or a retry without the state: ask.
		return consent.Declined, nil, c.ask(q)
	}
	key := q.KeyPrefix() + r.state.Question
	raw, ok := r.responses[key]
	if !ok || rawjson.Kind(raw) == "null" {
		// The question went unanswered: ask it again, as MCP asks of a server, rather than fail.
		return consent.Declined, nil, c.ask(q)
	}
	var a struct {
		Action  string                     `json:"action"`
		Content map[string]json.RawMessage `json:"content"`
	}
	field := "params." + questions.ParamInputResponses + "." + key
	if rawjson.Kind(raw) != "object" || json.Unmarshal(raw, &a) != nil {
		return consent.Declined, nil, &questions.Malformed{Why: field + " must be an elicitation result: an object with action and content", Field: field}
	}
	switch a.Action {
	case "accept", "decline", "cancel":
	default:
		return consent.Declined, nil, &questions.Malformed{Why: field + " has the unknown action " + wording.Quote(a.Action) + "; want accept, decline or cancel", Field: field}
	}
	switch {
	case a.Action == "accept" && q.Confirm && q.Accepted(a.Content) == consent.Accepted:
		// Only an accepted answer is remembered, so that it runs the call once: replaying a
		// refusal only refuses again, and remembering refusals would let anyone who declines
		// fill the set that accepted answers need.
		if err := r.signer.Use(ctx, r.state.Question, time.UnixMilli(r.state.Expires)); err != nil {
			return consent.Declined, nil, err
		}
		r.confirmed = r.state.Question
		return consent.Accepted, a.Content, nil
	case a.Action == "accept":
		// Arguments alone need no memory of their answer: a replay runs the call with the
		// arguments a client could pass itself.
		return q.Accepted(a.Content), a.Content, nil
	case a.Action == "cancel":
		return consent.Cancelled, nil, nil
	}
	return consent.Declined, nil, nil
}

// ask returns the input_required answer that puts q to the person.
func (c *Confirmer) ask(q consent.Question) error {
	id := reqstate.NewQuestionID()
	res, err := c.Round.result(q.KeyPrefix(), id, questions.Request{
		Method: questions.MethodElicit,
		Params: questions.Elicit{Mode: "form", Message: q.Message(), RequestedSchema: q.RequestedSchema()},
	})
	if err != nil {
		return err
	}
	return &InputRequired{Result: res}
}
