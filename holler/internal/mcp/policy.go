package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// This file is the gateway's tool policy, the one place that says whether a tools/call may go
// to a worker: the tool's tier against MaxTier, and a person's confirmation for the tools that
// need one. Nothing a policy refuses reaches the network. How the question reaches the person
// is not the policy's business: it asks through a [confirmer] (confirm.go).

// The confirmation a call needs, as a decision reports it.
const (
	confirmationRequired    = "required"
	confirmationNotRequired = "not_required"
	// confirmationWaived: the tool needs confirmation, and the operator turned asking off
	// (Config.NoConfirm). Only logs show it: a waived call is not refused.
	confirmationWaived = "waived"
)

// The outcomes of a decision. Refusals carry theirs to the client; the others are logged.
const (
	outcomeAllowed      = "allowed"   // nothing to ask
	outcomeConfirmed    = "confirmed" // a person accepted
	outcomeAnswered     = "answered"  // a person supplied the arguments asked of them (askargs.go)
	outcomeTierTooHigh  = "tier_too_high"
	outcomeCannotElicit = "client_cannot_elicit"
	outcomeDeclined     = "declined"
	outcomeCancelled    = "cancelled"
	outcomeUnanswered   = "unanswered"
	outcomeNotConfirmed = "not_confirmed" // accepted, without ticking confirm
)

// A decision is what the policy made of one tools/call. A refusal carries it in its data, so
// that a client or a model can tell why a call was refused without reading prose.
type decision struct {
	// Tier is the tool's tier and MaxTier the server's, in the words of --max-tier ("admin").
	Tier    string `json:"tier"`
	MaxTier string `json:"max_tier"`
	// Confirmation says whether a person had to confirm the call.
	Confirmation string `json:"confirmation"`
	// Outcome is what came of it.
	Outcome string `json:"outcome"`
	// Asked are the arguments the call left out that a person was asked for (askargs.go).
	Asked []string `json:"asked,omitempty"`
	// TokenTier is the highest tier the caller's token allows, when the request came through
	// access control (access.go); raise says how to get a higher one.
	TokenTier string `json:"token_tier,omitempty"`
	raise     string
}

// String renders d for a model, one line in the words of its JSON.
func (d decision) String() string {
	return "tier " + d.Tier + ", max_tier " + d.MaxTier + ", confirmation " + d.Confirmation + ", outcome " + d.Outcome
}

// A policy holds the rules; a Server has one, made from its Config.
type policy struct {
	maxTier hootv1.Tier
	// noConfirm runs tools that need confirmation without asking (Config.NoConfirm).
	noConfirm bool
	// grant, when set, is the caller's token, which caps the tier further (forCaller).
	grant *access.Grant
}

// needsConfirmation reports whether a person must confirm each call of t: every tool of tier
// ADMIN or above, and every tool whose schema asks for it (hoot.v1.ToolOptions.confirm).
func needsConfirmation(t *hootv1hoot.Tool) bool {
	return t.Confirm || t.Tier >= hootv1.Tier_TIER_ADMIN
}

// waived reports whether the operator's --confirm never runs t without asking: never for a
// tool of tier OPERATOR, which a person confirms each time whatever the flag says.
func (p policy) waived(t *hootv1hoot.Tool) bool {
	return p.noConfirm && t.Tier < hootv1.Tier_TIER_OPERATOR
}

// asks reports whether the server will ask a person before each call of t.
func (p policy) asks(t *hootv1hoot.Tool) bool {
	return needsConfirmation(t) && !p.waived(t)
}

// decide makes the decision about a call of t that needs no arguments to make: the tier, and
// whether confirmation is needed and can be asked for at all. reach returns how the call's
// client can be asked, or nil and why not; it is called only when confirmation is needed.
// A refused decision (see [decision.refused]) stops the call; one whose Confirmation is
// required still needs [policy.confirm] with the returned confirmer once the arguments have
// decoded, so that a malformed call is never put to a person.
func (p policy) decide(t *hootv1hoot.Tool, reach func() (confirmer, string)) (d decision, ask confirmer, cannot string) {
	d = decision{
		Tier:         tierWord(t.Tier),
		MaxTier:      tierWord(p.maxTier),
		Confirmation: confirmationNotRequired,
		Outcome:      outcomeAllowed,
	}
	switch {
	case needsConfirmation(t) && p.waived(t):
		d.Confirmation = confirmationWaived
	case needsConfirmation(t):
		d.Confirmation = confirmationRequired
	}
	if t.Tier > p.maxTier {
		d.Outcome = outcomeTierTooHigh
		return d, nil, ""
	}
	if p.grant != nil {
		d.TokenTier = tierWord(p.grant.Tier)
		if t.Tier > p.grant.Tier {
			d.Outcome, d.raise = outcomeTokenTierTooLow, p.grant.Raise(t.Tier)
			return d, nil, ""
		}
	}
	if d.Confirmation == confirmationRequired {
		if ask, cannot = reach(); ask == nil {
			d.Outcome = outcomeCannotElicit
		}
	}
	return d, ask, cannot
}

