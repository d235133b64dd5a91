package hooteproto

import (
	"encoding/binary"
	"fmt"
)

// BatchProtocol is the tag of a message that carries several frames for the same peer at once:
//
//	the tag, 6 bytes ("HOOT/3")
//	then, for each frame, its length as a uvarint and the frame's HOOT/2 encoding without the
//	tag ([Frame.Encode] after Protocol)
//
// A transport sends one when several frames for one peer wait to leave together, so that they
// cost one ZeroMQ message instead of one each; a lone frame still leaves as HOOT/2. A peer that
// speaks only HOOT/2 refuses a batch as a frame with an unknown protocol tag, so a transport sends
// batches only to peers that have shown they read them (package zmqtransport says how).
const BatchProtocol = "HOOT/3"

// MaxBatchFrames bounds how many frames one batch may carry.
const MaxBatchFrames = 256

// AppendBatchFrame appends one frame's encoding (from [Frame.Encode], with its HOOT/2 tag) to
// a batch under construction; a batch starts as BatchProtocol.
func AppendBatchFrame(batch, encoded []byte) []byte {
	rest := encoded[len(Protocol):]
	batch = binary.AppendUvarint(batch, uint64(len(rest)))
	return append(batch, rest...)
}

// IsBatch reports whether a message part is a batch (starts with BatchProtocol).
func IsBatch(b []byte) bool {
	return len(b) >= len(BatchProtocol) && string(b[:len(BatchProtocol)]) == BatchProtocol
}

// DecodeBatch checks a batch and appends its frames to frames. Every frame is checked as
// DecodeFrame checks one (maxBody bounds each body); a batch holds at least one frame and at most
// MaxBatchFrames, each length must fit in what is left, and nothing may follow the last frame.
// One bad frame makes the whole batch bad: the error says which, and frames is returned as it
// was given. The frames' bodies share memory with b.
func DecodeBatch(b []byte, maxBody int, frames []Frame) ([]Frame, error) {
	if !IsBatch(b) {
		return frames, fmt.Errorf("%w: protocol tag %q, want %q", ErrFrame, truncate(b, len(BatchProtocol)), BatchProtocol)
	}
	start := len(frames)
	b = b[len(BatchProtocol):]
	if len(b) == 0 {
		return frames, fmt.Errorf("%w: a batch of no frames", ErrFrame)
	}
	for i := 0; len(b) > 0; i++ {
		if i == MaxBatchFrames {
			return frames[:start], fmt.Errorf("%w: a batch of more than %d frames", ErrFrame, MaxBatchFrames)
		}
		n, used := binary.Uvarint(b)
		if used <= 0 || n > uint64(len(b)-used) {
			return frames[:start], fmt.Errorf("%w: frame %d of the batch: its length does not fit in the batch", ErrFrame, i+1)
		}
		f, err := decodeFields(b[used:used+int(n)], maxBody)
		if err != nil {
			return frames[:start], fmt.Errorf("frame %d of the batch: %w", i+1, err)
		}
		frames = append(frames, f)
		b = b[used+int(n):]
	}
	return frames, nil
}
