package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
)

// The 2026-07-28 era's confirmer. That era forbids requests of the server to the client: a
// server that needs a person's answer returns a result of resultType "input_required" with the
// questions (inputRequests) and an opaque requestState, and the client calls again with the
// same params plus the answers (inputResponses) and the state. Nothing is kept between the two
// calls but a signed state: the retry may reach another gateway of the fleet, which checks the
// state with the key they share (Config.StateKey) and needs nothing else.

// confirmStateTTL is how long a person has to answer a question of the modern era: the state
// of the question expires then, and the call must be made anew.
const confirmStateTTL = 5 * time.Minute

// maxUsedStates bounds the states a server remembers as used, to refuse their replay. Each
// is remembered until it expires; a server that has this many unexpired ones refuses to take
// another answer until some expire (closed rather than open: forgetting one would let it be
// replayed).
const maxUsedStates = 10_000

// minStateKeyBytes is the shortest key Config.StateKey may be.
const minStateKeyBytes = 16

// stateVersion starts every requestState this server mints, so that a later format can be
// told apart; stateDomain separates its MAC from any other use of the key.
const (
	stateVersion = "c1"
	stateDomain  = "hootenanny/holler confirm state " + stateVersion + "\n"
)

// confirmKeyPrefix starts the key of the confirmation question in inputRequests; the
// question's id follows it.
const confirmKeyPrefix = "confirm-"

// The JSON-RPC members of the modern era's input round trip.
const (
	resultTypeInputRequired = "input_required"
	paramInputResponses     = "inputResponses"
	paramRequestState       = "requestState"
)

// A stateSigner mints and checks the requestState of confirmation questions, and remembers
// the states that have been answered so that none is answered twice at this server.
type stateSigner struct {
	key []byte
	ttl time.Duration
	// now is the clock; tests replace it.
	now func() time.Time

	mu   sync.Mutex
	used map[string]time.Time // question id -> the expiry of its state
	max  int
}

// newStateSigner returns a signer with key, or with a random key of its own when key is empty.
func newStateSigner(key []byte) (*stateSigner, error) {
	switch {
	case len(key) == 0:
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
	case len(key) < minStateKeyBytes:
		return nil, errors.New("mcp: the state key is too short: it needs at least 16 bytes (32 random bytes are best)")
	}
	return &stateSigner{key: append([]byte(nil), key...), ttl: confirmStateTTL, now: time.Now,
		used: make(map[string]time.Time), max: maxUsedStates}, nil
}

// confirmState is what a requestState carries: the question, the call it is about, and when
// it expires.
type confirmState struct {
	Method   string `json:"m"`
	Tool     string `json:"t"`
	Args     string `json:"a"` // argumentsDigest of the call
	Question string `json:"q"`
	Expires  int64  `json:"e"` // Unix milliseconds
}

