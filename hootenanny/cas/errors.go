package cas

import (
	"errors"
	"fmt"
)

// These are the errors that the store's errors match with [errors.Is].
var (
	// ErrNotFound reports that no object has the hash asked for.
	ErrNotFound = errors.New("cas: object not found")
	// ErrInvalidHash reports a string that is not a hash; the error is a [*HashError].
	ErrInvalidHash = errors.New("cas: invalid hash")
	// ErrInvalidMediaType reports a malformed media type; the error is a [*MediaTypeError].
	ErrInvalidMediaType = errors.New("cas: invalid media type")
	// ErrTooLarge reports content larger than the store takes; the error is a
	// [*TooLargeError].
	ErrTooLarge = errors.New("cas: object too large")
	// ErrOutOfRange reports a range that does not lie within an object; for an offset past
	// the end, the error is a [*RangeError].
	ErrOutOfRange = errors.New("cas: range out of bounds")
	// ErrUnavailable reports a store that cannot be reached now: its server does not answer,
	// or answers that it cannot serve. A later try may succeed. The error is an
	// [*UnavailableError].
	ErrUnavailable = errors.New("cas: the object store is unavailable")
)

// A HashError reports a string that is not a hash.
type HashError struct {
	// Problem says what is wrong, such as "hash has 63 characters".
	Problem string
}

// Error returns the problem and what a hash looks like.
func (e *HashError) Error() string {
	return e.Problem + "; a hash is 64 lowercase hex digits"
}

// Is reports whether target is [ErrInvalidHash].
func (e *HashError) Is(target error) bool { return target == ErrInvalidHash }

// A MediaTypeError reports a malformed media type.
type MediaTypeError struct {
	// MediaType is the rejected media type.
	MediaType string
	// Problem says what is wrong with it and what is expected.
	Problem string
}

// Error returns the problem.
func (e *MediaTypeError) Error() string { return e.Problem }

// Is reports whether target is [ErrInvalidMediaType].
func (e *MediaTypeError) Is(target error) bool { return target == ErrInvalidMediaType }

// A TooLargeError reports content larger than the store's limit. Nothing of it is kept.
type TooLargeError struct {
	// Limit is the largest object the store takes, in bytes.
	Limit int64
}

// Error names the limit.
func (e *TooLargeError) Error() string {
	return "content is larger than the store's limit of " + FormatSize(e.Limit)
}

// Is reports whether target is [ErrTooLarge].
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// A RangeError reports a read that starts past the end of an object.
type RangeError struct {
	// Offset is where the read was to start.
	Offset int64
	// Size is the object's size in bytes.
	Size int64
}

// Error names the offset and the object's size.
func (e *RangeError) Error() string {
	return fmt.Sprintf("offset %d is past the end of the object, which is %s long", e.Offset, FormatSize(e.Size))
}

// Is reports whether target is [ErrOutOfRange].
func (e *RangeError) Is(target error) bool { return target == ErrOutOfRange }

// An UnavailableError reports a store that cannot be reached now.
type UnavailableError struct {
	// Store is where the store is, as [Store.String] says.
	Store string
	// Err is what happened, such as a refused connection or a server's 503.
	Err error
}

// Error names the store and the cause.
func (e *UnavailableError) Error() string {
	return "the object store " + e.Store + " is unavailable: " + e.Err.Error()
}

// Is reports whether target is [ErrUnavailable].
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// Unwrap returns the cause.
func (e *UnavailableError) Unwrap() error { return e.Err }

// FormatSize returns n bytes for people: "10 bytes", "1 byte", or, for whole KiB, MiB or GiB,
// "64 MiB (67108864 bytes)".
func FormatSize(n int64) string {
	bytes := fmt.Sprintf("%d bytes", n)
	if n == 1 {
		bytes = "1 byte"
	}
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s (%s)", n/u.size, u.name, bytes)
		}
	}
	return bytes
}
