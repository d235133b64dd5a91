package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/arguments"
	"github.com/hootenanny/hoot/holler/internal/mcp/content"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"google.golang.org/protobuf/proto"
)

// A resourceDescription is one resource as resources/list shows it.
type resourceDescription struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType,omitempty"`
}

// A templateDescription is one resource template as resources/templates/list shows it.
type templateDescription struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType,omitempty"`
}

// listResources answers resources/list: the resources with fixed URIs whose service has a
// live worker, in one page.
func (s *Server) listResources(_ context.Context, msg *message) *jsonrpc.Response {
	out := []resourceDescription{}
	for _, t := range s.entries.resources {
		if s.liveService(t.Service) {
			out = append(out, resourceDescription{URI: t.URI, Name: t.Name, Title: t.Title, Description: t.Description, MimeType: t.MimeType})
		}
	}
	return jsonrpc.NewResult(msg.ID, struct {
		Resources []resourceDescription `json:"resources"`
	}{out})
}

// listResourceTemplates answers resources/templates/list.
func (s *Server) listResourceTemplates(_ context.Context, msg *message) *jsonrpc.Response {
	out := []templateDescription{}
	for _, rt := range s.entries.templates {
		t := rt.tool
		if s.liveService(t.Service) {
			out = append(out, templateDescription{URITemplate: t.URI, Name: t.Name, Title: t.Title, Description: t.Description, MimeType: t.MimeType})
		}
	}
	return jsonrpc.NewResult(msg.ID, struct {
		ResourceTemplates []templateDescription `json:"resourceTemplates"`
	}{out})
}

// uriParams are the params of resources/read, subscribe and unsubscribe.
type uriParams struct {
	URI string `json:"uri"`
}

// findResource returns the resource or template that serves uri, with its request filled in
// from the URI's template variables.
func (s *Server) findResource(uri string) (*hootv1hoot.Tool, proto.Message, *arguments.Error) {
	for _, t := range s.entries.resources {
		if t.URI == uri {
			return t, t.NewRequest(), nil
		}
	}
	for _, rt := range s.entries.templates {
		m := rt.match.FindStringSubmatch(uri)
		if m == nil {
			continue
		}
		args := make(map[string]string, len(rt.vars))
		for i, v := range rt.vars {
			args[v] = m[i+1]
		}
		b, _ := json.Marshal(args) // a map of strings always encodes
		req, bad := arguments.Decode(rt.tool, b)
		return rt.tool, req, bad
	}
	return nil, nil, nil
}

// readResource answers resources/read: the EmbeddedResource fields of the worker's answer are
// the contents.
func (s *Server) readResource(ctx context.Context, rq methodRequest) *jsonrpc.Response {
	msg := rq.msg
	var p uriParams
	if msg.Params == nil || json.Unmarshal(msg.Params, &p) != nil || p.URI == "" {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: resources/read needs params.uri", &guidance.Data{
			Hint: "List the resources with resources/list and resources/templates/list.",
		})
	}
	t, req, bad := s.findResource(p.URI)
	if bad != nil {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid resource URI "+wording.Quote(p.URI)+": "+bad.Message, &guidance.Data{Hint: bad.Hint, Field: bad.Field})
	}
	if t == nil {
		return jsonrpc.NewError(msg.ID, codeResourceNotFound, "resource not found: "+wording.Quote(p.URI), struct {
			URI string `json:"uri"`
		}{p.URI})
	}
	m, fail := s.callEntry(ctx, rq, t, req)
	if fail != nil {
		return fail
	}
	contents := []content.Resource{}
	for _, r := range fieldsOfType[*hootv1.EmbeddedResource](m) {
		rc := content.Resource{URI: r.GetUri(), MimeType: r.GetMimeType()}
		if rc.URI == "" {
			rc.URI = p.URI
		}
		if blob, ok := r.GetContents().(*hootv1.EmbeddedResource_Blob); ok {
			b := base64.StdEncoding.EncodeToString(blob.Blob)
			rc.Blob = &b
		} else {
			txt := r.GetText()
			rc.Text = &txt
		}
		contents = append(contents, rc)
	}
	return jsonrpc.NewResult(msg.ID, struct {
		Contents []content.Resource `json:"contents"`
	}{contents})
}

// subscribe answers resources/subscribe and resources/unsubscribe for a resource that exists.
// Resources here are write-once (stored objects, artifacts' contents, fixtures), so a
// subscription is accepted and never fires.
func (s *Server) subscribe(_ context.Context, msg *message) *jsonrpc.Response {
	var p uriParams
	if msg.Params == nil || json.Unmarshal(msg.Params, &p) != nil || p.URI == "" {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: "+msg.Method+" needs params.uri", &guidance.Data{
			Hint: "Name a resource that resources/list shows.",
		})
	}
	if t, _, _ := s.findResource(p.URI); t == nil {
		return jsonrpc.NewError(msg.ID, codeResourceNotFound, "resource not found: "+wording.Quote(p.URI), struct {
			URI string `json:"uri"`
		}{p.URI})
	}
	return jsonrpc.NewResult(msg.ID, struct{}{})
}