// argumentsDigest returns a digest of a call's decoded arguments that does not depend on how
// the client spelled them (member order, spaces, defaults written out or left out).
func argumentsDigest(req proto.Message) string {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// mint returns a new question id and the signed state of a question about the call of tool
// with arguments digest args.
func (g *stateSigner) mint(tool, args string) (question, state string) {
	id := make([]byte, 12)
	_, _ = rand.Read(id) // crypto/rand does not fail
	question = hex.EncodeToString(id)
	payload, _ := json.Marshal(confirmState{Method: methodToolsCall, Tool: tool, Args: args, Question: question,
		Expires: g.now().Add(g.ttl).UnixMilli()})
	body := stateVersion + "." + base64.RawURLEncoding.EncodeToString(payload)
	return question, body + "." + base64.RawURLEncoding.EncodeToString(g.mac(body))
}

func (g *stateSigner) mac(body string) []byte {
	m := hmac.New(sha256.New, g.key)
	m.Write([]byte(stateDomain))
	m.Write([]byte(body))
	return m.Sum(nil)
}

// A stateError is a requestState this server will not take; the text says why.
type stateError struct {
	why string
	// hint, when set, replaces the usual advice (ask again without the state).
	hint string
}

func (e *stateError) Error() string { return e.why }

// open checks state, minted for a call of tool with arguments digest args, and returns what
// it says. It does not mark it used: see [stateSigner.use].
func (g *stateSigner) open(state, tool, args string) (confirmState, error) {
	var st confirmState
	version, rest, _ := strings.Cut(state, ".")
	payload, sigText, ok := strings.Cut(rest, ".")
	mac, err := base64.RawURLEncoding.DecodeString(sigText)
	if version != stateVersion || !ok || err != nil || !hmac.Equal(mac, g.mac(version+"."+payload)) {
		return st, &stateError{why: "the requestState was not signed by this server's key: it was altered, or minted by a server " +
			"that does not share this one's --state-key"}
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || json.Unmarshal(raw, &st) != nil || st.Question == "" {
		return st, &stateError{why: "the requestState is signed but unreadable"}
	}
	switch {
	case st.Method != methodToolsCall || st.Tool != tool:
		return st, &stateError{why: "the requestState was minted for a call of another tool (" + quote(st.Tool) + "), not of " + quote(tool)}
	case st.Args != args:
		return st, &stateError{why: "the requestState was minted for a call of " + quote(tool) + " with other arguments"}
	case !g.now().Before(time.UnixMilli(st.Expires)):
		return st, &stateError{why: "the requestState expired: a question is answered within " + g.ttl.String() + " of the call that asked it"}
	}
	return st, nil
}

// use marks the state of question, which expires at exp, as answered, and fails if it was
// answered before at this server, or if this server remembers too many answered states.
func (g *stateSigner) use(question string, exp time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	if _, seen := g.used[question]; seen {
		return &stateError{why: "the requestState was answered before: each question is answered once"}
	}
	if len(g.used) >= g.max {
		soonest := now.Add(g.ttl)
		for q, e := range g.used {
			if !now.Before(e) {
				delete(g.used, q)
			} else if e.Before(soonest) {
				soonest = e
			}
		}
		if len(g.used) >= g.max {
			wait := soonest.Sub(now).Round(time.Second) + time.Second
			return &stateError{why: "this server has taken too many accepted answers in the last " + g.ttl.String() + " to remember another",
				hint: "Send the same retry again in " + wait.String() + ", when the oldest answer it remembers has expired; the requestState stays valid until then."}
		}
	}
	g.used[question] = exp
	return nil
}

// An inputRequired is the answer of a call whose confirmation must be asked in an
// input_required result: the confirmer returns it as its error, and callTool answers with it.
type inputRequired struct {
	result inputRequiredResult
}

func (e *inputRequired) Error() string { return "the call waits for a person's answer" }

// inputRequiredResult is the result of resultType "input_required".
type inputRequiredResult struct {
	ResultType    string                  `json:"resultType"`
	InputRequests map[string]inputRequest `json:"inputRequests"`
	RequestState  string                  `json:"requestState"`
}

// An inputRequest is one request of the server to the client carried in a result.
type inputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

// A modernConfirmer asks a person through an input_required result: the first call gets the
// question, and the retry that carries the answer and the state gets the answer.
type modernConfirmer struct {
	signer *stateSigner
	params json.RawMessage // the tools/call's params
}

var _ confirmer = modernConfirmer{}

// A malformedAnswer is an inputResponses that cannot be read; callTool answers -32602.
type malformedAnswer struct{ why string }

func (e *malformedAnswer) Error() string { return e.why }

func (c modernConfirmer) confirm(_ context.Context, q confirmQuestion) (answer, error) {
	var p struct {
		State     *string                    `json:"requestState"`
		Responses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(c.params, &p); err != nil {
		return answerDeclined, &malformedAnswer{"params.requestState must be a string and params.inputResponses an object"}
	}
	args := argumentsDigest(q.req)
	if p.State == nil {
		// A first call, or a retry without the state: ask.
		return answerDeclined, c.ask(q, args)
	}
	st, err := c.signer.open(*p.State, q.tool.Name, args)
	if err != nil {
		return answerDeclined, err
	}
	raw, ok := p.Responses[confirmKeyPrefix+st.Question]
	if !ok || kindOf(raw) == "null" {
		// The question went unanswered: ask it again, as MCP asks of a server, rather than fail.
		return answerDeclined, c.ask(q, args)
	}
	var r struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if kindOf(raw) != "object" || json.Unmarshal(raw, &r) != nil {
		return answerDeclined, &malformedAnswer{"params.inputResponses." + confirmKeyPrefix + st.Question + " must be an elicitation result: an object with action and content"}
	}
	switch r.Action {
	case "accept", "decline", "cancel":
	default:
		return answerDeclined, &malformedAnswer{"params.inputResponses." + confirmKeyPrefix + st.Question + " has the unknown action " + quote(r.Action) + "; want accept, decline or cancel"}
	}
	switch {
	case r.Action == "accept" && r.Content[confirmField] == true:
		// Only an accepted answer is remembered, so that it runs the call once: replaying a
		// refusal only refuses again, and remembering refusals would let anyone who declines
		// fill the set that accepted answers need.
		if err := c.signer.use(st.Question, time.UnixMilli(st.Expires)); err != nil {
			return answerDeclined, err
		}
		return answerAccepted, nil
	case r.Action == "accept":
		return answerAcceptedUnticked, nil
	case r.Action == "cancel":
		return answerCancelled, nil
	}
	return answerDeclined, nil
}

// ask returns the input_required answer that puts q to the person.
func (c modernConfirmer) ask(q confirmQuestion, args string) error {
	question, state := c.signer.mint(q.tool.Name, args)
	return &inputRequired{result: inputRequiredResult{
		ResultType: resultTypeInputRequired,
		InputRequests: map[string]inputRequest{confirmKeyPrefix + question: {
			Method: methodElicit,
			Params: struct {
				Mode            string         `json:"mode"`
				Message         string         `json:"message"`
				RequestedSchema map[string]any `json:"requestedSchema"`
			}{"form", q.message(), q.requestedSchema()},
		}},
		RequestState: state,
	}}
}
