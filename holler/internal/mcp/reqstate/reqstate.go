// Package reqstate holds what the gateway signs with its state key (Config.StateKey): the
// requestState of the 2026-07-28 era and the ids of tasks.
//
// That era forbids requests of the server to the client: a server that needs an answer returns
// a result of resultType "input_required" with the questions (inputRequests) and an opaque
// requestState, and the client calls again with the same params plus the answers
// (inputResponses) and the state. Nothing is kept between the two calls but the signed state:
// the retry may reach another gateway of the fleet, which checks the state with the key they
// share and needs nothing else. A Signer mints and opens such states, and remembers the
// confirmations it accepted so that none is accepted twice at one gateway. A task id is a job's
// id with a MAC of it under the same key, so that knowing a job's id does not give its task.
//
// The package knows nothing of JSON-RPC: the mcp package reads the states out of params and
// answers the errors of this package with its guidance.
package reqstate

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
)

// TTL is how long a client has to answer the questions of one round: the state
// expires then, and the call must be made anew.
const TTL = 5 * time.Minute

// MaxUsed bounds the states a server remembers as used, to refuse their replay. Each
// is remembered until it expires; a server that has this many unexpired ones refuses to take
// another answer until some expire (closed rather than open: forgetting one would let it be
// replayed).
const MaxUsed = 10_000

// MinKeyBytes is the shortest key Config.StateKey may be.
const MinKeyBytes = 16

// stateVersion starts every requestState this server mints, so that a later format can be
// told apart; stateDomain separates its MAC from any other use of the key.
const (
	stateVersion = "s2"
	stateDomain  = "hootenanny/holler request state " + stateVersion + "\n"
)

// MaxBytes bounds a requestState, taken or minted: it carries the answers of the
// rounds so far, and a client sends it back with every retry.
const MaxBytes = 64 << 10

// A Signer mints and checks requestStates, and remembers the confirmation questions that
// have been accepted so that none is accepted twice at this server.
type Signer struct {
	key []byte
	ttl time.Duration
	// now is the clock; tests replace it with SetClock.
	now func() time.Time

	mu   sync.Mutex
	used map[string]time.Time // question id, or "round-" and a later state's digest -> its expiry
	max  int
	// ledger, when set, is the fleet's record of used states; used is then a memory of it.
	ledger Ledger
}

// New returns a signer with key, or with a random key of its own when key is empty.
func New(key []byte) (*Signer, error) {
	switch {
	case len(key) == 0:
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
	case len(key) < MinKeyBytes:
		return nil, errors.New("mcp: the state key is too short: it needs at least 16 bytes (32 random bytes are best)")
	}
	return &Signer{key: append([]byte(nil), key...), ttl: TTL, now: time.Now,
		used: make(map[string]time.Time), max: MaxUsed}, nil
}

// State is what a requestState carries: the request it belongs to, when it expires, and
// what was asked and answered so far.
type State struct {
	Method  string `json:"m"`
	Name    string `json:"t"` // the tool's or prompt's or resource's name
	Args    string `json:"a"` // ArgumentsDigest of the request
	Expires int64  `json:"e"` // Unix milliseconds
	// Caller is the principal of the caller the state was minted for (as the gateway's access
	// control names it), or empty without access control: only that caller's retry opens it.
	Caller string `json:"p,omitempty"`
	// Question is the id of the confirmation question the client was asked, awaiting its
	// answer; Confirmed is the id of the confirmation that was accepted.
	Question  string `json:"q,omitempty"`
	Confirmed string `json:"c,omitempty"`
	// Filled are the arguments a person supplied in an earlier round, as a JSON object by
	// argument name, which the call's later rounds run with.
	Filled json.RawMessage `json:"f,omitempty"`
	// Asked are the handler's questions of the last round, by key: each one's digest (the mcp package's questionDigest).
	Asked map[string]string `json:"k,omitempty"`
	// Answers are the answers of the earlier rounds, by key.
	Answers map[string]Answer `json:"r,omitempty"`
}

// An Answer is the client's answer to one question, kept in the state for the later runs.
type Answer struct {
	Question string          `json:"q"` // the digest of the question it answers
	Answer   json.RawMessage `json:"a"` // as the client sent it, compacted
}

