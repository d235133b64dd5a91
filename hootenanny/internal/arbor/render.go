package arbor

import (
	"strings"
	"unicode"
)

// LineRunes is how many characters of a node's text a render shows before it cuts the text.
const LineRunes = 60

// Label returns a node as one line of a render: "Role: text" with the text cut at
// [LineRunes] characters (an ellipsis marks the cut) and newlines shown as ↵, or
// [source:identifier] for an external node.
func Label(c Content) string {
	if c.IsExternal() {
		return c.External.String()
	}
	return c.Role.String() + ": " + oneLine(c.Text)
}

// oneLine cuts text to LineRunes characters on one line: a line break (\r\n, \n or \r) is ↵,
// any other control character a space.
func oneLine(text string) string {
	var b strings.Builder
	n := 0
	for i, r := range text {
		if n == LineRunes {
			b.WriteString("…")
			break
		}
		switch {
		case r == '\n':
			if i > 0 && text[i-1] == '\r' {
				continue // \r\n is one line break, shown once
			}
			b.WriteRune('↵')
		case r == '\r':
			b.WriteRune('↵')
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
		n++
	}
	return b.String()
}

// RenderText draws nodes, as [Store.Walk] returns them (each before its children), as
// box-drawing text: one line a node, "└── " or "├── " before it, "│   " or "    " for each
// level above it, the first node at the top level. When truncated is set, a last line says
// that nodes were left out.
func RenderText(nodes []Node, truncated bool) string {
	var b strings.Builder
	walkLines(nodes, func(prefix string, last bool, n Node) {
		b.WriteString(prefix)
		if last {
			b.WriteString("└── ")
		} else {
			b.WriteString("├── ")
		}
		b.WriteString(Label(n.Content))
		b.WriteByte('\n')
	}, func(last bool) string {
		if last {
			return "    "
		}
		return "│   "
	})
	if truncated {
		b.WriteString("… more nodes below; render a subtree (node_id) or with a greater max_depth\n")
	}
	return b.String()
}

// RenderMarkdown draws nodes as Markdown nested lists, two spaces of indent a level, the role
// in bold and external handles as code.
func RenderMarkdown(nodes []Node, truncated bool) string {
	var b strings.Builder
	walkLines(nodes, func(prefix string, _ bool, n Node) {
		b.WriteString(prefix)
		b.WriteString("- ")
		if n.Content.IsExternal() {
			b.WriteString("`" + n.Content.External.String() + "`")
		} else {
			b.WriteString("**" + n.Content.Role.String() + "**: " + escapeMarkdown(oneLine(n.Content.Text)))
		}
		b.WriteByte('\n')
	}, func(bool) string { return "  " })
	if truncated {
		b.WriteString("\n*More nodes below; render a subtree or with a greater max_depth.*\n")
	}
	return b.String()
}

// walkLines calls line for each node with the prefix its ancestors give and whether it is its
// parent's last child drawn; indent says what a level adds below a node that was (or was not)
// last. nodes come each before its children, so one stack of prefixes follows the walk.
func walkLines(nodes []Node, line func(prefix string, last bool, n Node), indent func(last bool) string) {
	if len(nodes) == 0 {
		return
	}
	type frame struct {
		prefix string
		left   int // children of this node still to draw
	}
	// The stack holds, for each open ancestor, the prefix its children get.
	stack := []frame{{prefix: "", left: 1}}
	for _, n := range nodes {
		for len(stack) > 1 && stack[len(stack)-1].left == 0 {
			stack = stack[:len(stack)-1]
		}
		top := &stack[len(stack)-1]
		top.left--
		last := top.left == 0
		line(top.prefix, last, n)
		stack = append(stack, frame{prefix: top.prefix + indent(last), left: len(n.ChildIDs)})
	}
}

// escapeMarkdown puts a backslash before the characters that would make text something other
// than text in a list item.
func escapeMarkdown(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>#|~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
