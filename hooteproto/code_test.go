package hooteproto

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

func TestCode(t *testing.T) {
	t.Parallel()
	for c := minCode; c <= maxCode; c++ {
		s := c.String()
		if strings.HasPrefix(s, "code_") {
			t.Errorf("code %d has no name", c)
		}
		var back Code
		if err := back.UnmarshalText([]byte(s)); err != nil || back != c {
			t.Errorf("UnmarshalText(%q) = %v, %v", s, back, err)
		}
		// Each code must be the wire category of the same number, with a matching name.
		cat := c.Category()
		if _, ok := hootv1.ErrorCategory_name[int32(cat)]; !ok || cat == hootv1.ErrorCategory_ERROR_CATEGORY_UNSPECIFIED {
			t.Errorf("code %v has no wire category", c)
		}
	}
	if n := len(hootv1.ErrorCategory_name) - 1; n != int(maxCode-minCode+1) {
		t.Errorf("the wire has %d error categories, the code set %d: add the new one to code.go", n, maxCode-minCode+1)
	}
	var c Code
	if err := c.UnmarshalText([]byte("nonsense")); err == nil {
		t.Error("UnmarshalText accepted nonsense")
	}
}

func TestErrorRoundTrip(t *testing.T) {
	t.Parallel()
	e := NewError(CodeNotFound, "no object with hash abc").WithField("hash").WithHint("store it first")
	back := ErrorFromTool(ToolErrorOf(e))
	if back.Code() != CodeNotFound || back.Message() != e.Message() || back.Field() != "hash" || back.Hint() != "store it first" || back.Retryable() {
		t.Fatalf("round trip changed the error: %v -> %v", e, back)
	}
	o := ErrorFromTool(ToolErrorOf(NewError(CodeOverloaded, "busy").WithRetryAfter(250 * time.Millisecond)))
	if !o.Retryable() || o.RetryAfter() != 250*time.Millisecond {
		t.Fatalf("retry-after lost: %v %v", o.Retryable(), o.RetryAfter())
	}
}

func TestAsError(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		err  error
		want Code
	}{
		{context.DeadlineExceeded, CodeDeadlineExceeded},
		{fmt.Errorf("wrapped: %w", context.Canceled), CodeCanceled},
		{errors.New("disk on fire"), CodeInternal},
		{fmt.Errorf("x: %w", NewError(CodePermissionDenied, "no")), CodePermissionDenied},
	}
	for _, tc := range testCases {
		if got := CodeOf(tc.err); got != tc.want {
			t.Errorf("CodeOf(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	if AsError(nil) != nil || ToolErrorOf(nil) != nil || ErrorFromTool(nil) != nil {
		t.Error("nil must stay nil")
	}
}

// TestIsIdempotent checks the table read from the schema's options against tools whose
// annotations say either way: echo declares itself idempotent, abc_transpose (which may store a
// new artifact each time) and an empty payload do not.
func TestIsIdempotent(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *hootv1.Payload
		want bool
	}{
		{"echo", &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: "hi"}}}, true},
		{"abc_transpose", &hootv1.Payload{Request: &hootv1.Payload_AbcTranspose{AbcTranspose: &hootv1.AbcTransposeRequest{}}}, false},
		{"empty", &hootv1.Payload{}, false},
		{"nil", nil, false},
	} {
		if got := isIdempotent(tc.p); got != tc.want {
			t.Errorf("%s: isIdempotent = %v, want %v", tc.name, got, tc.want)
		}
	}
}
