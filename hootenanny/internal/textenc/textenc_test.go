package textenc

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

func TestUTF8(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want string
	}{
		{[]byte("Piano"), "Piano"},
		{[]byte("Café"), "Café"},                       // already UTF-8: kept
		{[]byte("Caf\xe9 cr\xe8me"), "Café crème"},     // Latin-1
		{[]byte("\x93Fl\xfbte\x94 \x80"), "“Flûte” €"}, // Windows-1252
		{[]byte("x\x81y"), "x\u0081y"},                 // undefined in Windows-1252: the C1 control
		{[]byte("\xff\xfe"), "ÿþ"},
		{nil, ""},
	} {
		got := UTF8(tc.in)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("UTF8(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzUTF8(f *testing.F) {
	for _, s := range []string{"", "Piano", "Caf\xe9", "\x80\x81\x8d\x8f\x90\x9d\x9f", "Café", "\xc3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := UTF8(b)
		if !utf8.ValidString(s) {
			t.Fatalf("UTF8(%q) = %q, not valid UTF-8", b, s)
		}
		if utf8.Valid(b) {
			if s != string(b) {
				t.Fatalf("valid UTF-8 %q changed to %q", b, s)
			}
			return
		}
		back, ok := Bytes(s)
		if !ok || !bytes.Equal(back, b) {
			t.Fatalf("Bytes(UTF8(%q)) = %q, %v", b, back, ok)
		}
	})
}

func TestText(t *testing.T) {
	if s, ok := Text([]byte("T:Caf\xe9\r\nK:C\n")); !ok || s != "T:Café\r\nK:C\n" {
		t.Errorf("Latin-1 text: %q, %v", s, ok)
	}
	if s, ok := Text([]byte("T:Café\x00")); !ok || s != "T:Café\x00" {
		t.Errorf("UTF-8 is kept as it is: %q, %v", s, ok)
	}
	if _, ok := Text([]byte("\x89PNG\r\n\x1a\n\x00\x00")); ok {
		t.Error("a PNG reads as text")
	}
}
