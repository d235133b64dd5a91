package httpcheck

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"strings"
	"testing"
	"testing/iotest"
)

// TestMediaTypeAgreesWithMime checks the shortcut of MediaType against mime.ParseMediaType.
func TestMediaTypeAgreesWithMime(t *testing.T) {
	for _, v := range []string{
		"application/json", "text/event-stream", "*/*", "application/*", "application/vnd.api+json",
		"Application/JSON", "application/json; charset=utf-8", "application/json ", " text/event-stream",
		"application/", "/json", "application", "", "application/json/x", "text/plain;q=0.9", "a/b@c",
	} {
		got, ok := MediaType(v)
		want, _, err := mime.ParseMediaType(v)
		if ok != (err == nil) || ok && got != want {
			t.Errorf("MediaType(%q) = %q, %v; mime.ParseMediaType gives %q, %v", v, got, ok, want, err)
		}
	}
}

func TestReadBodyMatchesReadAll(t *testing.T) {
	readers := map[string]func(s string) io.Reader{
		"plain":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"data+EOF": func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
		"failing": func(s string) io.Reader {
			return io.MultiReader(strings.NewReader(s), iotest.ErrReader(io.ErrUnexpectedEOF))
		},
	}
	for _, n := range []int{0, 1, 100, 511, 512, 513, 5000} {
		body := strings.Repeat("x", n)
		for name, newReader := range readers {
			want, werr := io.ReadAll(newReader(body))
			for _, declared := range []int64{-1, 0, int64(n) - 1, int64(n), int64(n) + 1, 1 << 20} {
				got, gerr := ReadBody(newReader(body), declared, 1<<24)
				if !bytes.Equal(got, want) || !errors.Is(gerr, werr) {
					t.Fatalf("%s, %d bytes, declared %d: got %d bytes, %v; want %d bytes, %v", name, n, declared, len(got), gerr, len(want), werr)
				}
			}
		}
	}
}

// FuzzMediaType checks MediaType's shortcut against mime.ParseMediaType on any value.
func FuzzMediaType(f *testing.F) {
	for _, v := range []string{"application/json", "text/event-stream; q=0.5", "*/*", "a/b+c.d-e", "A/B", "/", "x/", ""} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := MediaType(v)
		want, _, err := mime.ParseMediaType(v)
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("MediaType(%q) = %q, %v; mime.ParseMediaType gives %q, %v", v, got, ok, want, err)
		}
	})
}
