package arguments

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// flatRequestTypes returns the message types of hoot.v1 whose arguments readFlat reads.
func flatRequestTypes() []protoreflect.MessageType {
	_ = hootv1.EchoRequest{} // the package's types are registered
	var out []protoreflect.MessageType
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		if mt.Descriptor().ParentFile().Package() == "hoot.v1" && readerOf(mt.Descriptor()) != nil {
			out = append(out, mt)
		}
		return true
	})
	return out
}

// sameAsProtojson reads doc into a new message of mt both ways and fails t when readFlat
// takes doc and protojson does not, or reads it into another message. It reports whether
// readFlat took doc.
func sameAsProtojson(t testing.TB, mt protoreflect.MessageType, doc []byte) bool {
	t.Helper()
	fast := mt.New()
	ok := readFlat(doc, fast)
	slow := mt.New().Interface()
	err := protojson.Unmarshal(doc, slow)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%s: readFlat took %s, which protojson refuses: %v", mt.Descriptor().FullName(), doc, err)
	}
	if !proto.Equal(fast.Interface(), slow) {
		t.Fatalf("%s: %s read as %v, protojson reads %v", mt.Descriptor().FullName(), doc, fast.Interface(), slow)
	}
	return true
}

// flatMembers are member values of every form: the ones readFlat reads and the ones it
// leaves to protojson.
var flatMembers = []string{
	`""`, `"hello"`, `"tab\tnew\nline \"q\" \\ \/"`, `"naïve ♪ 🎵"`, `"\u00e9"`, `"\ud800"`, `"X:1\nK:C\nCDEF|"`,
	`0`, `1`, `-1`, `-0`, `42`, `2147483647`, `2147483648`, `-2147483649`, `4294967295`, `4294967296`,
	`9223372036854775807`, `9223372036854775808`, `18446744073709551615`, `1e2`, `1.0`, `1.5`, `"7"`, `"-7"`,
	`true`, `false`, `null`, `[]`, `["a"]`, `{}`, `{"a":1}`,
}

// TestFlatDecodeMatchesProtojson: for every flat request type of hoot.v1, objects of every
// member name (proto, JSON, unknown, differently cased) and value form, with members
// repeated, are read by readFlat only when protojson reads them, and into the same message.
func TestFlatDecodeMatchesProtojson(t *testing.T) {
	t.Parallel()
	types := flatRequestTypes()
	if readerOf((&hootv1.EchoRequest{}).ProtoReflect().Descriptor()) == nil {
		t.Fatal("echo's request is not flat")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	taken := 0
	for _, mt := range types {
		fds := mt.Descriptor().Fields()
		names, values := []string{"unknown_member", "UPPER"}, flatMembers
		for i := range fds.Len() {
			fd := fds.Get(i)
			names = append(names, string(fd.Name()), fd.JSONName(), strings.ToUpper(string(fd.Name())))
			if fd.Enum() != nil {
				for j := range fd.Enum().Values().Len() {
					values = append(values, fmt.Sprintf("%q", fd.Enum().Values().Get(j).Name()), fmt.Sprintf("%q", strings.ToLower(string(fd.Enum().Values().Get(j).Name()))))
				}
			}
		}
		for range 300 {
			var b strings.Builder
			b.WriteByte('{')
			for j := range rng.IntN(4) {
				if j > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%q:%s", names[rng.IntN(len(names))], values[rng.IntN(len(values))])
			}
			b.WriteByte('}')
			if sameAsProtojson(t, mt, []byte(b.String())) {
				taken++
			}
		}
	}
	if taken == 0 {
		t.Fatal("readFlat took none of the documents")
	}
	t.Logf("%d flat request types; readFlat took %d of %d documents", len(types), taken, 300*len(types))
	// The common call reads fast.
	if !sameAsProtojson(t, (&hootv1.EchoRequest{}).ProtoReflect().Type(), []byte(`{"message":"hello, bench"}`)) {
		t.Fatal("readFlat did not take echo's arguments")
	}
}

// FuzzFlatDecode: any text, read as the arguments of any flat request type of hoot.v1, is
// read by readFlat only when protojson reads it, and into the same message.
func FuzzFlatDecode(f *testing.F) {
	for _, v := range flatMembers {
		f.Add([]byte(`{"message":`+v+`}`), uint8(0))
	}
	f.Add([]byte(`{"message":"a","message":"b"}`), uint8(0))
	f.Add([]byte(`{"x":1,"y":"z"}`), uint8(5))
	types := flatRequestTypes()
	echo := (&hootv1.EchoRequest{}).ProtoReflect().Type()
	f.Fuzz(func(t *testing.T, doc []byte, pick uint8) {
		sameAsProtojson(t, echo, doc)
		sameAsProtojson(t, types[int(pick)%len(types)], doc)
	})
}
