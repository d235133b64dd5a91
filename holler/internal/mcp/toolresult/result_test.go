package toolresult

import (
	"errors"
	"strings"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/hooteproto"
)

// TestTyped checks that a typed result is its compact JSON as structured content and as text
// when it carries no content of its own, that links follow only under a base, and that the
// content of a job nested in it is added only when asked for.
func TestTyped(t *testing.T) {
	t.Parallel()
	render := &hootv1.MidiRenderResult{Artifact: &hootv1.Artifact{Id: "art_2"}}
	r, err := Typed(render, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(string(r.StructuredContent), " \n") || !strings.Contains(string(r.StructuredContent), `"id":"art_2"`) {
		t.Errorf("structured content = %s", r.StructuredContent)
	}
	if len(r.Content) != 1 || r.Content[0].Text == nil || *r.Content[0].Text != string(r.StructuredContent) {
		t.Errorf("content = %+v", r.Content)
	}
	linked, err := Typed(render, "http://h", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(linked.Content) != 2 || linked.Content[1].URI != "http://h/artifacts/art_2/content" {
		t.Errorf("content under a base = %+v", linked.Content)
	}

	job := &hootv1.JobAwaitResult{Jobs: []*hootv1.Job{{Id: "job_1", Result: &hootv1.Result{
		Result: &hootv1.Result_MidiRender{MidiRender: &hootv1.MidiRenderResult{Content: []*hootv1.Content{
			{Block: &hootv1.Content_Text{Text: "Rendered 3 s"}},
		}}}}}}}
	plain, err := Typed(job, "", false)
	if err != nil {
		t.Fatal(err)
	}
	nested, err := Typed(job, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Content) != 1 || len(nested.Content) != 2 || *nested.Content[1].Text != "Rendered 3 s" {
		t.Errorf("content without nested %+v, with %+v", plain.Content, nested.Content)
	}
}

// TestFailure checks the text a model reads of a tool's failure: what failed, the field, the
// hint, and whether a retry helps; and that a guided failure carries its guidance in _meta.
func TestFailure(t *testing.T) {
	t.Parallel()
	e := hooteproto.NewError(hooteproto.CodeUnavailable, "worker gone").WithField("hash").WithHint("Wait.").WithRetryAfter(1500 * time.Millisecond)
	r := Failure("cas_get", e)
	got := *r.Content[0].Text
	for _, want := range []string{"cas_get failed (", "worker gone", "\nfield: hash", "\nhint: Wait.", "\nretryable: yes, after 1.5s"} {
		if !strings.Contains(got, want) {
			t.Errorf("text %q lacks %q", got, want)
		}
	}
	if !r.IsError || r.Code != hooteproto.CodeUnavailable || r.Meta != nil || r.StructuredContent != nil {
		t.Errorf("failure = %+v", r)
	}
	plain := hooteproto.AsError(errors.New("no"))
	if got := *Failure("x", plain).Content[0].Text; !strings.HasSuffix(got, "retryable: no; the same call will fail again") {
		t.Errorf("text of a final failure = %q", got)
	}
	g := &guidance.Data{Hint: "Ask an operator."}
	guided := Guided("x", plain, g)
	if guided.Meta == nil || guided.Meta.Guidance != g || !guided.IsError {
		t.Errorf("guided = %+v", guided)
	}
}
