package toolresult

import (
	"net/url"
	"sync"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/content"
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
func refLinks(m proto.Message, base string) []content.Block {
	if base == "" || m == nil {
		return nil
	}
	var out []content.Block
	var seen map[string]bool
	var walk func(r protoreflect.Message)
	walk = func(r protoreflect.Message) {
		// Fields in declaration order: Range's order is unspecified, and links keep a stable order.
		for _, lf := range linkPlan(r.Descriptor()) {
			if len(out) >= maxLinks {
				return
			}
			fd := lf.fd
			if !r.Has(fd) {
				continue
			}
			v := r.Get(fd)
			switch {
			case lf.ref == hootv1.Ref_REF_UNSPECIFIED:
				if fd.IsList() {
					for i := range v.List().Len() {
						walk(v.List().Get(i).Message())
					}
				} else {
					walk(v.Message())
				}
			case fd.IsList():
				for i := range v.List().Len() {
					out = appendLink(out, &seen, base, lf.ref, v.List().Get(i).String())
				}
			default:
				out = appendLink(out, &seen, base, lf.ref, v.String())
			}
		}
	}
	walk(m.ProtoReflect())
	if len(out) > maxLinks {
		out = out[:maxLinks]
	}
	return out
}

func appendLink(out []content.Block, seenp *map[string]bool, base string, ref hootv1.Ref, value string) []content.Block {
	if value == "" || (*seenp)[value] {
		return out
	}
	if *seenp == nil {
		*seenp = make(map[string]bool)
	}
	(*seenp)[value] = true
	var path, desc string
	switch ref {
	case hootv1.Ref_REF_ARTIFACT:
		path, desc = "/artifacts/"+url.PathEscape(value)+"/content", "The content of artifact "+value
	case hootv1.Ref_REF_CAS_OBJECT:
		path, desc = "/cas/"+url.PathEscape(value), "The stored object "+value
	default:
		return out
	}
	return append(out, content.Block{Type: "resource_link", URI: base + path, Name: value, Description: desc})
}

// A linkField is a field that refLinks looks at: a message field to walk into (ref
// unspecified), or a string field that names an artifact or a stored object.
type linkField struct {
	fd  protoreflect.FieldDescriptor
	ref hootv1.Ref
}

// linkPlans caches linkPlan's answer by message descriptor: reading a field's options is
// dear, and results are of a few generated types.
var linkPlans sync.Map

// linkPlan returns the fields of md that refLinks looks at, in declaration order.
func linkPlan(md protoreflect.MessageDescriptor) []linkField {
	if p, ok := linkPlans.Load(md); ok {
		return p.([]linkField)
	}
	var plan []linkField
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch {
		case fd.IsMap():
		case fd.Kind() == protoreflect.MessageKind:
			plan = append(plan, linkField{fd: fd})
		case fd.Kind() == protoreflect.StringKind:
			if ref, _ := proto.GetExtension(fd.Options(), hootv1.E_Ref).(hootv1.Ref); ref != hootv1.Ref_REF_UNSPECIFIED {
				plan = append(plan, linkField{fd: fd, ref: ref})
			}
		}
	}
	linkPlans.Store(md, plan)
	return plan
}
