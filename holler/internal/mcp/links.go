package mcp

import (
	"net/url"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// maxLinks bounds the resource links one result carries; a query can name a thousand
// artifacts, and the links are a convenience, not the answer.
const maxLinks = 20

// refLinks returns resource_link content blocks for the string fields of the typed result m,
// at any depth, that the schema marks with (hoot.v1.ref) as naming an artifact or a stored
// object: each links to the gateway's content route for it under base. The server knows
// nothing of the result beyond that option. An empty base gives no links.
func refLinks(m proto.Message, base string) []contentBlock {
	if base == "" || m == nil {
		return nil
	}
	var out []contentBlock
	seen := make(map[string]bool)
	var walk func(r protoreflect.Message)
	walk = func(r protoreflect.Message) {
		// Fields in declaration order: Range's order is unspecified, and links keep a stable order.
		fields := r.Descriptor().Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if len(out) >= maxLinks {
				return
			}
			if !r.Has(fd) {
				continue
			}
			v := r.Get(fd)
			switch {
			case fd.IsMap():
			case fd.Kind() == protoreflect.MessageKind:
				if fd.IsList() {
					for i := range v.List().Len() {
						walk(v.List().Get(i).Message())
					}
				} else {
					walk(v.Message())
				}
			case fd.Kind() == protoreflect.StringKind:
				ref, _ := proto.GetExtension(fd.Options(), hootv1.E_Ref).(hootv1.Ref)
				if ref == hootv1.Ref_REF_UNSPECIFIED {
					continue
				}
				if fd.IsList() {
					for i := range v.List().Len() {
						out = appendLink(out, seen, base, ref, v.List().Get(i).String())
					}
				} else {
					out = appendLink(out, seen, base, ref, v.String())
				}
			}
		}
	}
	walk(m.ProtoReflect())
	if len(out) > maxLinks {
		out = out[:maxLinks]
	}
	return out
}

func appendLink(out []contentBlock, seen map[string]bool, base string, ref hootv1.Ref, value string) []contentBlock {
	if value == "" || seen[value] {
		return out
	}
	seen[value] = true
	var path, desc string
	switch ref {
	case hootv1.Ref_REF_ARTIFACT:
		path, desc = "/artifacts/"+url.PathEscape(value)+"/content", "The content of artifact "+value
	case hootv1.Ref_REF_CAS_OBJECT:
		path, desc = "/cas/"+url.PathEscape(value), "The stored object "+value
	default:
		return out
	}
	return append(out, contentBlock{Type: "resource_link", URI: base + path, Name: value, Description: desc})
}
