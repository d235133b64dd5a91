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

// The signed requestState of the 2026-07-28 era. That era forbids requests of the server to the
// client: a server that needs an answer returns a result of resultType "input_required" with the
// questions (inputRequests) and an opaque requestState, and the client calls again with the same
// params plus the answers (inputResponses) and the state. Nothing is kept between the two calls
// but the signed state: the retry may reach another gateway of the fleet, which checks the state
// with the key they share (Config.StateKey) and needs nothing else. The questions are the
// gateway's own confirmation of a risky call (this file) and the questions a worker's handler
// asks through AskClient (mrtr.go); one state carries both.

// confirmStateTTL is how long a client has to answer the questions of one round: the state
// expires then, and the call must be made anew.
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
	stateVersion = "s2"
	stateDomain  = "hootenanny/holler request state " + stateVersion + "\n"
)

// maxRequestStateBytes bounds a requestState, taken or minted: it carries the answers of the
// rounds so far, and a client sends it back with every retry.
const maxRequestStateBytes = 64 << 10

// confirmKeyPrefix starts the key of the confirmation question in inputRequests; the
// question's id follows it.
const confirmKeyPrefix = "confirm-"

// A stateSigner mints and checks requestStates, and remembers the confirmation questions that
// have been accepted so that none is accepted twice at this server.
type stateSigner struct {
	key []byte
	ttl time.Duration
	// now is the clock; tests replace it.
	now func() time.Time

	mu   sync.Mutex
	used map[string]time.Time // question id, or "round-" and a later state's digest -> its expiry
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

// roundState is what a requestState carries: the request it belongs to, when it expires, and
// what was asked and answered so far.
type roundState struct {
	Method  string `json:"m"`
	Name    string `json:"t"` // the tool's or prompt's or resource's name
	Args    string `json:"a"` // argumentsDigest of the request
	Expires int64  `json:"e"` // Unix milliseconds
	// Question is the id of the confirmation question the client was asked, awaiting its
	// answer; Confirmed is the id of the confirmation that was accepted.
	Question  string `json:"q,omitempty"`
	Confirmed string `json:"c,omitempty"`
	// Asked are the handler's questions of the last round, by key: each one's questionDigest.
	Asked map[string]string `json:"k,omitempty"`
	// Answers are the answers of the earlier rounds, by key.
	Answers map[string]gatheredAnswer `json:"r,omitempty"`
}

// A gatheredAnswer is the client's answer to one question, kept in the state for the later runs.
type gatheredAnswer struct {
	Question string          `json:"q"` // the questionDigest of the question it answers
	Answer   json.RawMessage `json:"a"` // as the client sent it, compacted
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

// newQuestionID returns a fresh random id of a confirmation question.
func newQuestionID() string {
	id := make([]byte, 12)
	_, _ = rand.Read(id) // crypto/rand does not fail
	return hex.EncodeToString(id)
}

// seal returns st, expiring one TTL from now, as a signed requestState; it fails when the state
// would be longer than maxRequestStateBytes.
func (g *stateSigner) seal(st roundState) (string, error) {
	st.Expires = g.now().Add(g.ttl).UnixMilli()
	payload, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	body := stateVersion + "." + base64.RawURLEncoding.EncodeToString(payload)
	state := body + "." + base64.RawURLEncoding.EncodeToString(g.mac(body))
	if len(state) > maxRequestStateBytes {
		return "", errors.New("the answers gathered so far are too large to carry in a requestState")
	}
	return state, nil
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

// open checks state, minted for a request of method about name with arguments digest args,
// and returns what it says. It does not mark a confirmation used: see [stateSigner.use].
func (g *stateSigner) open(state, method, name, args string) (roundState, error) {
	var st roundState
	if len(state) > maxRequestStateBytes {
		return st, &stateError{why: "the requestState is longer than any this server mints"}
	}
	version, rest, _ := strings.Cut(state, ".")
	payload, sigText, ok := strings.Cut(rest, ".")
	mac, err := base64.RawURLEncoding.DecodeString(sigText)
	if version != stateVersion || !ok || err != nil || !hmac.Equal(mac, g.mac(version+"."+payload)) {
		return st, &stateError{why: "the requestState was not signed by this server's key: it was altered, or minted by a server " +
			"that does not share this one's --state-key"}
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || json.Unmarshal(raw, &st) != nil || st.Method == "" {
		return st, &stateError{why: "the requestState is signed but unreadable"}
	}
	switch {
	case st.Method != method:
		return st, &stateError{why: "the requestState was minted for a " + st.Method + " request, not for " + method}
	case st.Name != name && method == methodToolsCall:
		return st, &stateError{why: "the requestState was minted for a call of another tool (" + quote(st.Name) + "), not of " + quote(name)}
	case st.Name != name:
		return st, &stateError{why: "the requestState was minted for " + quote(st.Name) + ", not for " + quote(name)}
	case st.Args != args:
		return st, &stateError{why: "the requestState was minted for a call of " + quote(name) + " with other arguments"}
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

// A modernConfirmer asks a person through an input_required result: the first call gets the
// question, and the retry that carries the answer and the state gets the answer. It keeps what
// it learns in the request's round, so that the state of a later round of the same call (the
// handler's own questions) remembers that the call was confirmed.
type modernConfirmer struct {
	round *inputRound
}

var _ confirmer = (*modernConfirmer)(nil)

// A malformedAnswer is an inputResponses or requestState that cannot be read; the request is
// answered -32602.
type malformedAnswer struct {
	why string
	// field is the member of params it is about.
	field string
}

func (e *malformedAnswer) Error() string { return e.why }

func (c *modernConfirmer) confirm(_ context.Context, q confirmQuestion) (answer, error) {
	r := c.round
	if r == nil {
		return answerDeclined, errors.New("the call has no input round to ask in")
	}
	if r.state.Confirmed != "" {
		// A state of a later round of a call that was confirmed: signed, and bound to this
		// tool and these arguments. Each such state runs the call once at this server, as the
		// accepted answer itself does: a replayed retry does not run it again.
		sum := sha256.Sum256([]byte(r.rawState))
		if err := r.signer.use("round-"+hex.EncodeToString(sum[:12]), time.UnixMilli(r.state.Expires)); err != nil {
			return answerDeclined, err
		}
		r.confirmed = r.state.Confirmed
		return answerAccepted, nil
	}
	if r.state.Question == "" {
		// A first call, or a retry without the state: ask.
		return answerDeclined, c.ask(q)
	}
	key := confirmKeyPrefix + r.state.Question
	raw, ok := r.responses[key]
	if !ok || kindOf(raw) == "null" {
		// The question went unanswered: ask it again, as MCP asks of a server, rather than fail.
		return answerDeclined, c.ask(q)
	}
	var a struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	field := "params." + paramInputResponses + "." + key
	if kindOf(raw) != "object" || json.Unmarshal(raw, &a) != nil {
		return answerDeclined, &malformedAnswer{why: field + " must be an elicitation result: an object with action and content", field: field}
	}
	switch a.Action {
	case "accept", "decline", "cancel":
	default:
		return answerDeclined, &malformedAnswer{why: field + " has the unknown action " + quote(a.Action) + "; want accept, decline or cancel", field: field}
	}
	switch {
	case a.Action == "accept" && a.Content[confirmField] == true:
		// Only an accepted answer is remembered, so that it runs the call once: replaying a
		// refusal only refuses again, and remembering refusals would let anyone who declines
		// fill the set that accepted answers need.
		if err := r.signer.use(r.state.Question, time.UnixMilli(r.state.Expires)); err != nil {
			return answerDeclined, err
		}
		r.confirmed = r.state.Question
		return answerAccepted, nil
	case a.Action == "accept":
		return answerAcceptedUnticked, nil
	case a.Action == "cancel":
		return answerCancelled, nil
	}
	return answerDeclined, nil
}

// ask returns the input_required answer that puts q to the person.
func (c *modernConfirmer) ask(q confirmQuestion) error {
	id := newQuestionID()
	res, err := c.round.result(id, inputRequest{
		Method: methodElicit,
		Params: struct {
			Mode            string         `json:"mode"`
			Message         string         `json:"message"`
			RequestedSchema map[string]any `json:"requestedSchema"`
		}{"form", q.message(), q.requestedSchema()},
	})
	if err != nil {
		return err
	}
	return &inputRequired{result: res}
}
