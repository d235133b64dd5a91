package jobservice

import (
	"context"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/jobs"
	"google.golang.org/protobuf/proto"
)

// verifier serves cas_verify by counting the hashes it was asked for.
type verifier struct{ hootv1hoot.CasHandler }

func (verifier) CasVerify(_ context.Context, req *hootv1.CasVerifyRequest) (*hootv1.CasVerifyResult, error) {
	return &hootv1.CasVerifyResult{Checked: uint64(len(req.GetHashes()))}, nil
}

func TestResumerRunsTheStoredRequestAgain(t *testing.T) {
	t.Parallel()
	h := newHandler(t, database.SQLite)
	res := h.Resumer([]hootv1hoot.Service{hootv1hoot.NewCasService(verifier{}, h)})
	if !res.Resumable("cas_verify") || res.Resumable("cas_store") || res.Resumable("abc_book_to_midi") {
		t.Errorf("resumable: cas_verify %v, cas_store %v, abc_book_to_midi (not served here) %v; want true, false, false",
			res.Resumable("cas_verify"), res.Resumable("cas_store"), res.Resumable("abc_book_to_midi"))
	}
	if !res.Serves("cas_store") || res.Serves("abc_book_to_midi") {
		t.Errorf("serves: cas_store %v, abc_book_to_midi %v; want true, false", res.Serves("cas_store"), res.Serves("abc_book_to_midi"))
	}
	if !resumableTools["abc_book_to_midi"] || !resumableTools["cas_verify"] || resumableTools["artifact_create"] {
		t.Errorf("the schema's resumable tools = %v", resumableTools)
	}
	hashes := []string{strings.Repeat("a", 64), strings.Repeat("b", 64)}
	request, err := proto.Marshal(&hootv1.Payload{Request: &hootv1.Payload_CasVerify{CasVerify: &hootv1.CasVerifyRequest{Hashes: hashes}}})
	if err != nil {
		t.Fatal(err)
	}
	fn, err := res.Resume("cas_verify", request)
	if err != nil {
		t.Fatal(err)
	}
	out := fn(context.Background(), func(float64, float64, string) {})
	var got hootv1.Result
	if out.Failed || proto.Unmarshal(out.Result, &got) != nil || got.GetCasVerify().GetChecked() != 2 {
		t.Fatalf("the work run again = %+v (result %v), want cas_verify's result for 2 hashes", out, &got)
	}
	for _, bad := range []struct {
		tool    string
		request []byte
		want    string
	}{
		{"cas_verify", []byte{0xff, 0xff}, "does not decode"},
		{"abc_book_to_midi", request, "not a tool of this worker"},
		{"cas_store", request, `is a call of "cas_verify"`},
	} {
		if _, err := res.Resume(bad.tool, bad.request); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Resume(%s, %x) = %v, want an error saying %q", bad.tool, bad.request, err, bad.want)
		}
	}
	other, _ := proto.Marshal(&hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: "x"}}})
	if _, err := res.Resume("cas_verify", other); err == nil || !strings.Contains(err.Error(), `"echo"`) {
		t.Errorf("Resume of another tool's request = %v, want it refused", err)
	}
	var _ jobs.Resumer = res
}
