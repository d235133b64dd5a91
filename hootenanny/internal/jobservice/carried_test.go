package jobservice

import (
	"testing"

	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

// TestToolOfCarriedCall: a stored call of a fixture, which travels in hoot.v1.Payload's carried
// member, is known by its own tool's name and kind, so that its job can be taken up again when
// its questions are answered.
func TestToolOfCarriedCall(t *testing.T) {
	t.Parallel()
	for _, tool := range conformancev1hoot.Fixtures {
		if tool.Name != conformancev1hoot.ConfirmDeleteToolName {
			continue
		}
		p := tool.Wrap(&conformancev1.ConformanceConfirmDeleteRequest{Filename: "a.txt"})
		if got := toolOf(p); got != tool.Name {
			t.Errorf("toolOf(a carried %s) = %q", tool.Name, got)
		}
		if got := requestOptions(p).GetKind(); got != hootv1.Kind_KIND_JOB {
			t.Errorf("the kind of a carried %s = %v, want KIND_JOB", tool.Name, got)
		}
		return
	}
	t.Fatal("no confirm_delete fixture")
}
