// Package content renders the hoot.v1.Content fields of a worker's typed result as MCP content
// blocks (text, image, audio, resource_link, resource), the part of a tool result, prompt
// message or resource that a client shows. It knows results only through that one message
// type: the fields of type hoot.v1.Content at a result's top level (Of), and, bounded, those
// nested deeper, such as a finished job's inside job_await's answer (Nested).
package content

import (
	"encoding/base64"
	"sync"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A Block is one MCP content block: text, image, audio, resource_link or resource.
// Only the members of its type are set.
type Block struct {
	Type        string    `json:"type"`
	Text        *string   `json:"text,omitempty"`
	Data        string    `json:"data,omitempty"`
	MimeType    string    `json:"mimeType,omitempty"`
	URI         string    `json:"uri,omitempty"`
	Name        string    `json:"name,omitempty"`
	Description string    `json:"description,omitempty"`
	Resource    *Resource `json:"resource,omitempty"`
}

// A Resource is a resource's contents as MCP carries them: text or a base64 blob.
type Resource struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
}

// Text returns a text content block.
func Text(s string) Block { return Block{Type: "text", Text: &s} }

// contentDescriptor is hoot.v1.Content's descriptor: result fields of this message type are
// content blocks.
var contentDescriptor = (&hootv1.Content{}).ProtoReflect().Descriptor()

// Of returns the content blocks that the typed result m carries in its top-level fields of
// type hoot.v1.Content, in field order, or nil when it carries none. Nothing of the result
// beyond that message type is known here.
func Of(m proto.Message) []Block {
	var out []Block
	r := m.ProtoReflect()
	fields := r.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Message() == nil || fd.Message().FullName() != contentDescriptor.FullName() || fd.IsMap() {
			continue
		}
		if !fd.IsList() {
			if r.Has(fd) {
				out = Append(out, r.Get(fd).Message())
			}
			continue
		}
		list := r.Get(fd).List()
		for j := range list.Len() {
			out = Append(out, list.Get(j).Message())
		}
	}
	return out
}

// Bounds on the content blocks found inside nested results: a job_await answer can hold many
// finished jobs, and their media is a convenience next to their links, not the answer.
const (
	MaxNestedBlocks    = 8
	MaxNestedMediaSize = 4 << 20
)

// Nested returns the content blocks of results embedded in the typed result m: the
// hoot.v1.Content fields of its nested messages at any depth (such as those of a finished job's
// result inside job_await's answer), in field order, at most MaxNestedBlocks of them and at most
// MaxNestedMediaSize bytes of images and audio. Content fields at m's top level are
// Of' and are not repeated here.
func Nested(m proto.Message) []Block {
	var out []Block
	media := 0
	var walk func(r protoreflect.Message, top bool)
	walk = func(r protoreflect.Message, top bool) {
		for _, fd := range contentPlan(r.Descriptor()) {
			if len(out) >= MaxNestedBlocks {
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
					if media+size > MaxNestedMediaSize || len(out) >= MaxNestedBlocks {
						continue
					}
					media += size
					out = Append(out, item)
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

// Append renders one hoot.v1.Content; an empty one renders as nothing.
func Append(out []Block, m protoreflect.Message) []Block {
	c, ok := m.Interface().(*hootv1.Content)
	if !ok {
		return out
	}
	switch b := c.GetBlock().(type) {
	case *hootv1.Content_Text:
		return append(out, Text(b.Text))
	case *hootv1.Content_Image:
		return append(out, Block{Type: "image", MimeType: b.Image.GetMimeType(), Data: base64.StdEncoding.EncodeToString(b.Image.GetData())})
	case *hootv1.Content_Audio:
		return append(out, Block{Type: "audio", MimeType: b.Audio.GetMimeType(), Data: base64.StdEncoding.EncodeToString(b.Audio.GetData())})
	case *hootv1.Content_ResourceLink:
		l := b.ResourceLink
		name := l.GetName()
		if name == "" {
			name = l.GetUri()
		}
		return append(out, Block{Type: "resource_link", URI: l.GetUri(), Name: name, Description: l.GetDescription(), MimeType: l.GetMimeType()})
	case *hootv1.Content_Resource:
		r := b.Resource
		rc := &Resource{URI: r.GetUri(), MimeType: r.GetMimeType()}
		if blob, ok := r.GetContents().(*hootv1.EmbeddedResource_Blob); ok {
			s := base64.StdEncoding.EncodeToString(blob.Blob)
			rc.Blob = &s
		} else {
			s := r.GetText()
			rc.Text = &s
		}
		return append(out, Block{Type: "resource", Resource: rc})
	}
	return out
}
