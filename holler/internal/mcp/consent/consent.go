// Package consent is the gateway's tool policy: the one place that says whether a tools/call
// may go to a worker. It weighs the tool's tier against the server's and the caller's token,
// and a person's confirmation for the tools that need one, and says what the client is told
// about a call it refuses. Nothing it refuses reaches the network. How a question reaches the
// person is not its business: the mcp package's confirmers ask, in the way of each protocol
// era, and hand the answer back as an Answer.
package consent

import (
	"context"
	"errors"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// The confirmation a call needs, as a decision reports it.
const (
	ConfirmationRequired    = "required"
	ConfirmationNotRequired = "not_required"
	// ConfirmationWaived: the tool needs confirmation, and the operator turned asking off
	// (Config.NoConfirm). Only logs show it: a waived call is not refused.
	ConfirmationWaived = "waived"
)

// The outcomes of a decision. Refusals carry theirs to the client; the others are logged.
const (
	// OutcomeTokenTierTooLow: the call is above the tier of the caller's token.
	OutcomeTokenTierTooLow = "token_tier_too_low"
	OutcomeAllowed         = "allowed"   // nothing to ask
	OutcomeConfirmed       = "confirmed" // a person accepted
	OutcomeAnswered        = "answered"  // a person supplied the arguments asked of them
	OutcomeTierTooHigh     = "tier_too_high"
	OutcomeCannotElicit    = "client_cannot_elicit"
	OutcomeDeclined        = "declined"
	OutcomeCancelled       = "cancelled"
	OutcomeUnanswered      = "unanswered"
	OutcomeNotConfirmed    = "not_confirmed" // accepted, without ticking confirm
)

// A decision is what the policy made of one tools/call. A refusal carries it in its data, so
// that a client or a model can tell why a call was refused without reading prose.
type Decision struct {
	// Tier is the tool's tier and MaxTier the server's, in the words of --max-tier ("admin").
	Tier    string `json:"tier"`
	MaxTier string `json:"max_tier"`
	// Confirmation says whether a person had to confirm the call.
	Confirmation string `json:"confirmation"`
	// Outcome is what came of it.
	Outcome string `json:"outcome"`
	// Asked are the arguments the call left out that a person was asked for.
	Asked []string `json:"asked,omitempty"`
	// TokenTier is the highest tier the caller's token allows, when the request came through
	// access control (the mcp package's access control); raise says how to get a higher one.
	TokenTier string `json:"token_tier,omitempty"`
	// Raise says how to get a token of a higher tier, for a call above the token's.
	Raise string `json:"-"`
}

// String renders d for a model, one line in the words of its JSON.
func (d Decision) String() string {
	return "tier " + d.Tier + ", max_tier " + d.MaxTier + ", confirmation " + d.Confirmation + ", outcome " + d.Outcome
}

// A Policy holds the rules; a server has one, made from its configuration.
type Policy struct {
	// MaxTier is the highest tier of the tools the server calls.
	MaxTier hootv1.Tier
	// NoConfirm runs tools that need confirmation without asking (holler's --confirm never).
	NoConfirm bool
	// Grant, when set, is the caller's token, which caps the tier further (ForGrant).
	Grant *access.Grant
}

// ForGrant returns p for a caller whose token is g: capped by its tier.
func (p Policy) ForGrant(g *access.Grant) Policy {
	p.Grant = g
	return p
}

// NeedsConfirmation reports whether a person must confirm each call of t: every tool of tier
// ADMIN or above, and every tool whose schema asks for it (hoot.v1.ToolOptions.confirm).
func NeedsConfirmation(t *hootv1hoot.Tool) bool {
	return t.Confirm || t.Tier >= hootv1.Tier_TIER_ADMIN
}

// waived reports whether the operator's --confirm never runs t without asking: never for a
// tool of tier OPERATOR, which a person confirms each time whatever the flag says.
func (p Policy) waived(t *hootv1hoot.Tool) bool {
	return p.NoConfirm && t.Tier < hootv1.Tier_TIER_OPERATOR
}

// Asks reports whether the server will ask a person before each call of t.
func (p Policy) Asks(t *hootv1hoot.Tool) bool {
	return NeedsConfirmation(t) && !p.waived(t)
}

// Decide makes the decision about a call of t that needs no arguments to make: the tier, and
// whether confirmation is needed and can be asked for at all. reach says whether the call's
// client can be asked, and why not when it cannot; it is called only when confirmation is
// needed. A refused decision (see [Decision.Refused]) stops the call; one whose Confirmation
// is required still needs a person's answer ([Answered]) once the arguments have decoded, so
// that a malformed call is never put to a person.
func (p Policy) Decide(t *hootv1hoot.Tool, reach func() (ok bool, cannot string)) (d Decision, cannot string) {
	d = Decision{
		Tier:         TierWord(t.Tier),
		MaxTier:      TierWord(p.MaxTier),
		Confirmation: ConfirmationNotRequired,
		Outcome:      OutcomeAllowed,
	}
	switch {
	case NeedsConfirmation(t) && p.waived(t):
		d.Confirmation = ConfirmationWaived
	case NeedsConfirmation(t):
		d.Confirmation = ConfirmationRequired
	}
	if t.Tier > p.MaxTier {
		d.Outcome = OutcomeTierTooHigh
		return d, ""
	}
	if p.Grant != nil {
		d.TokenTier = TierWord(p.Grant.Tier)
		if t.Tier > p.Grant.Tier {
			d.Outcome, d.Raise = OutcomeTokenTierTooLow, p.Grant.Raise(t.Tier)
			return d, ""
		}
	}
	if d.Confirmation == ConfirmationRequired {
		var ok bool
		if ok, cannot = reach(); !ok {
			d.Outcome = OutcomeCannotElicit
		}
	}
	return d, cannot
}

// An Answer is what a person made of a question put to them. The zero value declines, so that
// an answer that was never set refuses the call.
type Answer int

// The answers.
const (
	Declined Answer = iota
	Accepted
	// AcceptedUnticked: the form was accepted without its confirm box ticked.
	AcceptedUnticked
	Cancelled
)

// Answered returns the decision d with the outcome of the question put to a person: whether
// the call may run (confirming), or only the arguments they supply, answered a, or err when no
// answer came (ctx ended, or the client failed the request).
func Answered(d Decision, confirming bool, a Answer, err error) Decision {
	switch {
	case err != nil:
		d.Outcome = OutcomeUnanswered
	case a == Accepted && !confirming:
		d.Outcome = OutcomeAnswered
	case a == Accepted:
		d.Outcome = OutcomeConfirmed
	case a == AcceptedUnticked:
		d.Outcome = OutcomeNotConfirmed
	case a == Cancelled:
		d.Outcome = OutcomeCancelled
	default:
		d.Outcome = OutcomeDeclined
	}
	return d
}

// Refused reports whether d stops the call.
func (d Decision) Refused() bool {
	return d.Outcome != OutcomeAllowed && d.Outcome != OutcomeConfirmed && d.Outcome != OutcomeAnswered
}

// Refusal returns what the client is told about the refused call of t: what happened, and
// the next right step, which for every outcome says how the call could be allowed. why says,
// for OutcomeCannotElicit, why this client cannot be asked; unanswered is the error that ended
// the wait for an answer, for OutcomeUnanswered.
func (p Policy) Refusal(t *hootv1hoot.Tool, d Decision, why string, unanswered error) *hooteproto.Error {
	if len(d.Asked) > 0 && d.Confirmation != ConfirmationRequired {
		return argumentsRefusal(t, d, why, unanswered)
	}
	name := wording.Quote(t.Name)
	var e *hooteproto.Error
	switch d.Outcome {
	case OutcomeTierTooHigh:
		e = hooteproto.NewError(hooteproto.CodePermissionDenied,
			"tool "+name+" needs tier "+TierName(t.Tier)+" and this server allows tools up to tier "+TierName(p.MaxTier)).
			WithHint("Use the tools that tools/list shows. The server's operator can allow this one by starting holler with --max-tier " +
				d.Tier + " (or HOLLER_MAX_TIER=" + d.Tier + ").")
	case OutcomeTokenTierTooLow:
		e = hooteproto.NewError(hooteproto.CodePermissionDenied,
			"tool "+name+" needs tier "+TierName(t.Tier)+" and the caller's token allows tools up to tier "+strings.ToUpper(d.TokenTier)).
			WithHint(d.Raise)
	case OutcomeCannotElicit:
		e = hooteproto.NewError(hooteproto.CodePermissionDenied,
			"tool "+name+" runs only after a person confirms the call, and "+why).
			WithHint("Call it from an MCP client that supports elicitation in form mode (protocol 2025-06-18 or later, " +
				"with capabilities.elicitation in initialize, or 2026-07-28 with elicitation in each request's clientCapabilities), which puts the call to its user. " +
				operatorWaiver(t))
	case OutcomeDeclined:
		e = hooteproto.NewError(hooteproto.CodePermissionDenied, "the person asked to confirm "+name+" declined it; it did not run").
			WithHint("Do not call it again unless the person asks for it; ask them what they want instead.")
	case OutcomeNotConfirmed:
		e = hooteproto.NewError(hooteproto.CodePermissionDenied, "the person asked to confirm "+name+" accepted the form without ticking confirm; it did not run").
			WithHint("If the person wants it to run, call it again and have them tick confirm.")
	case OutcomeCancelled:
		e = hooteproto.NewError(hooteproto.CodePermissionDenied, "the person asked to confirm "+name+" dismissed the question; it did not run").
			WithHint("Ask the person whether they want it to run, and call it again if they do.")
	default: // OutcomeUnanswered
		msg := "no answer came to the question whether " + name + " may run; it did not run"
		if errors.Is(unanswered, context.DeadlineExceeded) {
			msg = "the person asked to confirm " + name + " did not answer in time; it did not run"
		}
		e = hooteproto.NewError(hooteproto.CodePermissionDenied, msg).
			WithHint("Call it again when the person is there to answer; the question is asked again.").
			WithRetryable(true)
	}
	return e
}

// TierWord returns a tier as --max-tier takes it, such as "admin".
func TierWord(t hootv1.Tier) string {
	return strings.ToLower(TierName(t))
}

// argumentsRefusal returns what the client is told about a call that left out arguments a
// person supplies, when nobody could be asked or the person did not give them: what happened,
// and that the caller may pass them itself.
func argumentsRefusal(t *hootv1hoot.Tool, d Decision, why string, unanswered error) *hooteproto.Error {
	name, asked := wording.Quote(t.Name), strings.Join(d.Asked, ", ")
	pass := "Pass " + asked + " in the arguments of " + t.Name + " (tools/list describes them) if you know them"
	var e *hooteproto.Error
	switch d.Outcome {
	case OutcomeCannotElicit:
		e = hooteproto.NewError(hooteproto.CodeInvalidArgument,
			"tool "+name+" needs "+asked+", which the call left out and a person supplies, and "+why).
			WithHint(pass + ", and call it again; or call it from an MCP client that supports elicitation in form mode (protocol 2025-06-18 or later " +
				"with capabilities.elicitation, or 2026-07-28 with elicitation in each request's clientCapabilities), which asks its user.")
	case OutcomeDeclined:
		e = hooteproto.NewError(hooteproto.CodeInvalidArgument, "the person asked for "+asked+" of "+name+" declined to give it; it did not run").
			WithHint(pass + "; otherwise do not call it again unless the person asks for it.")
	case OutcomeCancelled:
		e = hooteproto.NewError(hooteproto.CodeInvalidArgument, "the person asked for "+asked+" of "+name+" dismissed the form; it did not run").
			WithHint(pass + ", or ask the person whether they want it to run and call it again if they do.")
	default: // OutcomeUnanswered
		msg := "no answer came to the form asking for " + asked + " of " + name + "; it did not run"
		if errors.Is(unanswered, context.DeadlineExceeded) {
			msg = "the person asked for " + asked + " of " + name + " did not answer in time; it did not run"
		}
		e = hooteproto.NewError(hooteproto.CodeInvalidArgument, msg).
			WithHint(pass + ", or call it again when the person is there to answer.").
			WithRetryable(true)
	}
	return e
}

// TierName returns a tier's short name, such as "STANDARD".
func TierName(t hootv1.Tier) string {
	return strings.TrimPrefix(t.String(), "TIER_")
}
