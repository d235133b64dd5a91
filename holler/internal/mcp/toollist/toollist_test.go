package toollist

import (
	"strings"
	"testing"
)

func listing(names ...string) []Description {
	out := make([]Description, len(names))
	for i, n := range names {
		out[i] = Description{Name: n, InputSchema: []byte(`{"type":"object"}`)}
	}
	return out
}

func TestCursor(t *testing.T) {
	key := CursorKey(2, listing("a", "b", "c"))
	c := MakeCursor(key, 2)
	if off, ok := ReadCursor(key, c); !ok || off != 2 {
		t.Fatalf("ReadCursor(MakeCursor(2)) = %d, %v", off, ok)
	}
	for name, other := range map[string][]byte{
		"another page size": CursorKey(3, listing("a", "b", "c")),
		"another listing":   CursorKey(2, listing("a", "b")),
	} {
		if _, ok := ReadCursor(other, c); ok {
			t.Errorf("a cursor read in %s", name)
		}
	}
	tampered := []byte(c)
	tampered[0] ^= 1
	if _, ok := ReadCursor(key, string(tampered)); ok {
		t.Error("a tampered cursor was read")
	}
}

// FuzzReadCursor feeds any string to ReadCursor as a client's cursor: it never panics, and an
// offset it reads is one MakeCursor made.
func FuzzReadCursor(f *testing.F) {
	key := CursorKey(250, listing("a", "b"))
	for _, seed := range []string{"", "AAAA", MakeCursor(key, 0), MakeCursor(key, 250), strings.Repeat("A", 22), "!!"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, c string) {
		off, ok := ReadCursor(key, c)
		if ok {
			if again, ok := ReadCursor(key, MakeCursor(key, off)); !ok || again != off {
				t.Fatalf("ReadCursor(%q) = %d, which does not make a cursor back", c, off)
			}
		}
	})
}

func TestHasher(t *testing.T) {
	services := map[string]string{"a": "one", "b": "two", "c": "one"}
	h := NewHasher(func(name string) (string, bool) { s, ok := services[name]; return s, ok })
	l := listing("a", "b", "c")
	first := h.Hash(l)
	if !strings.HasPrefix(first, "sha256:") || h.Hash(l) != first {
		t.Fatalf("hash %q, then %q", first, h.Hash(l))
	}
	if h.Hash(l[:2]) == first {
		t.Error("a listing without c hashes as the one with it")
	}
	other := NewHasher(func(name string) (string, bool) { return "elsewhere", true })
	if other.Hash(l) == first {
		t.Error("the same tools served by another service hash alike")
	}
	got := h.Services(l)
	if len(got) != 2 || got[0].Name != "one" || strings.Join(got[0].Tools, ",") != "a,c" || got[1].Name != "two" {
		t.Errorf("Services = %+v", got)
	}
}
