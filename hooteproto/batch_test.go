package hooteproto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

func batchOf(frames ...Frame) []byte {
	b := []byte(BatchProtocol)
	for _, f := range frames {
		b = AppendBatchFrame(b, f.Encode())
	}
	return b
}

func TestBatchRoundTrip(t *testing.T) {
	t.Parallel()
	frames := []Frame{
		{Command: CommandRequest, ID: NewRequestID(), Service: "cas", Traceparent: tp, Body: []byte{8, 1}},
		{Command: CommandHeartbeat},
		{Command: CommandReply, ID: NewRequestID(), Body: bytes.Repeat([]byte{7}, 300)}, // a two-byte length
	}
	got, err := DecodeBatch(batchOf(frames...), 1024, []Frame{{Command: CommandCancel}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1+len(frames) || got[0].Command != CommandCancel {
		t.Fatalf("got %d frames, want the one given and %d more after it", len(got), len(frames))
	}
	for i, f := range frames {
		g := got[1+i]
		if g.Command != f.Command || g.ID != f.ID || g.Service != f.Service || g.Traceparent != f.Traceparent || !bytes.Equal(g.Body, f.Body) {
			t.Fatalf("frame %d changed in a batch: %+v, want %+v", i, g, f)
		}
	}
}

func TestBatchRefusals(t *testing.T) {
	t.Parallel()
	hb := Frame{Command: CommandHeartbeat}
	good := Frame{Command: CommandReply, ID: NewRequestID(), Body: []byte("x")}
	tooMany := []byte(BatchProtocol)
	for range MaxBatchFrames + 1 {
		tooMany = AppendBatchFrame(tooMany, hb.Encode())
	}
	bigBody := Frame{Command: CommandReply, ID: NewRequestID(), Body: make([]byte, 2048)}
	for _, tc := range []struct {
		name, batch, want string
	}{
		{"a HOOT/2 frame", string(hb.Encode()), `protocol tag "HOOT/2", want "HOOT/3"`},
		{"no frames", BatchProtocol, "a batch of no frames"},
		{"a length past the end", string(append(batchOf(good), 9)), "frame 2 of the batch: its length does not fit"},
		{"a length that overflows", string(append([]byte(BatchProtocol), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)), "frame 1 of the batch: its length does not fit"},
		{"a bad frame after a good one", string(binary.AppendUvarint(batchOf(good), 2)) + "\x63\x00", "frame 2 of the batch: hooteproto: bad frame: unknown command"},
		{"a body over the limit", string(batchOf(good, bigBody)), "frame 2 of the batch: hooteproto: bad frame: too large"},
		{"too many frames", string(tooMany), "more than 256 frames"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			given := []Frame{{Command: CommandCancel}}
			got, err := DecodeBatch([]byte(tc.batch), 1024, given)
			if !errors.Is(err, ErrFrame) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("DecodeBatch = %v, want an error wrapping ErrFrame that says %q", err, tc.want)
			}
			if len(got) != 1 {
				t.Fatalf("a bad batch left %d frames, want only the one given", len(got))
			}
		})
	}
}

func FuzzDecodeBatch(f *testing.F) {
	req := Frame{Command: CommandRequest, ID: NewRequestID(), Service: "cas", Traceparent: tp, Body: []byte{8, 1}}
	hb := Frame{Command: CommandHeartbeat}
	f.Add(batchOf(req))
	f.Add(batchOf(req, hb, req))
	f.Add([]byte(BatchProtocol))
	f.Add(append(batchOf(hb), 0x80))
	f.Add(hb.Encode())
	f.Fuzz(func(t *testing.T, data []byte) {
		frames, err := DecodeBatch(data, 1024, nil)
		if err != nil {
			if len(frames) != 0 {
				t.Fatalf("a refused batch gave %d frames", len(frames))
			}
			return
		}
		if len(frames) == 0 || len(frames) > MaxBatchFrames {
			t.Fatalf("a batch of %d frames was taken", len(frames))
		}
		// What decodes must be frames that each pass Check, and encode back to a batch that
		// decodes to the same frames (the bytes may differ: a length may have been written
		// with more bytes than it needs).
		for _, fr := range frames {
			if err := fr.Check(1024); err != nil {
				t.Fatalf("Check refuses a frame DecodeBatch took: %v", err)
			}
		}
		again, err := DecodeBatch(batchOf(frames...), 1024, nil)
		if err != nil {
			t.Fatalf("re-decoding a decoded batch failed: %v", err)
		}
		if len(again) != len(frames) {
			t.Fatalf("%d frames became %d on a round trip", len(frames), len(again))
		}
		for i := range frames {
			a, b := frames[i], again[i]
			if a.Command != b.Command || a.ID != b.ID || a.Service != b.Service || a.Traceparent != b.Traceparent || !bytes.Equal(a.Body, b.Body) {
				t.Fatalf("frame %d changed on a round trip", i)
			}
		}
	})
}