// ArgumentsDigest returns a digest of a call's decoded arguments that does not depend on how
// the client spelled them (member order, spaces, defaults written out or left out).
func ArgumentsDigest(req proto.Message) string {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// NewQuestionID returns a fresh random id of a confirmation question.
func NewQuestionID() string {
	id := make([]byte, 12)
	_, _ = rand.Read(id) // crypto/rand does not fail
	return hex.EncodeToString(id)
}

// Seal returns st, expiring one TTL from now, as a signed requestState; it fails when the state
// would be longer than MaxBytes.
func (g *Signer) Seal(st State) (string, error) {
	st.Expires = g.now().Add(g.ttl).UnixMilli()
	payload, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	body := stateVersion + "." + base64.RawURLEncoding.EncodeToString(payload)
	state := body + "." + base64.RawURLEncoding.EncodeToString(g.mac(body))
	if len(state) > MaxBytes {
		return "", errors.New("the answers gathered so far are too large to carry in a requestState")
	}
	return state, nil
}

func (g *Signer) mac(body string) []byte {
	m := hmac.New(sha256.New, g.key)
	m.Write([]byte(stateDomain))
	m.Write([]byte(body))
	return m.Sum(nil)
}

// An Error is a requestState this server will not take; the text says why.
type Error struct {
	Why string
	// Hint, when set, replaces the usual advice (ask again without the state).
	Hint string
}

func (e *Error) Error() string { return e.Why }

// Open checks state, minted for a request of method about name with arguments digest args by
// the caller whose principal is caller, and returns what it says. It does not mark a
// confirmation used: see [Signer.Use].
func (g *Signer) Open(state, method, name, args, caller string) (State, error) {
	var st State
	if len(state) > MaxBytes {
		return st, &Error{Why: "the requestState is longer than any this server mints"}
	}
	version, rest, _ := strings.Cut(state, ".")
	payload, sigText, ok := strings.Cut(rest, ".")
	mac, err := base64.RawURLEncoding.DecodeString(sigText)
	if version != stateVersion || !ok || err != nil || !hmac.Equal(mac, g.mac(version+"."+payload)) {
		return st, &Error{Why: "the requestState was not signed by this server's key: it was altered, or minted by a server " +
			"that does not share this one's --state-key"}
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || json.Unmarshal(raw, &st) != nil || st.Method == "" {
		return st, &Error{Why: "the requestState is signed but unreadable"}
	}
	switch {
	case st.Method != method:
		return st, &Error{Why: "the requestState was minted for a " + st.Method + " request, not for " + method}
	case st.Name != name && method == methodToolsCall:
		return st, &Error{Why: "the requestState was minted for a call of another tool (" + quote(st.Name) + "), not of " + quote(name)}
	case st.Name != name:
		return st, &Error{Why: "the requestState was minted for " + quote(st.Name) + ", not for " + quote(name)}
	case st.Args != args:
		return st, &Error{Why: "the requestState was minted for a call of " + quote(name) + " with other arguments"}
	case st.Caller != caller:
		return st, &Error{Why: "the requestState was minted for another caller: a state is answered with the token that was asked"}
	case !g.now().Before(time.UnixMilli(st.Expires)):
		return st, &Error{Why: "the requestState expired: a question is answered within " + g.ttl.String() + " of the call that asked it"}
	}
	return st, nil
}

// A Ledger records the states that gateways accepted where every gateway of a fleet sees them
// (the workers' database, through the broker: hooteproto.Broker.UseState). UseState records the
// state named by key (KeyBytes long), which expires at expires, and reports whether this was
// its first use; an error means that nothing was recorded.
type Ledger interface {
	UseState(ctx context.Context, key []byte, expires time.Time) (first bool, err error)
}

// SetLedger makes the signer record every accepted state in l before it takes it, so that a
// state is taken once in the whole fleet and across restarts, not only once at this server.
// Without a ledger the signer's own memory is the only record.
func (g *Signer) SetLedger(l Ledger) { g.ledger = l }

// KeyBytes is the length of the key under which a ledger records a state.
const KeyBytes = sha256.Size

// ledgerDomain separates the ledger's keys from every other digest.
const ledgerDomain = "hootenanny/holler used state l1\n"

// LedgerKey returns the key under which a ledger records the state of question: a digest, so
// that the record holds nothing a client sent.
func LedgerKey(question string) []byte {
	sum := sha256.Sum256([]byte(ledgerDomain + question))
	return sum[:]
}

// errUsed is the refusal of a state that was taken before.
var errUsed = &Error{Why: "the confirmation in this requestState was already used: an accepted confirmation runs its call once, " +
	"on whichever gateway of the fleet takes it first"}

// Use marks the state of question, which expires at exp, as answered, and fails if it was
// answered before. With a ledger (SetLedger) the ledger decides, for the whole fleet: a state
// it cannot record is refused, never taken unrecorded. The signer's own memory refuses a
// replay at this server without asking the ledger; without a ledger it is the only record,
// and a server that remembers too many unexpired states refuses more until some expire.
func (g *Signer) Use(ctx context.Context, question string, exp time.Time) error {
	g.mu.Lock()
	if _, seen := g.used[question]; seen {
		g.mu.Unlock()
		return errUsed
	}
	if g.ledger == nil {
		defer g.mu.Unlock()
		if !g.roomLocked() {
			return g.fullLocked()
		}
		g.used[question] = exp
		return nil
	}
	g.mu.Unlock()
	first, err := g.ledger.UseState(ctx, LedgerKey(question), exp)
	if err != nil {
		return &Error{Why: "this server could not record that the confirmation is used, so the call did not run (" + err.Error() + ")",
			Hint: "Send the same retry again in a while: the requestState stays valid until it expires, and the call runs once a worker " +
				"that keeps the fleet's record of confirmations is live."}
	}
	g.mu.Lock()
	if g.roomLocked() {
		// Only a memory of the ledger's answer: when it is full, the ledger still has it.
		g.used[question] = exp
	}
	g.mu.Unlock()
	if !first {
		return errUsed
	}
	return nil
}

// roomLocked reports whether the memory of used states has room for one more, forgetting the
// expired ones when it is full; g.mu is held.
func (g *Signer) roomLocked() bool {
	if len(g.used) < g.max {
		return true
	}
	now := g.now()
	for q, e := range g.used {
		if !now.Before(e) {
			delete(g.used, q)
		}
	}
	return len(g.used) < g.max
}

// fullLocked returns the refusal of a state when the memory is full of unexpired states; g.mu
// is held.
func (g *Signer) fullLocked() error {
	now := g.now()
	soonest := now.Add(g.ttl)
	for _, e := range g.used {
		if e.Before(soonest) {
			soonest = e
		}
	}
	wait := soonest.Sub(now).Round(time.Second) + time.Second
	return &Error{Why: "this server has taken too many accepted answers in the last " + g.ttl.String() + " to remember another",
		Hint: "Send the same retry again in " + wait.String() + ", when the oldest answer it remembers has expired; the requestState stays valid until then."}
}

// taskIDDomain separates the MAC of task ids from every other use of the state key.
const taskIDDomain = "hootenanny/holler task id t1\n"

// taskTagBytes is the length of a task id's MAC: 128 bits, as unguessable as a random id.
const taskTagBytes = 16

// MaxTaskIDLength bounds the task ids this server reads; the ones it mints are 55 characters.
const MaxTaskIDLength = 128

// TaskID returns the task id of the job jobID: the job's id and a MAC of it under the state
// key, so that knowing (or guessing) a job id does not give its task id.
func (g *Signer) TaskID(jobID string) string {
	return jobID + "." + base64.RawURLEncoding.EncodeToString(g.taskTag(jobID))
}

func (g *Signer) taskTag(jobID string) []byte {
	m := hmac.New(sha256.New, g.key)
	m.Write([]byte(taskIDDomain))
	m.Write([]byte(jobID))
	return m.Sum(nil)[:taskTagBytes]
}

// JobOfTask returns the job id that a task id minted by TaskID names; ok is false for any
// other string.
func (g *Signer) JobOfTask(taskID string) (jobID string, ok bool) {
	if len(taskID) > MaxTaskIDLength {
		return "", false
	}
	jobID, tagText, found := strings.Cut(taskID, ".")
	if !found || jobID == "" {
		return "", false
	}
	tag, err := base64.RawURLEncoding.DecodeString(tagText)
	if err != nil || !hmac.Equal(tag, g.taskTag(jobID)) {
		return "", false
	}
	return jobID, true
}

// methodToolsCall is the MCP method whose requestStates name a tool.
const methodToolsCall = "tools/call"

// quote returns s in double quotes, shortened when long, for messages.
func quote(s string) string {
	const maxLen = 80
	if len(s) > maxLen {
		s = s[:maxLen] + "..."
	}
	return strconv.Quote(s)
}

// SetClock makes the signer read the time from now: for tests of expiry.
func (g *Signer) SetClock(now func() time.Time) { g.now = now }

// SetMaxUsed bounds the accepted confirmations the signer remembers at once (MaxUsed by default).
func (g *Signer) SetMaxUsed(n int) { g.max = n }
