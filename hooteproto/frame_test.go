package hooteproto

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestFrameRoundTrip(t *testing.T) {
	t.Parallel()
	in := Frame{Command: CommandRequest, ID: NewRequestID(), Service: "cas", Traceparent: tp, Body: []byte{1, 2, 3}}
	out, err := DecodeFrame(in.Parts(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if out.Command != in.Command || out.ID != in.ID || out.Service != in.Service || out.Traceparent != in.Traceparent || !bytes.Equal(out.Body, in.Body) {
		t.Fatalf("round trip changed the frame: %+v -> %+v", in, out)
	}
	hb := Frame{Command: CommandHeartbeat}
	if _, err := DecodeFrame(hb.Parts(), 0); err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
}

func TestDecodeFrameRefuses(t *testing.T) {
	t.Parallel()
	id := NewRequestID()
	good := func() [][]byte {
		f := Frame{Command: CommandReply, ID: id, Body: []byte("x")}
		return f.Parts()
	}
	with := func(i int, b []byte) [][]byte { p := good(); p[i] = b; return p }
	testCases := []struct {
		name  string
		parts [][]byte
		want  string
	}{
		{"too few parts", good()[:5], "5 parts"},
		{"too many parts", append(good(), nil), "7 parts"},
		{"wrong tag", with(0, []byte("HOOT/2")), "protocol tag"},
		{"empty command", with(1, nil), "unknown command"},
		{"unknown command", with(1, []byte{99}), "unknown command"},
		{"two-byte command", with(1, []byte{2, 2}), "unknown command"},
		{"short id", with(2, make([]byte, 15)), "16-byte request id"},
		{"zero id", with(2, make([]byte, 16)), "zero request id"},
		{"id on heartbeat", func() [][]byte { p := with(1, []byte{byte(CommandHeartbeat)}); return p }(), "carries no request id"},
		{"long service", with(3, bytes.Repeat([]byte("a"), 65)), "service name of 65 bytes"},
		{"bad service", with(3, []byte("Cas")), "outside [a-z0-9_]"},
		{"bad traceparent", with(4, []byte("00-xyz")), "malformed traceparent"},
		{"zero trace id", with(4, []byte("00-00000000000000000000000000000000-00f067aa0ba902b7-01")), "malformed traceparent"},
		{"big body", with(5, make([]byte, 11)), "over the limit of 10"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeFrame(tc.parts, 10)
			if err == nil || !errors.Is(err, ErrFrame) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrFrame mentioning %q", err, tc.want)
			}
		})
	}
}

func FuzzDecodeFrame(f *testing.F) {
	seed := Frame{Command: CommandRequest, ID: NewRequestID(), Service: "cas", Traceparent: tp, Body: []byte{8, 1}}
	p := seed.Parts()
	f.Add(p[0], p[1], p[2], p[3], p[4], p[5])
	f.Add([]byte("HOOT/1"), []byte{6}, []byte{}, []byte{}, []byte{}, []byte{})
	f.Add([]byte{}, []byte{}, []byte{}, []byte{}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, a, b, c, d, e, body []byte) {
		fr, err := DecodeFrame([][]byte{a, b, c, d, e, body}, 1024)
		if err != nil {
			return
		}
		// Whatever decodes must encode back to the same parts and decode to the same frame.
		again, err := DecodeFrame(fr.Parts(), 1024)
		if err != nil {
			t.Fatalf("re-decoding a decoded frame failed: %v", err)
		}
		if again.Command != fr.Command || again.ID != fr.ID || again.Service != fr.Service || again.Traceparent != fr.Traceparent || !bytes.Equal(again.Body, fr.Body) {
			t.Fatalf("frame changed on a round trip")
		}
		if len(fr.Body) > 1024 || len(fr.Service) > MaxServiceLen {
			t.Fatalf("bounds not enforced")
		}
	})
}

func TestCommandStrings(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for c := minCommand; c <= maxCommand; c++ {
		s := c.String()
		if strings.HasPrefix(s, "COMMAND_") || seen[s] {
			t.Errorf("command %d has no name of its own: %q", c, s)
		}
		seen[s] = true
	}
}

func TestNextTraceparent(t *testing.T) {
	t.Parallel()
	child := NextTraceparent(tp)
	if !ValidTraceparent(child) || child[:36] != tp[:36] || child[36:52] == tp[36:52] || child[52:] != tp[52:] {
		t.Fatalf("child of %s = %s: want the same trace and flags with a new span", tp, child)
	}
	for _, parent := range []string{"", "garbage"} {
		fresh := NextTraceparent(parent)
		if !ValidTraceparent(fresh) || fresh == NextTraceparent(parent) {
			t.Fatalf("NextTraceparent(%q) = %s: want a new valid trace each time", parent, fresh)
		}
	}
}
