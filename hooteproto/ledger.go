package hooteproto

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// The ledger of accepted requestStates. A gateway that accepts a signed requestState (a
// person's confirmation of a call, in MCP 2026-07-28) records it with [Broker.UseState] before
// the call runs; the request goes to a worker that serves [LedgerService], which keeps the
// record in the fleet's database. Every gateway of the fleet asks the same database, so a state
// accepted once is refused everywhere else, and by the same gateway after a restart.
//
// The request is a field of hoot.v1.Request, not a tool: the gateway builds payloads only from
// its table of tools, so no client request can become a StateUse, and there is no tier or
// listing for a client's token to reach it through.

// LedgerService is the service that a worker with a [StateLedger] announces besides its tools'
// services, and that [Broker.UseState] sends to.
const LedgerService = "ledger"

// StateKeyBytes is the length of a StateUse's key: a SHA-256 digest.
const StateKeyBytes = 32

// maxStateAhead bounds how far ahead a state's expiry may be: states live minutes, and a
// record is kept until its state expires.
const maxStateAhead = time.Hour

// stateAttemptBytes is the length of a StateUse's attempt.
const stateAttemptBytes = 16

// A StateLedger records the requestStates that gateways accepted. UseState records use and
// reports whether this is its first use: false when the key was recorded before by another
// attempt. A record by the same attempt (a request sent again) counts as the first use.
type StateLedger interface {
	UseState(ctx context.Context, key, attempt []byte, expires time.Time) (first bool, err error)
}

// WithStateLedger makes a worker serve [LedgerService] with l: it announces the service and
// records the StateUses that gateways send it.
func WithStateLedger(l StateLedger) WorkerOption {
	return workerOption(func(c *workerConfig) { c.ledger = l })
}

// UseState records, through a live worker that serves [LedgerService], that the state named
// by key (StateKeyBytes long), which expires at expires, was accepted. first is false when it
// had been accepted before, by any gateway. The error is an *Error: unavailable when no worker
// serves the ledger, or the database could not record the use; the state is then not recorded,
// and the caller must not act on it.
func (b *Broker) UseState(ctx context.Context, key []byte, expires time.Time) (first bool, err error) {
	if len(key) != StateKeyBytes {
		return false, NewError(CodeInvalidArgument, fmt.Sprintf("a state's key is %d bytes, not %d", len(key), StateKeyBytes))
	}
	attempt := make([]byte, stateAttemptBytes)
	_, _ = rand.Read(attempt) // crypto/rand does not fail
	req := &hootv1.Request{StateUse: &hootv1.StateUse{Key: key, Attempt: attempt, Expires: timestamppb.New(expires)}}
	// Sent again when its worker is lost: the attempt makes a second record of it harmless.
	res, err := b.sendCall(ctx, LedgerService, req, true, nil, nil)
	if err != nil {
		return false, err
	}
	switch te := res.GetError(); {
	case te == nil:
		return true, nil
	case te.GetCategory() == hootv1.ErrorCategory_ERROR_CATEGORY_PERMISSION:
		return false, nil
	default:
		return false, ErrorFromTool(te)
	}
}

// errStateUsed is the ledger's answer to a state used before.
var errStateUsed = NewError(CodePermissionDenied, "the requestState was accepted before")

// serveStateUse records the StateUse of req with ledger and returns the reply.
func serveStateUse(ctx context.Context, ledger StateLedger, req *hootv1.Request) *hootv1.Result {
	use := req.GetStateUse()
	switch {
	case ledger == nil:
		return errorResult(NewError(CodeUnavailable, "this worker keeps no ledger of requestStates"))
	case req.GetPayload() != nil || use == nil:
		return errorResult(NewError(CodeInvalidArgument, "a request to the "+LedgerService+" service holds a state use and nothing else"))
	case len(use.GetKey()) != StateKeyBytes || len(use.GetAttempt()) != stateAttemptBytes:
		return errorResult(NewError(CodeInvalidArgument, fmt.Sprintf("a state use has a key of %d bytes and an attempt of %d", StateKeyBytes, stateAttemptBytes)))
	case !use.GetExpires().IsValid() || use.GetExpires().AsTime().After(time.Now().Add(maxStateAhead)):
		return errorResult(NewError(CodeInvalidArgument, "a state use needs a valid expiry, at most "+maxStateAhead.String()+" ahead"))
	}
	first, err := ledger.UseState(ctx, use.GetKey(), use.GetAttempt(), use.GetExpires().AsTime())
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = WrapError(CodeUnavailable, fmt.Errorf("recording the state's use: %w", err)).WithRetryable(true)
		}
		return errorResult(e)
	}
	if !first {
		return errorResult(errStateUsed)
	}
	return &hootv1.Result{}
}

// callerKey finds the Caller of a request in its handler's context.
type callerKey struct{}

func (callerKey) String() string { return "hooteproto.caller" }

// CallerFrom returns who asked for the call a handler serves, as the gateway sent it, or nil
// when the gateway checks no tokens.
func CallerFrom(ctx context.Context) *hootv1.Caller {
	c, _ := ctx.Value(callerKey{}).(*hootv1.Caller)
	return c
}

// WithCaller returns a context whose CallerFrom is c: for code that serves calls without the
// wire, as a worker does for the calls it is sent.
func WithCaller(ctx context.Context, c *hootv1.Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// encodeRequest encodes req into a buffer of bodyPool, refusing a body over max.
func encodeRequest(req *hootv1.Request, max int) (body, *Error) {
	b, err := marshalBody(req)
	if err != nil {
		b.release()
		return body{}, WrapError(CodeInternal, fmt.Errorf("encode request: %w", err))
	}
	if len(b.b) > max {
		n := len(b.b)
		b.release()
		return body{}, NewError(CodeInvalidArgument, fmt.Sprintf("the request is %d bytes, over the wire limit of %d bytes", n, max)).
			WithHint("send less content in one call")
	}
	return b, nil
}
