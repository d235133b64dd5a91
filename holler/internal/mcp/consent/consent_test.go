package consent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

// TestDecide decides calls of tools of each tier, with and without confirmation, and a waived
// confirmation; a client is asked whether it can be reached only when a person must confirm.
// (A token's cap needs a grant of an access guard: the mcp package's access tests check it.)
func TestDecide(t *testing.T) {
	std := &hootv1hoot.Tool{Name: "std", Tier: hootv1.Tier_TIER_STANDARD}
	admin := &hootv1hoot.Tool{Name: "admin", Tier: hootv1.Tier_TIER_ADMIN}
	confirm := &hootv1hoot.Tool{Name: "confirm", Tier: hootv1.Tier_TIER_STANDARD, Confirm: true}
	for _, tc := range []struct {
		name         string
		p            Policy
		tool         *hootv1hoot.Tool
		reachable    bool
		outcome      string
		confirmation string
		reached      bool
	}{
		{"standard tool", Policy{MaxTier: hootv1.Tier_TIER_STANDARD}, std, true, OutcomeAllowed, ConfirmationNotRequired, false},
		{"above the server's tier", Policy{MaxTier: hootv1.Tier_TIER_STANDARD}, admin, true, OutcomeTierTooHigh, ConfirmationRequired, false},
		{"admin tool, client reachable", Policy{MaxTier: hootv1.Tier_TIER_ADMIN}, admin, true, OutcomeAllowed, ConfirmationRequired, true},
		{"confirm tool, client not reachable", Policy{MaxTier: hootv1.Tier_TIER_ADMIN}, confirm, false, OutcomeCannotElicit, ConfirmationRequired, true},
		{"confirmation waived", Policy{MaxTier: hootv1.Tier_TIER_ADMIN, NoConfirm: true}, confirm, false, OutcomeAllowed, ConfirmationWaived, false},
	} {
		reached := false
		d, cannot := tc.p.Decide(tc.tool, func() (bool, string) {
			reached = true
			if !tc.reachable {
				return false, "the client cannot elicit"
			}
			return true, ""
		})
		if d.Outcome != tc.outcome || d.Confirmation != tc.confirmation || reached != tc.reached {
			t.Errorf("%s: outcome %s, confirmation %s, reached %v; want %s, %s, %v", tc.name, d.Outcome, d.Confirmation, reached, tc.outcome, tc.confirmation, tc.reached)
		}
		if d.Refused() != (tc.outcome != OutcomeAllowed) {
			t.Errorf("%s: refused %v with outcome %s", tc.name, d.Refused(), d.Outcome)
		}
		if tc.outcome == OutcomeCannotElicit && cannot == "" {
			t.Errorf("%s: no reason why the client cannot be asked", tc.name)
		}
	}
}

// TestAnswered turns each answer of a person into the decision's outcome, for a confirmation
// and for arguments asked alone; no answer at all is unanswered.
func TestAnswered(t *testing.T) {
	for _, tc := range []struct {
		confirming bool
		a          Answer
		err        error
		want       string
	}{
		{true, Accepted, nil, OutcomeConfirmed},
		{false, Accepted, nil, OutcomeAnswered},
		{true, AcceptedUnticked, nil, OutcomeNotConfirmed},
		{true, Cancelled, nil, OutcomeCancelled},
		{true, Declined, nil, OutcomeDeclined},
		{true, Accepted, context.DeadlineExceeded, OutcomeUnanswered},
	} {
		if d := Answered(Decision{Outcome: OutcomeAllowed}, tc.confirming, tc.a, tc.err); d.Outcome != tc.want {
			t.Errorf("Answered(%v, %v, %v) = %s, want %s", tc.confirming, tc.a, tc.err, d.Outcome, tc.want)
		}
	}
}

// TestRefusal says, for every outcome that refuses, what happened and the next right step.
func TestRefusal(t *testing.T) {
	p := Policy{MaxTier: hootv1.Tier_TIER_STANDARD}
	tool := &hootv1hoot.Tool{Name: "wipe", Tier: hootv1.Tier_TIER_ADMIN}
	for outcome, want := range map[string]string{
		OutcomeTierTooHigh:     "--max-tier",
		OutcomeTokenTierTooLow: "ask for a token",
		OutcomeCannotElicit:    "elicitation",
		OutcomeDeclined:        "declined",
		OutcomeNotConfirmed:    "tick confirm",
		OutcomeCancelled:       "dismissed",
		OutcomeUnanswered:      "did not answer in time",
	} {
		d := Decision{Outcome: outcome, Confirmation: ConfirmationRequired, Raise: "ask for a token of tier admin"}
		e := p.Refusal(tool, d, "it declared no elicitation", context.DeadlineExceeded)
		text := e.Message() + " " + e.Hint()
		if e.Code() != hooteproto.CodePermissionDenied || e.Hint() == "" || !strings.Contains(text, want) {
			t.Errorf("%s: %s (%s), want permission denied with a hint mentioning %q", outcome, text, e.Code(), want)
		}
	}
	// Arguments a person supplies that did not come are the caller's to pass.
	d := Decision{Outcome: OutcomeDeclined, Confirmation: ConfirmationNotRequired, Asked: []string{"name"}}
	if e := p.Refusal(tool, d, "", errors.New("gone")); e.Code() != hooteproto.CodeInvalidArgument || !strings.Contains(e.Hint(), "Pass name") {
		t.Errorf("arguments refusal = %s: %s", e.Message(), e.Hint())
	}
}

// TestQuestion writes the question whether a call may run and the question for arguments alone:
// what the person reads names the tool and its arguments, the form asks exactly what is needed
// (the confirm box unticked by default), an accepted form counts as a confirmation only when the
// box is ticked, and each kind of question has its own key prefix.
func TestQuestion(t *testing.T) {
	tool := &hootv1hoot.Tool{Name: "wipe", Title: "Wipe", Description: "Deletes everything.\n\nMore.", Tier: hootv1.Tier_TIER_ADMIN}
	q := NewQuestion(tool, &hootv1.EchoRequest{Message: "all"})
	if m := q.Message(); !strings.Contains(m, "Run the tool wipe (Wipe)? Deletes everything.") || !strings.Contains(m, `message: "all"`) {
		t.Errorf("confirmation message = %q", m)
	}
	schema := q.RequestedSchema()
	props, _ := schema["properties"].(map[string]any)
	box, _ := props[ConfirmField].(map[string]any)
	if box["default"] != false || len(props) != 1 || q.KeyPrefix() != ConfirmKeyPrefix {
		t.Errorf("confirmation form = %v, key prefix %s", schema, q.KeyPrefix())
	}
	if q.Accepted(map[string]json.RawMessage{ConfirmField: json.RawMessage(`true`)}) != Accepted ||
		q.Accepted(map[string]json.RawMessage{ConfirmField: json.RawMessage(`false`)}) != AcceptedUnticked || q.Accepted(nil) != AcceptedUnticked {
		t.Error("an accepted confirmation form counts without its box ticked")
	}

	q.Confirm, q.Fill = false, []hootv1hoot.ElicitField{{Name: "name", Schema: `{"type":"string"}`}}
	if m := q.Message(); !strings.Contains(m, "It needs what only you can give: name") || q.KeyPrefix() != ArgumentsKeyPrefix {
		t.Errorf("arguments message = %q, key prefix %s", m, q.KeyPrefix())
	}
	props, _ = q.RequestedSchema()["properties"].(map[string]any)
	if _, ok := props["name"]; !ok || props[ConfirmField] != nil || q.Accepted(nil) != Accepted {
		t.Errorf("arguments form = %v", props)
	}
}