// confirm puts the question q to a person through ask and returns the decision with its
// outcome, the content of the form they accepted, and the confirmer's error, if any. ctx
// bounds the wait. An error means the outcome unanswered; some errors are answers of their own
// (an input_required result, a request state that is refused), which the caller gives instead.
func (p policy) confirm(ctx context.Context, d decision, ask confirmer, q confirmQuestion) (decision, map[string]json.RawMessage, error) {
	a, content, err := ask.confirm(ctx, q)
	switch {
	case err != nil:
		d.Outcome = outcomeUnanswered
	case a == answerAccepted && !q.confirm:
		d.Outcome = outcomeAnswered
	case a == answerAccepted:
		d.Outcome = outcomeConfirmed
	case a == answerAcceptedUnticked:
		d.Outcome = outcomeNotConfirmed
	case a == answerCancelled:
		d.Outcome = outcomeCancelled
	default:
		d.Outcome = outcomeDeclined
	}
	return d, content, err
}

// refused reports whether d stops the call.
func (d decision) refused() bool {
	return d.Outcome != outcomeAllowed && d.Outcome != outcomeConfirmed && d.Outcome != outcomeAnswered
}

// A refusal is a call the policy stopped: the tool error the client sees and its data.
type refusal struct {
	err  *hooteproto.Error
	data *guidance
}

// refusal returns what the client is told about the refused call of t: what happened, and
// the next right step, which for every outcome says how the call could be allowed. why says,
// for outcomeCannotElicit, why this client cannot be asked; unanswered is the error that ended
// the wait for an answer, for outcomeUnanswered.
func (p policy) refusal(t *hootv1hoot.Tool, d decision, why string, unanswered error) refusal {
	if len(d.Asked) > 0 && d.Confirmation != confirmationRequired {
		return argumentsRefusal(t, d, why, unanswered)
	}
	name := wording.Quote(t.Name)
	var e *hooteproto.Error
	switch d.Outcome {
	case outcomeTierTooHigh:
		e = hooteproto.NewError(hooteproto.CodePermissionDenied,
			"tool "+name+" needs tier "+tierName(t.Tier)+" and this server allows tools up to tier "+tierName(p.maxTier)).
			WithHint("Use the tools that tools/list shows. The server's operator can allow this one by starting holler with --max-tier " +
				d.Tier + " (or HOLLER_MAX_TIER=" + d.Tier + ").")
	case outcomeTokenTierTooLow:
		e = hooteproto.NewError(hooteproto.CodePermissionDenied,
			"tool "+name+" needs tier "+tierName(t.Tier)+" and the caller's token allows tools up to tier "+strings.ToUpper(d.TokenTier)).
			WithHint(d.raise)
	case outcomeCannotElicit:
		e = hooteproto.NewError(hooteproto.CodePermissionDenied,
			"tool "+name+" runs only after a person confirms the call, and "+why).
			WithHint("Call it from an MCP client that supports elicitation in form mode (protocol 2025-06-18 or later, " +
				"with capabilities.elicitation in initialize, or 2026-07-28 with elicitation in each request's clientCapabilities), which puts the call to its user. " +
				operatorWaiver(t))
	case outcomeDeclined:
		e = hooteproto.NewError(hooteproto.CodePermissionDenied, "the person asked to confirm "+name+" declined it; it did not run").
			WithHint("Do not call it again unless the person asks for it; ask them what they want instead.")
	case outcomeNotConfirmed:
		e = hooteproto.NewError(hooteproto.CodePermissionDenied, "the person asked to confirm "+name+" accepted the form without ticking confirm; it did not run").
			WithHint("If the person wants it to run, call it again and have them tick confirm.")
	case outcomeCancelled:
		e = hooteproto.NewError(hooteproto.CodePermissionDenied, "the person asked to confirm "+name+" dismissed the question; it did not run").
			WithHint("Ask the person whether they want it to run, and call it again if they do.")
	default: // outcomeUnanswered
		msg := "no answer came to the question whether " + name + " may run; it did not run"
		if errors.Is(unanswered, context.DeadlineExceeded) {
			msg = "the person asked to confirm " + name + " did not answer in time; it did not run"
		}
		e = hooteproto.NewError(hooteproto.CodePermissionDenied, msg).
			WithHint("Call it again when the person is there to answer; the question is asked again.").
			WithRetryable(true)
	}
	return refusal{err: e, data: &guidance{Hint: e.Hint(), Tool: t.Name, Policy: &d}}
}

// tierWord returns a tier as --max-tier takes it, such as "admin".
func tierWord(t hootv1.Tier) string {
	return strings.ToLower(tierName(t))
}
