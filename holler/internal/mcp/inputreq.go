package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

// The confirmation of the 2026-07-28 era, asked in an input_required result and answered in
// the retry, with the signed requestState that package reqstate mints and opens. The questions
// of one round are the gateway's own confirmation of a risky call (this file) and the
// questions a worker's handler asks through AskClient (mrtr.go); one state carries both.

// An inputRequired is the answer of a call whose confirmation must be asked in an
// input_required result: the confirmer returns it as its error, and callTool answers with it.
type inputRequired struct {
	result questions.InputRequired
}

func (e *inputRequired) Error() string { return "the call waits for a person's answer" }

// A modernConfirmer asks a person through an input_required result: the first call gets the
// question, and the retry that carries the answer and the state gets the answer. It keeps what
// it learns in the request's round, so that the state of a later round of the same call (the
// handler's own questions) remembers that the call was confirmed.
type modernConfirmer struct {
	round *inputRound
}

var _ consent.Confirmer = (*modernConfirmer)(nil)

func (c *modernConfirmer) Confirm(ctx context.Context, q consent.Question) (consent.Answer, map[string]json.RawMessage, error) {
	r := c.round
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
func (c *modernConfirmer) ask(q consent.Question) error {
	id := reqstate.NewQuestionID()
	res, err := c.round.result(q.KeyPrefix(), id, questions.Request{
		Method: questions.MethodElicit,
		Params: questions.Elicit{Mode: "form", Message: q.Message(), RequestedSchema: q.RequestedSchema()},
	})
	if err != nil {
		return err
	}
	return &inputRequired{result: res}
}
