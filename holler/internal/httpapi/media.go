package httpapi

import (
	"mime"
	"net/http"
	"strings"
)

// How the content routes serve stored bytes. Anyone with a token of tier standard chooses the
// media type of what they store, and the bytes are served from the gateway's own origin, the
// origin of /mcp and of the studio (whose token sits in the page's sessionStorage). A stored
// HTML page or SVG image opened in a browser would run its script as this origin. So:
//
//   - every served object carries contentSecurity: a sandbox (an opaque origin, no script)
//     that loads nothing, nosniff, and a resource policy that keeps other sites from
//     embedding it;
//   - only the types of the table below that cannot carry script are served inline, where a
//     browser shows them; every other type (HTML, XHTML, XML, SVG, JavaScript, PDF, and any
//     type the table does not know or that does not parse) is served as an attachment, which
//     a browser saves instead of opening. SVG keeps its type, so that the studio can show a
//     score through <img>, where an image never runs script.

// contentSecurity are the headers of every response of the content routes, errors included.
var contentSecurity = map[string]string{
	// sandbox: an opaque origin without scripts, forms, popups or plugins, even if a browser
	// ignores the attachment; default-src 'none' loads nothing else. Images and media may
	// load from here, so that a browser's own viewer of an inline image or audio file works.
	"Content-Security-Policy":      "sandbox; default-src 'none'; img-src 'self'; media-src 'self'",
	"X-Content-Type-Options":       "nosniff",
	"Cross-Origin-Resource-Policy": "same-origin",
	"Referrer-Policy":              "no-referrer",
}

// A mediaRule says how one media type is served.
type mediaRule struct {
	inline bool   // shown by the browser; false serves the bytes as an attachment
	ext    string // the file name's extension, for the Content-Disposition
}

// mediaRules lists the media types the content routes know, by their lowercase type and
// subtype. A type that is not here is served as an attachment.
var mediaRules = map[string]mediaRule{
	// Raster images: decoded as pictures, never as documents with script.
	"image/png":  {inline: true, ext: "png"},
	"image/jpeg": {inline: true, ext: "jpg"},
	"image/gif":  {inline: true, ext: "gif"},
	"image/webp": {inline: true, ext: "webp"},
	"image/avif": {inline: true, ext: "avif"},
	// Audio, as the renderers write it and players take it.
	"audio/wav":      {inline: true, ext: "wav"},
	"audio/wave":     {inline: true, ext: "wav"},
	"audio/x-wav":    {inline: true, ext: "wav"},
	"audio/vnd.wave": {inline: true, ext: "wav"},
	"audio/flac":     {inline: true, ext: "flac"},
	"audio/x-flac":   {inline: true, ext: "flac"},
	"audio/ogg":      {inline: true, ext: "ogg"},
	"audio/opus":     {inline: true, ext: "opus"},
	"audio/mpeg":     {inline: true, ext: "mp3"},
	"audio/mp4":      {inline: true, ext: "m4a"},
	"audio/aac":      {inline: true, ext: "aac"},
	"audio/webm":     {inline: true, ext: "weba"},
	"audio/midi":     {inline: true, ext: "mid"},
	"audio/x-midi":   {inline: true, ext: "mid"},
	"audio/sp-midi":  {inline: true, ext: "mid"},
	// Text that a browser shows as text: with nosniff it is never read as HTML.
	"text/plain":       {inline: true, ext: "txt"},
	"text/vnd.abc":     {inline: true, ext: "abc"},
	"text/csv":         {inline: true, ext: "csv"},
	"text/markdown":    {inline: true, ext: "md"},
	"application/json": {inline: true, ext: "json"},
	// Types that carry script or documents: named here only for their extension.
	"image/svg+xml":         {ext: "svg"},
	"text/html":             {ext: "html"},
	"application/xhtml+xml": {ext: "xhtml"},
	"text/xml":              {ext: "xml"},
	"application/xml":       {ext: "xml"},
	"text/javascript":       {ext: "js"},
	"application/pdf":       {ext: "pdf"},
}

// A servedType is how the content routes send one stored media type.
type servedType struct {
	// ContentType is the Content-Type header: the stored type, reformatted, with only a
	// charset parameter; application/octet-stream for a type that does not parse.
	ContentType string
	// Inline is true when a browser may show the bytes; false sends them as an attachment.
	Inline bool
	// Ext is the extension of the file name a browser saves them under, or "".
	Ext string
}

// classify says how the content routes serve bytes stored as mimeType. It is the one place
// that decides what a browser may show of stored bytes.
func classify(mimeType string) servedType {
	mt, params, err := mime.ParseMediaType(mimeType)
	if err != nil || !strings.Contains(mt, "/") {
		return servedType{ContentType: "application/octet-stream"}
	}
	rule := mediaRules[mt]
	keep := map[string]string{}
	if cs, ok := params["charset"]; ok && isToken(cs) {
		keep["charset"] = strings.ToLower(cs)
	}
	ct := mime.FormatMediaType(mt, keep)
	if ct == "" {
		return servedType{ContentType: "application/octet-stream"}
	}
	return servedType{ContentType: ct, Inline: rule.inline, Ext: rule.ext}
}

// isToken reports whether s is a short run of the characters a charset name has.
func isToken(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// setServedHeaders sets the Content-Type and Content-Disposition of stored bytes served as
// name (a hash or an artifact id: letters, digits and _ only). download asks for an
// attachment whatever the type.
func setServedHeaders(h http.Header, mimeType, name string, download bool) {
	st := classify(mimeType)
	h.Set("Content-Type", st.ContentType)
	file := safeName(name)
	if st.Ext != "" {
		file += "." + st.Ext
	}
	if st.Inline && !download {
		h.Set("Content-Disposition", `inline; filename="`+file+`"`)
		return
	}
	h.Set("Content-Disposition", `attachment; filename="`+file+`"`)
}

// safeName returns name if it is a plain file name of letters, digits, '_', '-' and '.', which
// a quoted filename parameter holds as it is, and "content" otherwise.
func safeName(name string) string {
	if name == "" || len(name) > 128 {
		return "content"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return "content"
		}
	}
	return name
}
