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

// raw encodes the fields of a frame as Encode does, but as they are given, right or wrong.
func raw(tag string, cmd byte, id, service, traceparent, body []byte) [][]byte {
	b := append([]byte(tag), cmd, byte(len(id)))
	b = append(b, id...)
	b = append(b, byte(len(service)))
	b = append(b, service...)
	b = append(b, byte(len(traceparent)))
	b = append(b, traceparent...)
	return [][]byte{append(b, body...)}
}

func TestDecodeFrameRefuses(t *testing.T) {
	t.Parallel()
	id := NewRequestID()
	reply := byte(CommandReply)
	good := raw(Protocol, reply, id[:], nil, nil, []byte("x"))
	if _, err := DecodeFrame(good, 10); err != nil {
		t.Fatalf("the frame the cases start from: %v", err)
	}
	old := [][]byte{[]byte("HOOT/1"), {reply}, id[:], nil, nil, []byte("x")}
	testCases := []struct {
		name  string
		parts [][]byte
		want  string
	}{
		{"no parts", nil, "0 parts"},
		{"two parts", append(raw(Protocol, reply, id[:], nil, nil, nil), []byte("x")), "2 parts"},
		{"six parts of HOOT/1", old, "older version of the wire"},
		{"wrong tag", raw("HOOT/1", reply, id[:], nil, nil, nil), "protocol tag"},
		{"only a tag", [][]byte{[]byte(Protocol)}, "unknown command"},
		{"unknown command", raw(Protocol, 99, id[:], nil, nil, nil), "unknown command"},
		{"zero command", raw(Protocol, 0, id[:], nil, nil, nil), "unknown command"},
		{"cut in the id", [][]byte{append([]byte(Protocol), reply, 16, 1, 2)}, "ends inside its request id"},
		{"no service length", [][]byte{append(append([]byte(Protocol), reply, 16), id[:]...)}, "ends inside its service"},
		{"short id", raw(Protocol, reply, id[:15], nil, nil, nil), "16-byte request id"},
		{"zero id", raw(Protocol, reply, make([]byte, 16), nil, nil, nil), "zero request id"},
		{"id on heartbeat", raw(Protocol, byte(CommandHeartbeat), id[:], nil, nil, nil), "carries no request id"},
		{"long service", raw(Protocol, reply, id[:], bytes.Repeat([]byte("a"), 65), nil, nil), "service name of 65 bytes"},
		{"bad service", raw(Protocol, reply, id[:], []byte("Cas"), nil, nil), "outside [a-z0-9_]"},
		{"bad traceparent", raw(Protocol, reply, id[:], nil, []byte("00-xyz"), nil), "malformed traceparent"},
		{"zero trace id", raw(Protocol, reply, id[:], nil, []byte("00-00000000000000000000000000000000-00f067aa0ba902b7-01"), nil), "malformed traceparent"},
		{"big body", raw(Protocol, reply, id[:], nil, nil, make([]byte, 11)), "over the limit of 10"},
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
	if _, err := DecodeFrame(raw(Protocol, reply, id[:], nil, nil, make([]byte, 11)), 10); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("a body over the limit: err = %v, want ErrFrameTooLarge", err)
	}
}

func TestFrameHeaderBound(t *testing.T) {
	t.Parallel()
	f := Frame{Command: CommandRequest, ID: NewRequestID(), Service: strings.Repeat("s", MaxServiceLen), Traceparent: tp}
	if n := len(f.Encode()); n != MaxHeaderLen {
		t.Fatalf("the largest header takes %d bytes, MaxHeaderLen says %d", n, MaxHeaderLen)
	}
}

func FuzzDecodeFrame(f *testing.F) {
	seed := Frame{Command: CommandRequest, ID: NewRequestID(), Service: "cas", Traceparent: tp, Body: []byte{8, 1}}
	f.Add(seed.Encode())
	hb := Frame{Command: CommandHeartbeat}
	f.Add(hb.Encode())
	f.Add([]byte{})
	f.Add([]byte(Protocol + "\x02\x10"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := DecodeFrame([][]byte{data}, 1024)
		if err != nil {
			return
		}
		// Whatever decodes must encode back to the same bytes and decode to the same frame.
		enc := fr.Encode()
		if !bytes.Equal(enc, data) {
			t.Fatalf("a decoded frame encodes to other bytes")
		}
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
		if err := fr.Check(1024); err != nil {
			t.Fatalf("Check refuses a frame DecodeFrame took: %v", err)
		}
	})
}

// TestCheckAgreesWithDecode checks that what Check refuses before a send is what the other
// side's DecodeFrame would refuse, so that a bad frame fails at its sender.
func TestCheckAgreesWithDecode(t *testing.T) {
	good := Frame{Command: CommandRequest, ID: NewRequestID(), Service: "cas", Traceparent: tp, Body: []byte{8, 1}}
	for _, tc := range []struct {
		name  string
		spoil func(*Frame)
	}{
		{"unknown command", func(f *Frame) { f.Command = maxCommand + 1 }},
		{"zero id", func(f *Frame) { f.ID = RequestID{} }},
		{"service with a capital", func(f *Frame) { f.Service = "Cas" }},
		{"service too long", func(f *Frame) { f.Service = strings.Repeat("s", MaxServiceLen+1) }},
		{"traceparent in upper case", func(f *Frame) { f.Traceparent = strings.ToUpper(tp) }},
		{"traceparent of version ff", func(f *Frame) { f.Traceparent = "ff" + tp[2:] }},
		{"traceparent cut short", func(f *Frame) { f.Traceparent = tp[:40] }},
		{"body over the limit", func(f *Frame) { f.Body = make([]byte, 2048) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := good
			tc.spoil(&f)
			checkErr := f.Check(1024)
			if !errors.Is(checkErr, ErrFrame) {
				t.Fatalf("Check = %v, want an error wrapping ErrFrame", checkErr)
			}
			if f.Command <= maxCommand && len(f.Service) <= 255 {
				if _, err := DecodeFrame(f.Parts(), 1024); err == nil {
					t.Fatalf("DecodeFrame takes the frame Check refused (%v)", checkErr)
				}
			}
		})
	}
	if err := good.Check(1024); err != nil {
		t.Fatalf("Check refuses a good frame: %v", err)
	}
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
