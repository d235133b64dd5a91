package genhoot

import (
	"fmt"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// StaleOptions returns a warning when the request's options.proto differs from the one the
// plugin was built with, or "" when they agree (or the request has no options.proto). The
// plugin reads options through the linked Go code, so a new option would go unseen until the
// next run; refusing instead would also stop protoc-gen-go from writing the new code.
func StaleOptions(plugin *protogen.Plugin) string {
	linked := hootv1.File_hoot_v1_options_proto
	f, ok := plugin.FilesByPath[linked.Path()]
	if !ok {
		return ""
	}
	if outline(f.Desc) == outline(linked) {
		return ""
	}
	return fmt.Sprintf("%s differs from the version this plugin was built with; run buf generate again so that the plugin reads the new options",
		linked.Path())
}

// outline lists what matters about a file's types for reading options: messages with their
// fields, enums with their values, and extensions.
func outline(fd protoreflect.FileDescriptor) string {
	var b strings.Builder
	type fieldList interface {
		Len() int
		Get(int) protoreflect.FieldDescriptor
	}
	fields := func(fs fieldList) {
		for i := 0; i < fs.Len(); i++ {
			f := fs.Get(i)
			fmt.Fprintf(&b, " %s=%d:%v:%v", f.FullName(), f.Number(), f.Kind(), f.Cardinality())
			if f.Message() != nil {
				fmt.Fprintf(&b, ":%s", f.Message().FullName())
			}
			if f.Enum() != nil {
				fmt.Fprintf(&b, ":%s", f.Enum().FullName())
			}
		}
	}
	var messages func(ms protoreflect.MessageDescriptors)
	messages = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			m := ms.Get(i)
			fmt.Fprintf(&b, "\nmessage %s", m.FullName())
			fields(m.Fields())
			fields(m.Extensions())
			messages(m.Messages())
		}
	}
	messages(fd.Messages())
	for i := 0; i < fd.Enums().Len(); i++ {
		e := fd.Enums().Get(i)
		fmt.Fprintf(&b, "\nenum %s", e.FullName())
		for j := 0; j < e.Values().Len(); j++ {
			fmt.Fprintf(&b, " %s=%d", e.Values().Get(j).Name(), e.Values().Get(j).Number())
		}
	}
	b.WriteString("\nextensions")
	fields(fd.Extensions())
	return b.String()
}
