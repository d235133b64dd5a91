package arbor

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of the render")

// spec is a tree written for a test: content and children.
type spec struct {
	c    Content
	kids []spec
}

func text(r Role, s string, kids ...spec) spec { return spec{c: Content{Role: r, Text: s}, kids: kids} }

func ext(source, id string, kids ...spec) spec {
	return spec{c: Content{External: External{Source: source, Identifier: id}}, kids: kids}
}

// flatten gives the nodes of s as a walk returns them, each before its children.
func flatten(s spec) []Node {
	var out []Node
	n := 0
	var walk func(s spec, parent string, depth int)
	walk = func(s spec, parent string, depth int) {
		id := fmt.Sprintf("node_%06d", n)
		n++
		out = append(out, Node{ID: id, ParentID: parent, Depth: depth, Content: s.c})
		i := len(out) - 1
		for _, k := range s.kids {
			out[i].ChildIDs = append(out[i].ChildIDs, fmt.Sprintf("node_%06d", n))
			out[i].ChildCount++
			walk(k, id, depth+1)
		}
	}
	walk(s, "", 0)
	return out
}

func conversation() spec {
	return text(RoleSystem, "You are a helpful assistant",
		text(RoleUser, "Hello, how are you?",
			text(RoleAssistant, "I'm doing well, thank you! How can I help?")),
		text(RoleUser, "What's the weather?",
			text(RoleAssistant, "I don't have access to weather data.")))
}

// TestRenderExample checks the drawing of the two-branch conversation exactly.
func TestRenderExample(t *testing.T) {
	want := `└── System: You are a helpful assistant
    ├── User: Hello, how are you?
    │   └── Assistant: I'm doing well, thank you! How can I help?
    └── User: What's the weather?
        └── Assistant: I don't have access to weather data.
`
	if got := RenderText(flatten(conversation()), false); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestLabel(t *testing.T) {
	sixty := strings.Repeat("a", 60)
	for _, c := range []struct {
		in   Content
		want string
	}{
		{Content{Role: RoleUser, Text: "hi"}, "User: hi"},
		{Content{Role: RoleTool, Text: "line one\nline two\r\nthree\rfour"}, "Tool: line one↵line two↵three↵four"},
		{Content{Role: RoleAssistant, Text: sixty}, "Assistant: " + sixty},
		{Content{Role: RoleAssistant, Text: sixty + "b"}, "Assistant: " + sixty + "…"},
		{Content{Role: RoleUser, Text: strings.Repeat("é", 61)}, "User: " + strings.Repeat("é", 60) + "…"},
		{Content{Role: RoleUser, Text: "tab\there\x00bell\x07"}, "User: tab here bell "},
		{Content{Role: RoleSystem, Text: ""}, "System: "},
		{Content{External: External{Source: "artifact", Identifier: "art_x"}}, "[artifact:art_x]"},
	} {
		if got := Label(c.in); got != c.want {
			t.Errorf("Label(%+v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\n got %q\nwant %q", name, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s differs: %d lines, want %d", name, len(gl), len(wl))
	}
}

// wide is a root with n children, each with one answer.
func wide(n int) spec {
	root := text(RoleSystem, "Many users ask at once")
	for i := range n {
		root.kids = append(root.kids, text(RoleUser, fmt.Sprintf("question %d", i), text(RoleAssistant, fmt.Sprintf("answer %d", i))))
	}
	return root
}

// deep is a single conversation n turns long, with a branch every tenth turn.
func deep(n int) spec {
	var build func(i int) spec
	build = func(i int) spec {
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		s := text(role, fmt.Sprintf("turn %d", i))
		if i+1 < n {
			s.kids = append(s.kids, build(i+1))
			if i%10 == 0 {
				s.kids = append(s.kids, text(RoleUser, fmt.Sprintf("a branch at turn %d", i)))
			}
		}
		return s
	}
	return text(RoleSystem, "A long conversation", build(0))
}

// big is 10^4 nodes: a root with ten children, each with ten, and so on, four levels down,
// less one at the last level.
func big() spec {
	count := 1
	var build func(level int, name string) spec
	build = func(level int, name string) spec {
		role := []Role{RoleSystem, RoleUser, RoleAssistant, RoleTool, RoleUser}[level]
		s := text(role, name)
		if level == 4 {
			return s
		}
		for i := range 10 {
			if count == 10_000 {
				break
			}
			count++
			s.kids = append(s.kids, build(level+1, fmt.Sprintf("%s.%d", name, i)))
		}
		return s
	}
	return build(0, "n")
}

func TestRenderGolden(t *testing.T) {
	unicodeTree := text(RoleSystem, "Ты — полезный помощник. 你好！ مرحبا 🌳🌲",
		text(RoleUser, "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich — ½ ∑ ∞ ≠ ✓",
			ext("artifact", "art_01jd8x2k3m4n5p6q7r8s9t0vwx",
				text(RoleTool, "│ ├── └── box characters in the text itself"))),
		ext("node", "node_01jd8x2k3m4n5p6q7r8s9t0vwy"),
		ext("job", "job_01jd8x2k3m4n5p6q7r8s9t0vwz"))
	longTree := text(RoleSystem, strings.Repeat("A system prompt that goes on and on. ", 20),
		text(RoleUser, "First line\nSecond line\r\nThird line\n\nafter an empty line",
			text(RoleAssistant, "```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```")),
		text(RoleUser, strings.Repeat("x", 59)+"\n", text(RoleAssistant, strings.Repeat("y", 60))),
		text(RoleUser, strings.Repeat("z", 61)))
	for _, c := range []struct {
		name string
		s    spec
	}{
		{"example", conversation()},
		{"unicode", unicodeTree},
		{"long", longTree},
		{"deep", deep(200)},
		{"wide", wide(300)},
		{"big", big()},
	} {
		t.Run(c.name, func(t *testing.T) {
			nodes := flatten(c.s)
			golden(t, c.name+".txt", RenderText(nodes, false))
			if c.name != "big" { // the text golden is enough at this size
				golden(t, c.name+".md", RenderMarkdown(nodes, false))
			}
		})
	}
}

func TestRenderBig(t *testing.T) {
	nodes := flatten(big())
	if len(nodes) != 10_000 {
		t.Fatalf("the big tree has %d nodes, want 10000", len(nodes))
	}
	if lines := strings.Count(RenderText(nodes, false), "\n"); lines != 10_000 {
		t.Errorf("the render has %d lines, want one a node", lines)
	}
}

func TestRenderTruncated(t *testing.T) {
	// A walk cut short lists only the children it returned.
	nodes := flatten(conversation())[:2]
	nodes[0].ChildIDs = nodes[0].ChildIDs[:1]
	nodes[1].ChildIDs = nil
	got := RenderText(nodes, true)
	want := "└── System: You are a helpful assistant\n    └── User: Hello, how are you?\n" +
		"… more nodes below; render a subtree (node_id) or with a greater max_depth\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(RenderMarkdown(nodes, true), "More nodes below") {
		t.Error("the Markdown render does not say that nodes were left out")
	}
}

func TestRenderEmpty(t *testing.T) {
	if got := RenderText(nil, false); got != "" {
		t.Errorf("RenderText(nil) = %q", got)
	}
}

func TestEscapeMarkdown(t *testing.T) {
	if got, want := escapeMarkdown("a *b* _c_ [d](e) <f> `g` #h"), `a \*b\* \_c\_ \[d\](e) \<f\> \`+"`g\\`"+` \#h`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
