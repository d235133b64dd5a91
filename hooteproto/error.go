package hooteproto

import (
	"context"
	"errors"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

// An Error is a failure with a [Code], written for the caller to act on: a message, the
// argument it is about, the next right step and whether a retry can help. Handlers return it,
// the wire carries it as a hoot.v1.ToolError, and the gateway shows it to the MCP client.
type Error struct {
	code       Code
	msg        string
	field      string
	hint       string
	retryable  bool
	retryAfter time.Duration
	cause      error
}

// NewError returns an Error with the given code and message. Errors of codes that a retry may
// cure (unavailable, deadline exceeded, overloaded) start out retryable.
func NewError(code Code, msg string) *Error {
	return &Error{code: code, msg: msg, retryable: code.retryableByDefault()}
}

// WrapError returns an Error with the given code whose message is cause's, and which unwraps
// to cause.
func WrapError(code Code, cause error) *Error {
	e := NewError(code, cause.Error())
	e.cause = cause
	return e
}

// WithField sets the argument the error is about (its JSON name, dotted when nested) and
// returns e.
func (e *Error) WithField(field string) *Error { e.field = field; return e }

// WithHint sets the next right step for the caller and returns e.
func (e *Error) WithHint(hint string) *Error { e.hint = hint; return e }

// WithRetryAfter marks e retryable after d and returns e.
func (e *Error) WithRetryAfter(d time.Duration) *Error {
	e.retryable, e.retryAfter = true, d
	return e
}

// WithRetryable sets whether a retry of the same call may succeed and returns e.
func (e *Error) WithRetryable(retryable bool) *Error { e.retryable = retryable; return e }

// Code returns the error's code.
func (e *Error) Code() Code { return e.code }

// Message returns the error's message without its code.
func (e *Error) Message() string { return e.msg }

// Field returns the argument the error is about, or "".
func (e *Error) Field() string { return e.field }

// Hint returns the next right step, or "".
func (e *Error) Hint() string { return e.hint }

// Retryable reports whether the same call may succeed if made again.
func (e *Error) Retryable() bool { return e.retryable }

// RetryAfter returns how long to wait before retrying, or 0.
func (e *Error) RetryAfter() time.Duration { return e.retryAfter }

// Error returns the code and the message.
func (e *Error) Error() string {
	if e.field != "" {
		return e.code.String() + ": " + e.field + ": " + e.msg
	}
	return e.code.String() + ": " + e.msg
}

// Unwrap returns the error's cause, if any.
func (e *Error) Unwrap() error { return e.cause }

// AsError returns err as an *Error: itself when it is one (or wraps one), a deadline or
// cancellation error for context errors, and an internal error otherwise. A nil err gives nil.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return WrapError(CodeDeadlineExceeded, err).WithHint("the call ran out of time; try again, or ask for less work at once")
	case errors.Is(err, context.Canceled):
		return WrapError(CodeCanceled, err)
	}
	return WrapError(CodeInternal, err)
}

// CodeOf returns the code of err: its own for an *Error, the matching code for context errors,
// and CodeInternal for anything else. A nil err has no code: CodeOf returns 0.
func CodeOf(err error) Code {
	if err == nil {
		return 0
	}
	return AsError(err).Code()
}

// ToolErrorOf returns err in its wire form. A nil err gives nil.
func ToolErrorOf(err error) *hootv1.ToolError {
	e := AsError(err)
	if e == nil {
		return nil
	}
	return &hootv1.ToolError{
		Category:     e.code.Category(),
		Message:      e.msg,
		Field:        e.field,
		Retryable:    e.retryable,
		Hint:         e.hint,
		RetryAfterMs: uint32(min(e.retryAfter.Milliseconds(), int64(^uint32(0)))),
	}
}

// ErrorFromTool returns the Error that te carries. A nil te gives nil.
func ErrorFromTool(te *hootv1.ToolError) *Error {
	if te == nil {
		return nil
	}
	code := Code(te.GetCategory())
	if code < minCode || code > maxCode {
		code = CodeInternal
	}
	return &Error{
		code:       code,
		msg:        te.GetMessage(),
		field:      te.GetField(),
		hint:       te.GetHint(),
		retryable:  te.GetRetryable(),
		retryAfter: time.Duration(te.GetRetryAfterMs()) * time.Millisecond,
	}
}
