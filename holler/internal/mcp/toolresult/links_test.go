package toolresult

import (
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/proto"
)

func TestRefLinks(t *testing.T) {
	t.Parallel()
	hash := strings.Repeat("ab", 32)
	art := &hootv1.Artifact{Id: "art_1", Hash: hash, ParentIds: []string{"art_0"}}
	many := &hootv1.ArtifactQueryResult{}
	for i := range 30 {
		id := "art_" + strings.Repeat("x", i+1)
		many.Data = append(many.Data, &hootv1.QueryField{Value: &hootv1.QueryField_Artifact{Artifact: &hootv1.ArtifactNode{Id: &id}}})
	}
	for _, tc := range []struct {
		name string
		m    proto.Message
		base string
		want []string
	}{
		{"artifact with parents", &hootv1.ArtifactCreateResult{Artifact: art}, "http://h", []string{
			"http://h/artifacts/art_1/content", "http://h/cas/" + hash, "http://h/artifacts/art_0/content"}},
		{"nested lists, each once", &hootv1.ArtifactGetResult{Artifact: art, Parents: []*hootv1.Artifact{{Id: "art_0", Hash: hash}}}, "http://h", []string{
			"http://h/artifacts/art_1/content", "http://h/cas/" + hash, "http://h/artifacts/art_0/content"}},
		{"no base, no links", &hootv1.ArtifactCreateResult{Artifact: art}, "", nil},
		{"unmarked fields", &hootv1.EchoResult{Message: "art_1"}, "http://h", nil},
	} {
		var got []string
		for _, b := range refLinks(tc.m, tc.base) {
			if b.Type != "resource_link" || b.Name == "" {
				t.Errorf("%s: block %+v", tc.name, b)
			}
			got = append(got, b.URI)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: links = %v, want %v", tc.name, got, tc.want)
		}
	}
	if n := len(refLinks(many, "http://h")); n != maxLinks {
		t.Errorf("a query naming 30 artifacts gave %d links, want %d", n, maxLinks)
	}
}

// TestNestedLinks checks that an artifact inside a finished job's result, inside job_await's
// answer, is linked like any artifact.
func TestNestedLinks(t *testing.T) {
	t.Parallel()
	job := func(r *hootv1.MidiRenderResult) *hootv1.Job {
		return &hootv1.Job{Id: "job_1", Result: &hootv1.Result{Result: &hootv1.Result_MidiRender{MidiRender: r}}}
	}
	linked := &hootv1.MidiRenderResult{Artifact: &hootv1.Artifact{Id: "art_2", ParentIds: []string{"art_1"}}}
	links := refLinks(&hootv1.JobAwaitResult{Jobs: []*hootv1.Job{job(linked)}}, "http://h")
	if len(links) != 2 || links[0].URI != "http://h/artifacts/art_2/content" || links[1].URI != "http://h/artifacts/art_1/content" {
		t.Fatalf("links %+v", links)
	}
}
