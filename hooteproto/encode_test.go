package hooteproto

import (
	"bytes"
	"testing"
)

// TestAppendEncode checks that AppendEncode appends exactly Encode's bytes after what the
// buffer holds, that EncodedLen is their length, and that the result decodes to the frame.
func TestAppendEncode(t *testing.T) {
	t.Parallel()
	id := NewRequestID()
	for _, f := range []Frame{
		{Command: CommandHeartbeat},
		{Command: CommandReady, Body: []byte("ready")},
		{Command: CommandRequest, ID: id, Service: "system", Traceparent: tp, Body: []byte("a body")},
		{Command: CommandReply, ID: id, Body: bytes.Repeat([]byte{7}, 3000)},
	} {
		enc := f.Encode()
		if len(enc) != f.EncodedLen() {
			t.Errorf("%s: Encode gives %d bytes, EncodedLen says %d", f.Command, len(enc), f.EncodedLen())
		}
		prefix := []byte("kept")
		got := f.AppendEncode(append(make([]byte, 0, 8), prefix...))
		if !bytes.Equal(got[:len(prefix)], prefix) || !bytes.Equal(got[len(prefix):], enc) {
			t.Errorf("%s: AppendEncode = %q, want %q and then %q", f.Command, got, prefix, enc)
		}
		back, err := DecodeFrame([][]byte{got[len(prefix):]}, 0)
		if err != nil || back.Command != f.Command || back.ID != f.ID && f.Command.needsID() || !bytes.Equal(back.Body, f.Body) {
			t.Errorf("%s: decoded to %+v, %v", f.Command, back, err)
		}
	}
}
