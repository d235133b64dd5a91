package httpapi

import (
	"mime"
	"net/http"
	"strings"
	"testing"
)

// TestClassify checks the one table that decides what a browser may show of stored bytes:
// pictures, audio, MIDI and plain text inline; anything that can carry script, and anything
// unknown or malformed, as an attachment.
func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stored, contentType string
		inline              bool
		ext                 string
	}{
		{"image/png", "image/png", true, "png"},
		{"IMAGE/PNG", "image/png", true, "png"},
		{"image/jpeg", "image/jpeg", true, "jpg"},
		{"image/gif", "image/gif", true, "gif"},
		{"image/webp", "image/webp", true, "webp"},
		{"audio/wav", "audio/wav", true, "wav"},
		{"audio/x-wav", "audio/x-wav", true, "wav"},
		{"audio/flac", "audio/flac", true, "flac"},
		{"audio/ogg; codecs=opus", "audio/ogg", true, "ogg"},
		{"audio/mpeg", "audio/mpeg", true, "mp3"},
		{"audio/midi", "audio/midi", true, "mid"},
		{"text/plain; charset=UTF-8", "text/plain; charset=utf-8", true, "txt"},
		{"text/vnd.abc", "text/vnd.abc", true, "abc"},
		{"application/json", "application/json", true, "json"},
		// What can carry script: an attachment, whatever the case or parameters.
		{"image/svg+xml", "image/svg+xml", false, "svg"},
		{"Image/SVG+XML; charset=utf-8", "image/svg+xml; charset=utf-8", false, "svg"},
		{"text/html", "text/html", false, "html"},
		{"text/html; charset=utf-8", "text/html; charset=utf-8", false, "html"},
		{"application/xhtml+xml", "application/xhtml+xml", false, "xhtml"},
		{"text/xml", "text/xml", false, "xml"},
		{"application/xml", "application/xml", false, "xml"},
		{"application/rss+xml", "application/rss+xml", false, ""},
		{"application/mathml+xml", "application/mathml+xml", false, ""},
		{"text/javascript", "text/javascript", false, "js"},
		{"application/javascript", "application/javascript", false, ""},
		{"application/ecmascript", "application/ecmascript", false, ""},
		{"application/pdf", "application/pdf", false, "pdf"},
		{"text/css", "text/css", false, ""},
		{"application/octet-stream", "application/octet-stream", false, ""},
		{"video/mp4", "video/mp4", false, ""},
		{"application/x-shockwave-flash", "application/x-shockwave-flash", false, ""},
		{"multipart/x-mixed-replace; boundary=x", "multipart/x-mixed-replace", false, ""},
		// Parameters other than the charset are dropped; a charset that is not a name is too.
		{`text/plain; charset="utf-8\"><script>"`, "text/plain", true, "txt"},
		{"text/plain; foo=bar", "text/plain", true, "txt"},
		// Unknown or malformed: bytes to save.
		{"", "application/octet-stream", false, ""},
		{"html", "application/octet-stream", false, ""},
		{"not a type", "application/octet-stream", false, ""},
		{"text/html\r\nX-Evil: 1", "application/octet-stream", false, ""},
		{"image/png, text/html", "application/octet-stream", false, ""},
	} {
		got := classify(tc.stored)
		if got.ContentType != tc.contentType || got.Inline != tc.inline || got.Ext != tc.ext {
			t.Errorf("classify(%q) = %+v, want %q inline=%v ext %q", tc.stored, got, tc.contentType, tc.inline, tc.ext)
		}
	}
}

// TestServedHeaders checks the Content-Disposition that goes with each class, and that
// download asks for an attachment of any type.
func TestServedHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mimeType, name string
		download       bool
		want           string
	}{
		{"image/png", "art_1", false, `inline; filename="art_1.png"`},
		{"image/png", "art_1", true, `attachment; filename="art_1.png"`},
		{"image/svg+xml", "abc123", false, `attachment; filename="abc123.svg"`},
		{"text/html", "abc123", false, `attachment; filename="abc123.html"`},
		{"application/x-unknown", "abc123", false, `attachment; filename="abc123"`},
		{"image/png", `a"b`, false, `inline; filename="content.png"`},
	} {
		h := http.Header{}
		setServedHeaders(h, tc.mimeType, tc.name, tc.download)
		if got := h.Get("Content-Disposition"); got != tc.want {
			t.Errorf("%s as %q (download %v): Content-Disposition %q, want %q", tc.mimeType, tc.name, tc.download, got, tc.want)
		}
	}
}

// FuzzClassify checks, for any stored media type, that the answer is a media type that
// parses, that only a type of the inline table is shown inline, and that nothing whose name
// speaks of markup or script ever is.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"image/png", "image/svg+xml", "text/html; charset=utf-8", "text/plain; charset=\"x\"", "", ";", "a/b; c=d; c=e", "text/plain\x00", "audio/ogg; codecs=\"opus\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stored string) {
		got := classify(stored)
		mt, params, err := mime.ParseMediaType(got.ContentType)
		if err != nil {
			t.Fatalf("classify(%q) = %q, which does not parse: %v", stored, got.ContentType, err)
		}
		for k := range params {
			if k != "charset" {
				t.Fatalf("classify(%q) = %q keeps parameter %q", stored, got.ContentType, k)
			}
		}
		if strings.ContainsAny(got.ContentType, "\r\n") {
			t.Fatalf("classify(%q) = %q holds a line break", stored, got.ContentType)
		}
		if got.Inline {
			if !mediaRules[mt].inline {
				t.Fatalf("classify(%q) shows %q inline, which the table does not", stored, mt)
			}
			for _, bad := range []string{"html", "xml", "svg", "script", "pdf"} {
				if strings.Contains(mt, bad) {
					t.Fatalf("classify(%q) shows %q inline", stored, mt)
				}
			}
		}
	})
}
