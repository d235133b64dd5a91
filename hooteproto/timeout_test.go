package hooteproto

import (
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// requestTimeoutSeeds are encoded requests of every shape requestTimeout must read as
// proto.Unmarshal does: none, one, a repeated field (the last counts), one of another wire type
// (not the field), fields before and after it, and broken ones.
func requestTimeoutSeeds(t testing.TB) [][]byte {
	full, err := proto.Marshal(&hootv1.Request{
		Payload:   &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: "hello"}}},
		TimeoutMs: 30000,
		AsJob:     true,
		Caller:    &hootv1.Caller{Principal: "token:ci"},
	})
	if err != nil {
		t.Fatal(err)
	}
	num := protowire.Number(requestTimeoutField)
	twice := protowire.AppendVarint(protowire.AppendTag(full, num, protowire.VarintType), 7)
	otherType := protowire.AppendFixed32(protowire.AppendTag(nil, num, protowire.Fixed32Type), 9)
	huge := protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), 1<<40+5)
	return [][]byte{nil, {}, full, twice, otherType, append(otherType, twice...), huge, full[:len(full)-1], {0xff}, {0x10}}
}

// TestRequestTimeout checks requestTimeout against proto.Unmarshal on the seeds: where the
// request decodes, both read the same timeout.
func TestRequestTimeout(t *testing.T) {
	decoded := 0
	for i, b := range requestTimeoutSeeds(t) {
		var req hootv1.Request
		if proto.Unmarshal(b, &req) != nil {
			continue
		}
		decoded++
		if got, want := requestTimeout(b), req.GetTimeoutMs(); got != want {
			t.Errorf("seed %d: requestTimeout = %d, proto.Unmarshal reads %d", i, got, want)
		}
	}
	if decoded < 6 {
		t.Errorf("only %d seeds decode", decoded)
	}
	if got := requestTimeout(requestTimeoutSeeds(t)[3]); got != 7 {
		t.Errorf("a repeated timeout_ms: %d, want the last, 7", got)
	}
}

// FuzzRequestTimeout checks requestTimeout against proto.Unmarshal on any input: where the
// request decodes, both read the same timeout; where it does not, requestTimeout returns
// without failing (the call then fails as it decodes the request).
func FuzzRequestTimeout(f *testing.F) {
	for _, b := range requestTimeoutSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := requestTimeout(b)
		var req hootv1.Request
		if proto.Unmarshal(b, &req) == nil && got != req.GetTimeoutMs() {
			t.Fatalf("requestTimeout = %d, proto.Unmarshal reads %d", got, req.GetTimeoutMs())
		}
	})
}
