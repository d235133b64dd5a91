package toolresult

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// protojsonText is what Typed wrote before the flat encoder: resultJSON's text, compacted.
func protojsonText(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := resultJSON.Marshal(m)
	if err != nil {
		t.Fatalf("protojson: %v", err)
	}
	return rawjson.CompactValid(b)
}

// flatTypes returns the message types of hoot.v1 that the flat encoder writes, and how many
// types there are in all.
func flatTypes() (flat []protoreflect.MessageType, all int) {
	_ = hootv1.EchoResult{} // the package's types are registered
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		if mt.Descriptor().ParentFile().Package() != "hoot.v1" {
			return true
		}
		all++
		if planOf(mt.Descriptor()) != nil {
			flat = append(flat, mt)
		}
		return true
	})
	return flat, all
}

// flatStrings are strings that protojson writes in every way it writes strings.
var flatStrings = []string{
	"", "hello, bench", `a "quoted" \ back\slash`, "tab\there\nnew\rline\bback\fform",
	"\x00\x01\x1f\x7f", "<script>&amp;</script>", "naïve café ♪ 🎵", "\u2028\u2029", "\ufffd",
	"ünïcödé\x1b[0m", strings.Repeat("x", 300),
}

// fillFlat sets the fields of m, a flat message, at random: every value kind, lists of zero
// to three, fields with presence set or not.
func fillFlat(rng *rand.Rand, m protoreflect.Message) {
	fds := m.Descriptor().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if (fd.HasPresence() || fd.ContainingOneof() != nil) && rng.IntN(2) == 0 {
			continue
		}
		if fd.IsList() {
			l := m.Mutable(fd).List()
			for range rng.IntN(4) {
				l.Append(randomValue(rng, fd))
			}
			continue
		}
		m.Set(fd, randomValue(rng, fd))
	}
}

func randomValue(rng *rand.Rand, fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(rng.IntN(2) == 1)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(flatStrings[rng.IntN(len(flatStrings))])
	case protoreflect.BytesKind:
		b := make([]byte, rng.IntN(8))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return protoreflect.ValueOfBytes(b)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32([]int32{0, 1, -1, 1 << 30, -1 << 31}[rng.IntN(5)])
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32([]uint32{0, 7, 1<<32 - 1}[rng.IntN(3)])
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64([]int64{0, 42, -1, 1<<63 - 1, -1 << 63}[rng.IntN(5)])
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64([]uint64{0, 42, 1<<64 - 1}[rng.IntN(3)])
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		if rng.IntN(4) == 0 {
			return protoreflect.ValueOfEnum(99) // a number the enum does not name
		}
		return protoreflect.ValueOfEnum(vals.Get(rng.IntN(vals.Len())).Number())
	}
	panic("not a flat kind: " + fd.Kind().String())
}

// TestFlatMatchesProtojson: for every flat message type of hoot.v1, empty and filled at
// random, the flat encoder writes exactly what protojson writes once compacted.
func TestFlatMatchesProtojson(t *testing.T) {
	t.Parallel()
	flat, all := flatTypes()
	if planOf((&hootv1.EchoResult{}).ProtoReflect().Descriptor()) == nil {
		t.Fatal("echo's result is not flat")
	}
	if planOf((&hootv1.MidiRenderResult{}).ProtoReflect().Descriptor()) != nil {
		t.Fatal("a result with a message field is taken as flat")
	}
	t.Logf("%d of %d message types of hoot.v1 are flat", len(flat), all)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mt := range flat {
		for i := range 200 {
			m := mt.New()
			if i > 0 {
				fillFlat(rng, m)
			}
			got, ok := appendFlat([]byte("prefix"), m)
			want := protojsonText(t, m.Interface())
			if !ok || !bytes.Equal(got, append([]byte("prefix"), want...)) {
				t.Fatalf("%s: flat %s (ok %v), protojson %s", mt.Descriptor().FullName(), got, ok, want)
			}
		}
	}
}

// TestFlatRefusesInvalidUTF8: a string that is not valid UTF-8 is left to protojson, whose
// error Typed reports as before; what was appended is taken back.
func TestFlatRefusesInvalidUTF8(t *testing.T) {
	t.Parallel()
	m := &hootv1.EchoResult{Message: "ok", Worker: "bad \xff byte"}
	if b, ok := appendFlat([]byte("keep"), m.ProtoReflect()); ok || string(b) != "keep" {
		t.Fatalf("appendFlat = %q, %v; want the prefix alone and false", b, ok)
	}
	if _, err := Typed(m, "", false); !errors.Is(err, ErrEncode) {
		t.Fatalf("Typed of invalid UTF-8: %v, want ErrEncode", err)
	}
}

// FuzzFlatJSON: any echo result, and any message of a flat type of hoot.v1 read from any
// bytes, is written by the flat encoder as protojson writes it, or left to protojson when
// protojson fails.
func FuzzFlatJSON(f *testing.F) {
	for _, s := range flatStrings {
		f.Add(s, []byte{}, uint8(0))
	}
	f.Add("x", []byte("\x0a\x05hello\x12\x03w-1"), uint8(3))
	f.Add("\xff", []byte("\x08\x96\x01\x10\x01"), uint8(7))
	flat, _ := flatTypes()
	f.Fuzz(func(t *testing.T, s string, wire []byte, pick uint8) {
		check := func(m proto.Message) {
			got, ok := appendFlat(nil, m.ProtoReflect())
			want, err := resultJSON.Marshal(m)
			if err != nil {
				if ok {
					t.Fatalf("flat wrote %s where protojson fails: %v", got, err)
				}
				return
			}
			if want = rawjson.CompactValid(want); !ok || !bytes.Equal(got, want) {
				t.Fatalf("flat %s (ok %v), protojson %s", got, ok, want)
			}
		}
		check(&hootv1.EchoResult{Message: s, Worker: s})
		m := flat[int(pick)%len(flat)].New().Interface()
		if proto.Unmarshal(wire, m) == nil {
			check(m)
		}
	})
}
