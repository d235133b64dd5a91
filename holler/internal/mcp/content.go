package mcp

import (
	"encoding/base64"
	"sync"

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

// Bounds on the content blocks found inside nested results: a job_await answer can hold many
// finished jobs, and their media is a convenience next to their links, not the answer.
const (
	maxNestedBlocks    = 8
	maxNestedMediaSize = 4 << 20
)

// nestedContentBlocks returns the content blocks of results embedded in the typed result m: the
// hoot.v1.Content fields of its nested messages at any depth (such as those of a finished job's
// result inside job_await's answer), in field order, at most maxNestedBlocks of them and at most
// maxNestedMediaSize bytes of images and audio. Content fields at m's top level are
// contentBlocks' and are not repeated here.
func nestedContentBlocks(m proto.Message) []contentBlock {
	var out []contentBlock
	media := 0
	var walk func(r protoreflect.Message, top bool)
	walk = func(r protoreflect.Message, top bool) {
		for _, fd := range contentPlan(r.Descriptor()) {
			if len(out) >= maxNestedBlocks {
				return
			}
			if !r.Has(fd) {
				continue
			}
			isContent := fd.Message().FullName() == contentDescriptor.FullName()
			var items []protoreflect.Message
			if fd.IsList() {
				list := r.Get(fd).List()
				for i := range list.Len() {
					items = append(items, list.Get(i).Message())
				}
			} else {
				items = append(items, r.Get(fd).Message())
			}
			for _, item := range items {
				switch {
				case !isContent:
					walk(item, false)
				case top:
				default:
					c, _ := item.Interface().(*hootv1.Content)
					size := len(c.GetImage().GetData()) + len(c.GetAudio().GetData())
					if media+size > maxNestedMediaSize || len(out) >= maxNestedBlocks {
						continue
					}
					media += size
					out = appendBlock(out, item)
				}
			}
		}
	}
	walk(m.ProtoReflect(), true)
	return out
}

// contentPlans caches contentPlan's answer by message descriptor.
var contentPlans sync.Map

// contentPlan returns the message fields of md (not maps), in declaration order: those to walk
// into and those of type hoot.v1.Content.
func contentPlan(md protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	if p, ok := contentPlans.Load(md); ok {
		return p.([]protoreflect.FieldDescriptor)
	}
	var plan []protoreflect.FieldDescriptor
	fields := md.Fields()
	for i := range fields.Len() {
		if fd := fields.Get(i); fd.Message() != nil && !fd.IsMap() {
			plan = append(plan, fd)
		}
	}
	contentPlans.Store(md, plan)
	return plan
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
