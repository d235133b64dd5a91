package hooteproto

import (
	"fmt"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

// A Code is the kind of failure an [Error] reports. The set is closed and each value is the
// number of the matching hoot.v1.ErrorCategory, so a Code crosses the wire as a category.
//
// There is no CodeOK: success is a nil error.
type Code uint32

const (
	// CodeInvalidArgument: the arguments are wrong; fix them and call again.
	CodeInvalidArgument Code = Code(hootv1.ErrorCategory_ERROR_CATEGORY_VALIDATION)
	// CodeNotFound: something the call names does not exist.
	CodeNotFound Code = Code(hootv1.ErrorCategory_ERROR_CATEGORY_NOT_FOUND)
	// CodeUnavailable: no worker can serve the call now; a retry later may succeed.
	CodeUnavailable Code = Code(hootv1.ErrorCategory_ERROR_CATEGORY_UNAVAILABLE)
	// CodeDeadlineExceeded: the call ran out of time.
	CodeDeadlineExceeded Code = Code(hootv1.ErrorCategory_ERROR_CATEGORY_TIMEOUT)
	// CodeCanceled: the caller cancelled the call.
	CodeCanceled Code = Code(hootv1.ErrorCategory_ERROR_CATEGORY_CANCELLED)
	// CodePermissionDenied: the caller may not do this.
	CodePermissionDenied Code = Code(hootv1.ErrorCategory_ERROR_CATEGORY_PERMISSION)
	// CodeInternal: a fault inside the server.
	CodeInternal Code = Code(hootv1.ErrorCategory_ERROR_CATEGORY_INTERNAL)
	// CodeOverloaded: the server is at capacity; retry after the error's RetryAfter.
	CodeOverloaded Code = Code(hootv1.ErrorCategory_ERROR_CATEGORY_OVERLOADED)

	minCode = CodeInvalidArgument
	maxCode = CodeOverloaded
)

// String returns the code in snake_case, such as "not_found".
func (c Code) String() string {
	switch c {
	case CodeInvalidArgument:
		return "invalid_argument"
	case CodeNotFound:
		return "not_found"
	case CodeUnavailable:
		return "unavailable"
	case CodeDeadlineExceeded:
		return "deadline_exceeded"
	case CodeCanceled:
		return "canceled"
	case CodePermissionDenied:
		return "permission_denied"
	case CodeInternal:
		return "internal"
	case CodeOverloaded:
		return "overloaded"
	}
	return fmt.Sprintf("code_%d", uint32(c))
}

// MarshalText implements [encoding.TextMarshaler].
func (c Code) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText implements [encoding.TextUnmarshaler]; it accepts what String returns.
func (c *Code) UnmarshalText(b []byte) error {
	s := string(b)
	for code := minCode; code <= maxCode; code++ {
		if code.String() == s {
			*c = code
			return nil
		}
	}
	var n uint32
	if _, err := fmt.Sscanf(s, "code_%d", &n); err == nil && strings.HasPrefix(s, "code_") {
		*c = Code(n)
		return nil
	}
	return fmt.Errorf("hooteproto: invalid code %q", s)
}

// Category returns the wire category of c.
func (c Code) Category() hootv1.ErrorCategory {
	if c < minCode || c > maxCode {
		return hootv1.ErrorCategory_ERROR_CATEGORY_INTERNAL
	}
	return hootv1.ErrorCategory(c)
}

// retryableByDefault reports whether an error of this code is worth retrying unchanged.
func (c Code) retryableByDefault() bool {
	return c == CodeUnavailable || c == CodeDeadlineExceeded || c == CodeOverloaded
}
