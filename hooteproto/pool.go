package hooteproto

import (
	"sync"

	"google.golang.org/protobuf/proto"
)

// bodyPool keeps the buffers that the broker's requests and the worker's replies are encoded
// into: a Conn does not keep a frame's body once Send has returned (it encodes the frame into
// a buffer of its own), so the buffer serves the next frame. Buffers larger than
// maxPooledBody are left to the collector rather than kept.
var bodyPool = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledBody = 16 << 10

// A body is a message encoded into a buffer of bodyPool.
type body struct {
	b   []byte
	buf *[]byte
}

// marshalBody encodes m into a buffer of bodyPool.
func marshalBody(m proto.Message) (body, error) {
	buf := bodyPool.Get().(*[]byte)
	b, err := proto.MarshalOptions{}.MarshalAppend((*buf)[:0], m)
	return body{b: b, buf: buf}, err
}

// release gives the body's buffer back to bodyPool, once the frame that carried it is sent.
func (b *body) release() {
	if b.buf != nil && cap(b.b) <= maxPooledBody {
		*b.buf = b.b[:0]
		bodyPool.Put(b.buf)
	}
	b.b, b.buf = nil, nil
}
