package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

// watchServices follows the Backend's live services until the server closes, starting with
// the change channel taken before the first look.
func (s *Server) watchServices(changed <-chan struct{}) {
	for {
		select {
		case <-s.closed:
			return
		case <-changed:
		}
		// Take the next channel before looking, so that no change goes unseen.
		changed = s.live.Changed()
		if kinds := s.refreshLists(); kinds != 0 {
			s.log.Info("mcp: the live lists changed", "lists", kinds.Names(), "tools", s.listedNames())
			s.changes.Publish(kinds)
		}
	}
}

// refreshTools recomputes the listed tools from the live services and reports whether the
// list changed.
func (s *Server) refreshTools() bool {
	next := s.liveTools()
	s.listMu.Lock()
	defer s.listMu.Unlock()
	same := slices.EqualFunc(s.listed, next, func(a, b toolDescription) bool { return a.Name == b.Name })
	s.listed = next
	return !same
}

// liveTools describes the allowed tools whose service a live worker serves now.
func (s *Server) liveTools() []toolDescription {
	live := make(map[string]bool)
	for _, svc := range s.live.Services() {
		live[svc] = true
	}
	var tools []*hootv1hoot.Tool
	for _, t := range s.allowed {
		if live[t.Service] {
			tools = append(tools, t)
		}
	}
	return toolDescriptions(s.policy, tools)
}

// listedNames returns the names of the tools tools/list shows now.
func (s *Server) listedNames() []string {
	s.listMu.RLock()
	defer s.listMu.RUnlock()
	names := make([]string, len(s.listed))
	for i, d := range s.listed {
		names[i] = d.Name
	}
	return names
}

// listTools answers tools/list with one page of the tools shown now. A cursor is the offset
// of its page with a fingerprint of the listing it belongs to (the tools listed and the page
// size), so that a cursor goes on only in the same listing: on this gateway or any other that
// lists the same tools, and not across a change of the live tools, where it would skip or repeat
// some. A cursor that does not fit is refused, with the advice to start again.
func (s *Server) listTools(ctx context.Context, msg *message) *jsonrpc.Response {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if msg.Params != nil && (rawjson.Kind(msg.Params) != "object" || json.Unmarshal(msg.Params, &p) != nil) {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: tools/list takes an object with an optional cursor (a string)", &guidance.Data{
			Hint: "Send tools/list with empty params for the first page, and with the nextCursor of a page for the next.",
			Try:  guidance.TryToolsList(),
		})
	}
	// The answer comes from the backend's live services as they are now, not from the copy the
	// change watcher keeps to tell sessions about changes: that copy may trail by a moment, and
	// a client that asks just after a worker arrived must see its tools.
	all := s.capListing(ctx, s.listedNow())
	key := s.cursorKeyOf(all)
	offset := 0
	if p.Cursor != nil {
		o, ok := readCursor(key, *p.Cursor)
		if !ok {
			return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: unknown cursor "+wording.Quote(*p.Cursor), &guidance.Data{
				Hint: "Pass the nextCursor of the previous tools/list answer unchanged, or send tools/list without a cursor to start from the first page.",
				Try:  guidance.TryToolsList(),
			})
		}
		offset = o
	}
	res := listToolsResult{Tools: []toolDescription{}, Meta: &listMeta{SchemaHash: s.schemaHashOf(all)}}
	if offset < len(all) {
		end := min(offset+s.cfg.PageSize, len(all))
		res.Tools = all[offset:end]
		if end < len(all) {
			res.NextCursor = makeCursor(key, end)
		}
	}
	return jsonrpc.NewResult(msg.ID, res)
}

// listedNow returns the tools tools/list shows now: the live ones when the backend reports
// liveness, all allowed ones otherwise.
func (s *Server) listedNow() []toolDescription {
	if s.live != nil {
		return s.liveTools()
	}
	s.listMu.RLock()
	defer s.listMu.RUnlock()
	return s.listed
}

// cursorKeyOf returns the fingerprint key of a listing: derived from the tools listed and the
// page size, not drawn at random, so that every gateway listing the same tools takes the
// others' cursors (a 2026-07-28 client's next request may reach another gateway). It keeps a
// cursor to its listing; it is no secret, since a cursor holds only an offset.
func (s *Server) cursorKeyOf(listed []toolDescription) []byte {
	h := sha256.New()
	fmt.Fprintf(h, "holler tools/list cursor key\x00%d\x00", s.cfg.PageSize)
	for _, t := range listed {
		h.Write([]byte(t.Name))
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// cursorMACSize is how many bytes of HMAC-SHA256 a cursor carries.
const cursorMACSize = 12

// makeCursor returns the cursor of the page that starts at offset.
func makeCursor(key []byte, offset int) string {
	b := binary.BigEndian.AppendUint32(nil, uint32(offset))
	b = append(b, cursorMAC(key, b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// readCursor returns the offset of a cursor made by makeCursor.
func readCursor(key []byte, c string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) != 4+cursorMACSize || !hmac.Equal(b[4:], cursorMAC(key, b[:4])) {
		return 0, false
	}
	return int(binary.BigEndian.Uint32(b[:4])), true
}

func cursorMAC(key, b []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("tools/list cursor\x00"))
	m.Write(b)
	return m.Sum(nil)[:cursorMACSize]
}
