package mcp

import (
	"github.com/hootenanny/hoot/holler/internal/mcp/content"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The content blocks of results are package content's; these names are the core's for them.
type (
	// A contentBlock is one MCP content block (content.Block).
	contentBlock = content.Block
	// resourceContents are a resource's contents as MCP carries them (content.Resource).
	resourceContents = content.Resource
)

// textBlock returns a text content block.
func textBlock(s string) contentBlock { return content.Text(s) }

// contentBlocks returns the content blocks in the top-level hoot.v1.Content fields of m.
func contentBlocks(m proto.Message) []contentBlock { return content.Of(m) }

// nestedContentBlocks returns the content blocks of results nested in m, bounded.
func nestedContentBlocks(m proto.Message) []contentBlock { return content.Nested(m) }

// appendBlock appends the rendering of one hoot.v1.Content to out.
func appendBlock(out []contentBlock, m protoreflect.Message) []contentBlock {
	return content.Append(out, m)
}
