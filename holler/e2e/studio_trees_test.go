package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestStudioTrees: a tree started on the Trees page is drawn as tree_render draws it; a node
// opens its path and the artifacts its nodes name; a branch typed by hand appears in the drawing.
func TestStudioTrees(t *testing.T) {
	t.Parallel()
	path := chromium(t)
	url := startStack(t)
	base := strings.TrimSuffix(url, "/mcp")
	s := connectHTTP(t, url)
	c := newCaller(t, s)
	art := toString(obj(c.call("artifact_create", map[string]any{"content": "X:1\nK:C\nCDEF|]\n", "mime_type": "text/vnd.abc"}), "artifact")["id"])
	if art == "" {
		t.Fatal("no artifact")
	}

	ctx, step, text := browserSteps(t, path)
	step("start a tree on the page",
		chromedp.Navigate(base+"/studio/#/trees"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="#/trees"]`)),
		chromedp.SendKeys(chromedp.CSS(`#tree-new input[name="text"]`), "You are <b>a</b> helpful assistant"),
		chromedp.Click(chromedp.CSS(`#tree-new button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.Search(`//ul[@id="tree-drawing"]//button[.="System: You are <b>a</b> helpful assistant"]`)),
	)
	// The text is shown as text: no element was made from the markup in it.
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#tree-drawing b').length`)); err != nil || n != 0 {
		t.Fatalf("markup in a node became %d elements (%v)", n, err)
	}
	hash, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash`))
	if err != nil || !strings.HasPrefix(hash, "#/tree/tree_") {
		t.Fatalf("after starting a tree the page is at %q (%v)", hash, err)
	}
	tree := strings.TrimPrefix(hash, "#/tree/")
	root := toString(obj(c.call("tree_get", map[string]any{"tree_id": tree}), "tree")["root_id"])
	user := toString(obj(c.call("tree_add_node", map[string]any{"tree_id": tree, "parent_id": root, "role": "TURN_ROLE_USER", "text": "Play me a tune"}), "node")["id"])
	ext := toString(obj(c.call("tree_add_node", map[string]any{"tree_id": tree, "parent_id": user, "external": "artifact:" + art}), "node")["id"])

	step("see it drawn and open a node's path",
		chromedp.Navigate(base+"/studio/#/trees"),
		chromedp.WaitVisible(chromedp.CSS(`#trees a[href="#/tree/`+tree+`"]`)),
		chromedp.Click(chromedp.CSS(`#trees a[href="#/tree/`+tree+`"]`)),
		chromedp.WaitVisible(chromedp.Search(`//ul[@id="tree-drawing"]//button[.="[artifact:`+art+`]"]`)),
		chromedp.Click(chromedp.CSS(`#tree-drawing button[data-node="`+ext+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-path="`+ext+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#tree-artifacts a[href="#/artifact/`+art+`"]`)),
	)
	p := text(`#tree-path`)
	for _, want := range []string{"System: You are <b>a</b> helpful assistant", "User: Play me a tune", "[artifact:" + art + "]"} {
		if !strings.Contains(p, want) {
			t.Errorf("path %q lacks %q", p, want)
		}
	}

	step("add a branch by hand under the user's turn",
		chromedp.Click(chromedp.CSS(`#tree-drawing button[data-node="`+user+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-path="`+user+`"]`)),
		chromedp.SendKeys(chromedp.CSS(`#tree-continue input[name="user"]`), "Something slower"),
		chromedp.SendKeys(chromedp.CSS(`#tree-continue input[name="assistant"]`), "Here is an air."),
		chromedp.Click(chromedp.CSS(`#tree-continue button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.Search(`//ul[@id="tree-drawing"]//button[.="Assistant: Here is an air."]`)),
		// The answer is selected once it is in: its path is shown.
		chromedp.WaitVisible(chromedp.Search(`//ol[@id="tree-path"]/li[.="Assistant: Here is an air."]`)),
	)
	// The new turns hang under the chosen node, and the path of the answer runs through them.
	p = text(`#tree-path`)
	if !strings.Contains(p, "User: Play me a tune") || !strings.Contains(p, "User: Something slower") || !strings.Contains(p, "Assistant: Here is an air.") {
		t.Errorf("path of the new answer: %q", p)
	}
	// An empty box adds nothing and says what to type.
	before := toString(c.call("tree_render", map[string]any{"tree_id": tree})["text"])
	step("an empty box is refused",
		chromedp.Click(chromedp.CSS(`#tree-continue button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.Search(`//form[@id="tree-continue"]/p[@class="error" and contains(., "Type a user turn")]`)),
	)
	if after := toString(c.call("tree_render", map[string]any{"tree_id": tree})["text"]); after != before {
		t.Errorf("an empty box changed the tree:\n%s\nto\n%s", before, after)
	}
	got := c.call("tree_render", map[string]any{"tree_id": tree})
	drawn := toString(got["text"])
	if !strings.Contains(drawn, "User: Something slower") || !strings.Contains(drawn, "Assistant: Here is an air.") {
		t.Errorf("tree_render after the page's branch: %v", got)
	}
}

// TestStudioTreesPages: past the first page of 50 trees, the Trees page shows the older ones
// when asked, following tree_list's cursor, until the oldest is listed.
func TestStudioTreesPages(t *testing.T) {
	t.Parallel()
	path := chromium(t)
	url := startStack(t)
	base := strings.TrimSuffix(url, "/mcp")
	c := newCaller(t, connectHTTP(t, url))
	const total = 57
	ids := make([]string, total) // oldest first
	for i := range ids {
		ids[i] = toString(obj(c.call("tree_create", map[string]any{"role": "TURN_ROLE_SYSTEM", "text": fmt.Sprintf("Tree %d", i)}), "tree")["id"])
	}
	count := `document.querySelectorAll('#trees a[href^="#/tree/"]').length`

	ctx, step, text := browserSteps(t, path)
	step("open the first page",
		chromedp.Navigate(base+"/studio/#/trees"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="#/trees"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#trees a[href="#/tree/`+ids[total-1]+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#trees-more`)),
	)
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](count)); err != nil || n != 50 {
		t.Fatalf("the first page lists %d trees (%v), want 50", n, err)
	}
	if note := text(`#trees-note`); !strings.Contains(note, "50 trees") || !strings.Contains(note, "older") {
		t.Errorf("the note says %q", note)
	}
	step("show the older trees",
		chromedp.Click(chromedp.CSS(`#trees-more`)),
		chromedp.WaitVisible(chromedp.CSS(`#trees a[href="#/tree/`+ids[0]+`"]`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#trees-more`)),
	)
	listed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#trees a[href^="#/tree/"]'), (a) => a.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	// Every tree once, newest first.
	want := slices.Clone(ids)
	slices.Reverse(want)
	if !slices.Equal(listed, want) {
		t.Errorf("the page lists %d trees:\n%q\nwant\n%q", len(listed), listed, want)
	}
	if note := text(`#trees-note`); !strings.Contains(note, fmt.Sprintf("%d trees, newest first.", total)) {
		t.Errorf("the note says %q", note)
	}
}
