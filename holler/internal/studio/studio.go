// Package studio serves the studio: a web page, embedded in the binary, where a person sees
// what the agents made (artifacts newest first, searched by tag, creator and text; an
// artifact's metadata, annotations and lineage; its audio, score or piano roll), the jobs as
// they run, and the conversation trees (drawn, a node's path, a branch continued by hand). The page is an MCP client of the gateway's own /mcp endpoint in the 2026-07-28
// era, whose stateless requests suit a page (no session to keep), and fetches bytes from the
// content routes. It calls the same typed tools as any client; this package serves only files,
// which hold no data and are served without a token. When the gateway takes tokens, the page
// asks the person for one and sends it with every request it makes itself, media included.
package studio

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var files embed.FS

// Handler serves the page's files under /studio/.
func Handler() http.Handler {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	fileServer := http.StripPrefix("/studio/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		// The page runs only its own scripts and talks only to this server; media come from
		// the content routes (same origin) or from blob URLs it makes.
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob: data:; "+
			"style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// Files change with the binary; a reload after an upgrade must not show the old page.
		h.Set("Cache-Control", "no-cache")
		if strings.HasSuffix(r.URL.Path, ".js") {
			h.Set("Content-Type", "text/javascript; charset=utf-8")
		}
		fileServer.ServeHTTP(w, r)
	})
}
