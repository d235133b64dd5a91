package mcp

import (
	"encoding/base64"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A contentBlock is one MCP content block: text, image, audio, resource_link or resource.
// Only the members of its type are set.
type contentBlock struct {
	Type        string            `json:"type"`
	Text        *string           `json:"text,omitempty"`
	Data        string            `json:"data,omitempty"`
	MimeType    string            `json:"mimeType,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        string            `json:"name,omitempty"`
	Description string            `json:"description,omitempty"`
	Resource    *resourceContents `json:"resource,omitempty"`
}

// resourceContents are a resource's contents as MCP carries them: text or a base64 blob.
type resourceContents struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
}

// textBlock returns a text content block.
func textBlock(s string) contentBlock { return contentBlock{Type: "text", Text: &s} }

// contentDescriptor is hoot.v1.Content's descriptor: result fields of this message type are
// content blocks.
var contentDescriptor = (&hootv1.Content{}).ProtoReflect().Descriptor()

// contentBlocks returns the content blocks that the typed result m carries in its top-level
// fields of type hoot.v1.Content, in field order, or nil when it carries none. The server knows
// nothing of the result beyond that message type.
func contentBlocks(m proto.Message) []contentBlock {
	var out []contentBlock
	r := m.ProtoReflect()
	fields := r.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Message() == nil || fd.Message().FullName() != contentDescriptor.FullName() || fd.IsMap() {
			continue
		}
		if !fd.IsList() {
			if r.Has(fd) {
				out = appendBlock(out, r.Get(fd).Message())
			}
			continue
		}
		list := r.Get(fd).List()
		for j := range list.Len() {
			out = appendBlock(out, list.Get(j).Message())
		}
	}
	return out
}

// appendBlock renders one hoot.v1.Content; an empty one renders as nothing.
func appendBlock(out []contentBlock, m protoreflect.Message) []contentBlock {
	c, ok := m.Interface().(*hootv1.Content)
	if !ok {
		return out
	}
	switch b := c.GetBlock().(type) {
	case *hootv1.Content_Text:
		return append(out, textBlock(b.Text))
	case *hootv1.Content_Image:
		return append(out, contentBlock{Type: "image", MimeType: b.Image.GetMimeType(), Data: base64.StdEncoding.EncodeToString(b.Image.GetData())})
	case *hootv1.Content_Audio:
		return append(out, contentBlock{Type: "audio", MimeType: b.Audio.GetMimeType(), Data: base64.StdEncoding.EncodeToString(b.Audio.GetData())})
	case *hootv1.Content_ResourceLink:
		l := b.ResourceLink
		name := l.GetName()
		if name == "" {
			name = l.GetUri()
		}
		return append(out, contentBlock{Type: "resource_link", URI: l.GetUri(), Name: name, Description: l.GetDescription(), MimeType: l.GetMimeType()})
	case *hootv1.Content_Resource:
		r := b.Resource
		rc := &resourceContents{URI: r.GetUri(), MimeType: r.GetMimeType()}
		if blob, ok := r.GetContents().(*hootv1.EmbeddedResource_Blob); ok {
			s := base64.StdEncoding.EncodeToString(blob.Blob)
			rc.Blob = &s
		} else {
			s := r.GetText()
			rc.Text = &s
		}
		return append(out, contentBlock{Type: "resource", Resource: rc})
	}
	return out
}

// logRelay returns the function that relays a worker's reports for one call: log entries
// become notifications/message for sess, on out; progress goes to progress, if not nil.
func (s *Server) logRelay(sess *session, out notifier, progress func(*hootv1.Progress)) func(*hootv1.Progress) {
	return func(p *hootv1.Progress) {
		if e := p.GetLog(); e != nil {
			level := logInfo
			if e.GetLevel() != hootv1.LogLevel_LOG_LEVEL_UNSPECIFIED {
				level = logLevel(e.GetLevel() - hootv1.LogLevel_LOG_LEVEL_DEBUG)
			}
			s.notifyLog(sess, out, level, e.GetLogger(), e.GetMessage())
			return
		}
		if progress != nil {
			progress(p)
		}
	}
}
