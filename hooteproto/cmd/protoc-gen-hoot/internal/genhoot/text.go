package genhoot

import (
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
)

// commentWidth is the column at which generated Go comments wrap.
const commentWidth = 97

// prose turns a proto comment into description text: paragraphs are separated by a blank
// line, the lines of a paragraph are joined with spaces, and lines that start a list item or
// are indented keep their own line. Lint directives ("buf:lint:...") are dropped.
func prose(c protogen.Comments) string {
	var paragraphs []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			paragraphs = append(paragraphs, cur.String())
			cur.Reset()
		}
	}
	for _, line := range strings.Split(string(c), "\n") {
		// protoc keeps the space after "//"; one leading space is the comment's own.
		line = strings.TrimRight(strings.TrimPrefix(line, " "), " \t")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			flush()
			continue
		case strings.HasPrefix(trimmed, "buf:lint:"):
			continue
		}
		if cur.Len() > 0 {
			if startsOwnLine(line) {
				cur.WriteByte('\n')
			} else {
				cur.WriteByte(' ')
			}
		}
		if startsOwnLine(line) {
			cur.WriteString(line)
		} else {
			cur.WriteString(trimmed)
		}
	}
	flush()
	return strings.Join(paragraphs, "\n\n")
}

// startsOwnLine reports whether a comment line is a list item or indented text, which keeps
// its line break.
func startsOwnLine(line string) bool {
	if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
		return true
	}
	if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") {
		return true
	}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(line[i:], ". ")
}

// joinProse joins non-empty pieces of description text as paragraphs.
func joinProse(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n\n")
}

// wrapComment writes text as Go comment lines of at most commentWidth columns, each starting
// with indent and "// ". Paragraphs stay apart.
func wrapComment(g *protogen.GeneratedFile, indent, text string) {
	width := commentWidth - len(indent) - len("// ")
	for i, para := range strings.Split(text, "\n\n") {
		if i > 0 {
			g.P(indent, "//")
		}
		for _, para := range strings.Split(para, "\n") {
			line := ""
			for _, word := range strings.Fields(para) {
				if line != "" && len(line)+1+len(word) > width {
					g.P(indent, "// ", line)
					line = ""
				}
				if line != "" {
					line += " "
				}
				line += word
			}
			if line != "" {
				g.P(indent, "// ", line)
			}
		}
	}
}

// camelCase turns a snake_case name into an exported Go name: "cas_get" becomes "CasGet".
func camelCase(s string) string {
	var b strings.Builder
	upper := true
	for _, r := range s {
		if r == '_' {
			upper = true
			continue
		}
		if upper && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		upper = false
		b.WriteRune(r)
	}
	return b.String()
}
