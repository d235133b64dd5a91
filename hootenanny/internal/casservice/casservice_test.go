package casservice

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/cas/storetest"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
)

var quiet = slog.New(slog.DiscardHandler)

func newHandler(t *testing.T, opts *cas.Options) (*Handler, string) {
	t.Helper()
	dir := t.TempDir()
	if opts == nil {
		opts = &cas.Options{}
	}
	opts.Logger = quiet
	store, err := cas.OpenDir(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	h := New(store)
	h.Logger = quiet
	return h, dir
}

func storeText(t *testing.T, h *Handler, text, mimeType string) *hootv1.CasStoreResult {
	t.Helper()
	res, err := h.CasStore(context.Background(), &hootv1.CasStoreRequest{
		Data:     &hootv1.CasStoreRequest_Content{Content: text},
		MimeType: mimeType,
	})
	if err != nil {
		t.Fatalf("cas_store(%q): %v", text, err)
	}
	return res
}

func storeBytes(t *testing.T, h *Handler, b []byte, mimeType string) *hootv1.CasStoreResult {
	t.Helper()
	res, err := h.CasStore(context.Background(), &hootv1.CasStoreRequest{
		Data:     &hootv1.CasStoreRequest_ContentBase64{ContentBase64: b},
		MimeType: mimeType,
	})
	if err != nil {
		t.Fatalf("cas_store(%q): %v", b, err)
	}
	return res
}

func get(t *testing.T, h *Handler, req *hootv1.CasGetRequest) *hootv1.CasGetResult {
	t.Helper()
	res, err := h.CasGet(context.Background(), req)
	if err != nil {
		t.Fatalf("cas_get(%v): %v", req, err)
	}
	return res
}

// wantError fails unless err is a *hooteproto.Error with the code and field whose message
// and hint contain the given parts.
func wantError(t *testing.T, err error, code hooteproto.Code, field string, inMessage, inHint string) *hooteproto.Error {
	t.Helper()
	var he *hooteproto.Error
	if !errors.As(err, &he) {
		t.Fatalf("error %v (%T) is not a *hooteproto.Error", err, err)
	}
	if he.Code() != code || he.Field() != field {
		t.Errorf("error %v: code %v field %q, want %v and %q", he, he.Code(), he.Field(), code, field)
	}
	if !strings.Contains(he.Message(), inMessage) {
		t.Errorf("message %q does not say %q", he.Message(), inMessage)
	}
	if !strings.Contains(he.Hint(), inHint) {
		t.Errorf("hint %q does not say %q", he.Hint(), inHint)
	}
	return he
}

const helloHash = "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"

func TestStoreText(t *testing.T) {
	h, _ := newHandler(t, nil)
	res := storeText(t, h, "hello world", "")
	want := &hootv1.CasStoreResult{Hash: helloHash, Size: 11, MimeType: DefaultTextMediaType}
	if !proto.Equal(res, want) {
		t.Errorf("cas_store = %v, want %v", res, want)
	}
	again := storeText(t, h, "hello world", "text/markdown")
	want.Existed = true
	if !proto.Equal(again, want) {
		t.Errorf("cas_store again = %v, want %v (the first media type kept)", again, want)
	}
	empty := storeText(t, h, "", "")
	if empty.GetSize() != 0 || empty.GetHash() != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("cas_store of empty text = %v", empty)
	}
}

func TestStoreBytes(t *testing.T) {
	h, _ := newHandler(t, nil)
	midi := []byte("MThd\x00\x00\x00\x06\x00\x00\x00\x01\x00\x60")
	res := storeBytes(t, h, midi, "audio/midi")
	if res.GetSize() != uint64(len(midi)) || res.GetMimeType() != "audio/midi" || res.GetExisted() || res.GetHash() != cas.Sum(midi).String() {
		t.Errorf("cas_store = %v", res)
	}
	if res := storeBytes(t, h, []byte{0xff, 0xfe}, ""); res.GetMimeType() != cas.DefaultMediaType {
		t.Errorf("bytes without a media type recorded as %q", res.GetMimeType())
	}
}

func TestStoreErrors(t *testing.T) {
	h, _ := newHandler(t, &cas.Options{MaxObjectSize: 8})
	ctx := context.Background()

	_, err := h.CasStore(ctx, &hootv1.CasStoreRequest{MimeType: "text/plain"})
	wantError(t, err, hooteproto.CodeInvalidArgument, "content", "no content was given", "content_base64")

	_, err = h.CasStore(ctx, &hootv1.CasStoreRequest{Data: &hootv1.CasStoreRequest_Content{Content: "far too long"}})
	wantError(t, err, hooteproto.CodeInvalidArgument, "content", "content is 12 bytes, more than the store's limit of 8 bytes", "at most 8 bytes")

	_, err = h.CasStore(ctx, &hootv1.CasStoreRequest{Data: &hootv1.CasStoreRequest_ContentBase64{ContentBase64: make([]byte, 9)}})
	wantError(t, err, hooteproto.CodeInvalidArgument, "content_base64", "content_base64 is 9 bytes, more than the store's limit of 8 bytes", "split")

	_, err = h.CasStore(ctx, &hootv1.CasStoreRequest{Data: &hootv1.CasStoreRequest_Content{Content: "abc"}, MimeType: "plain text"})
	wantError(t, err, hooteproto.CodeInvalidArgument, "mime_type", `media type "plain text" has no '/'`, "text/plain")

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = h.CasStore(canceled, &hootv1.CasStoreRequest{Data: &hootv1.CasStoreRequest_Content{Content: "abc"}})
	if code := hooteproto.CodeOf(err); code != hooteproto.CodeCanceled {
		t.Errorf("cas_store with a cancelled context: %v (%v)", err, code)
	}
}

func TestStoreInternalError(t *testing.T) {
	h, dir := newHandler(t, nil)
	if err := os.RemoveAll(filepath.Join(dir, "tmp")); err != nil {
		t.Fatal(err)
	}
	_, err := h.CasStore(context.Background(), &hootv1.CasStoreRequest{Data: &hootv1.CasStoreRequest_Content{Content: "abc"}})
	he := wantError(t, err, hooteproto.CodeInternal, "", "storing the content failed", "fault in the server")
	if strings.Contains(he.Error(), dir) || strings.Contains(he.Hint(), dir) {
		t.Errorf("internal error leaks the store's path: %v", he)
	}
}

func TestGetText(t *testing.T) {
	h, _ := newHandler(t, nil)
	abc := "X:1\nT:Example\nK:C\nCDEF|\n"
	st := storeText(t, h, abc, "text/vnd.abc")
	res := get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash()})
	want := &hootv1.CasGetResult{
		Hash:     st.GetHash(),
		MimeType: "text/vnd.abc",
		Size:     uint64(len(abc)),
		Data:     &hootv1.CasGetResult_Content{Content: abc},
	}
	if !proto.Equal(res, want) {
		t.Errorf("cas_get = %v, want %v", res, want)
	}

	part := get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash(), Offset: 4, Length: 10})
	if part.GetContent() != abc[4:14] || !part.GetTruncated() || part.GetOffset() != 4 || part.GetSize() != uint64(len(abc)) {
		t.Errorf("cas_get of a part = %v", part)
	}
	last := get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash(), Offset: 14})
	if last.GetContent() != abc[14:] || last.GetTruncated() {
		t.Errorf("cas_get of the last part = %v", last)
	}
	end := get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash(), Offset: uint64(len(abc))})
	if _, ok := end.GetData().(*hootv1.CasGetResult_Content); !ok || end.GetContent() != "" || end.GetTruncated() {
		t.Errorf("cas_get at the end = %v, want empty text", end)
	}
}

func TestGetChoosesTextOrBase64(t *testing.T) {
	h, _ := newHandler(t, nil)
	for _, tc := range []struct {
		name     string
		content  []byte
		mimeType string
		text     bool
	}{
		{"text/plain", []byte("plain text"), "text/plain", true},
		{"json", []byte(`{"a":1}`), "application/json; charset=utf-8", true},
		{"suffix", []byte(`<svg/>`), "image/svg+xml", true},
		{"uppercase type", []byte("shouting"), "TEXT/PLAIN", true},
		{"text with invalid UTF-8", []byte("caf\xe9"), "text/plain; charset=iso-8859-1", false},
		{"text/plain in UTF-16", []byte("h\x00i\x00"), "text/plain; charset=utf-16le", false},
		{"latin-1 text that is ASCII", []byte("plain"), "text/plain; charset=iso-8859-1", true},
		{"midi", []byte("MThd"), "audio/midi", false},
		{"png", []byte("\x89PNG\r\n"), "image/png", false},
		{"untyped text", []byte("héllo\tworld\r\n"), "", true},
		{"untyped control characters", []byte("abc\x00def"), "", false},
		{"untyped invalid UTF-8", []byte{0xff, 0x00, 0x10}, "", false},
		{"untyped DEL", []byte("a\x7f"), "application/octet-stream", false},
	} {
		st := storeBytes(t, h, tc.content, tc.mimeType)
		res := get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash()})
		switch data := res.GetData().(type) {
		case *hootv1.CasGetResult_Content:
			if !tc.text || data.Content != string(tc.content) {
				t.Errorf("%s: returned as text %q", tc.name, data.Content)
			}
		case *hootv1.CasGetResult_ContentBase64:
			if tc.text || !bytes.Equal(data.ContentBase64, tc.content) {
				t.Errorf("%s: returned as base64 %q", tc.name, data.ContentBase64)
			}
		default:
			t.Errorf("%s: no data in %v", tc.name, res)
		}
		if res.GetTruncated() {
			t.Errorf("%s: truncated", tc.name)
		}
	}
}

func TestGetNeverSplitsARune(t *testing.T) {
	h, _ := newHandler(t, nil)
	text := "ab€cd" // € is three bytes, at offsets 2 to 4
	st := storeText(t, h, text, "text/plain")

	// Asking for 3 bytes would end inside €: the part ends before it instead.
	res := get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash(), Length: 3})
	if res.GetContent() != "ab" || !res.GetTruncated() {
		t.Errorf("part ending inside a rune = %v, want text \"ab\", truncated", res)
	}
	// Reading on from offset plus the part's length gets the whole rune.
	res = get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash(), Offset: 2, Length: 3})
	if res.GetContent() != "€" || !res.GetTruncated() {
		t.Errorf("next part = %v, want text \"€\"", res)
	}
	// A part that would shrink to nothing comes back as base64.
	res = get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash(), Offset: 2, Length: 2})
	if !bytes.Equal(res.GetContentBase64(), []byte(text)[2:4]) || !res.GetTruncated() {
		t.Errorf("part inside a rune = %v, want base64 of its two bytes", res)
	}
	// So does a part that starts inside a rune.
	res = get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash(), Offset: 3})
	if !bytes.Equal(res.GetContentBase64(), []byte(text)[3:]) || res.GetTruncated() {
		t.Errorf("part starting inside a rune = %v, want base64", res)
	}
	// Reading a whole text in small parts gives the text back.
	var got strings.Builder
	for offset := uint64(0); ; {
		res := get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash(), Offset: offset, Length: 4})
		n := len(res.GetContent()) + len(res.GetContentBase64())
		got.WriteString(res.GetContent())
		got.Write(res.GetContentBase64())
		offset += uint64(n)
		if !res.GetTruncated() {
			break
		}
	}
	if got.String() != text {
		t.Errorf("read in parts: %q", got.String())
	}

	// Text that ends in a cut-off sequence is not valid UTF-8: base64.
	st = storeBytes(t, h, []byte("ab\xe2\x82"), "text/plain")
	res = get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash()})
	if res.GetContentBase64() == nil {
		t.Errorf("invalid text = %v, want base64", res)
	}
}

func TestGetLength(t *testing.T) {
	h, _ := newHandler(t, nil)
	big := strings.Repeat("0123456789abcdef", MaxPartLength/16+1)
	st := storeText(t, h, big, "")
	res := get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash()})
	if len(res.GetContent()) != MaxPartLength || !res.GetTruncated() || res.GetSize() != uint64(len(big)) {
		t.Errorf("cas_get without a length returned %d bytes, truncated %v", len(res.GetContent()), res.GetTruncated())
	}
	res = get(t, h, &hootv1.CasGetRequest{Hash: st.GetHash(), Offset: MaxPartLength, Length: MaxPartLength})
	if res.GetContent() != big[MaxPartLength:] || res.GetTruncated() {
		t.Errorf("cas_get of the rest returned %d bytes, truncated %v", len(res.GetContent()), res.GetTruncated())
	}

	_, err := h.CasGet(context.Background(), &hootv1.CasGetRequest{Hash: st.GetHash(), Length: MaxPartLength + 1})
	wantError(t, err, hooteproto.CodeInvalidArgument, "length", "length 1048577 is more than the 1 MiB (1048576 bytes) that one call returns", "offset")
}

func TestGetErrors(t *testing.T) {
	h, _ := newHandler(t, nil)
	st := storeText(t, h, "0123456789", "text/plain")
	ctx := context.Background()

	_, err := h.CasGet(ctx, &hootv1.CasGetRequest{Hash: st.GetHash(), Offset: 11})
	wantError(t, err, hooteproto.CodeInvalidArgument, "offset", "offset 11 is past the end of the object, which is 10 bytes long", "between 0 and 10")

	_, err = h.CasGet(ctx, &hootv1.CasGetRequest{Hash: st.GetHash(), Offset: 1 << 63})
	wantError(t, err, hooteproto.CodeInvalidArgument, "offset", "offset 9223372036854775808 is past the end of the object, which is 10 bytes long", "cas_inspect")

	_, err = h.CasGet(ctx, &hootv1.CasGetRequest{Hash: helloHash})
	wantError(t, err, hooteproto.CodeNotFound, "hash", "no object has the hash "+helloHash, "store content with cas_store first")

	_, err = h.CasGet(ctx, &hootv1.CasGetRequest{Hash: helloHash, Offset: 1 << 63})
	wantError(t, err, hooteproto.CodeNotFound, "hash", "no object has the hash", "cas_store")

	_, err = h.CasGet(ctx, &hootv1.CasGetRequest{Hash: helloHash[:63]})
	wantError(t, err, hooteproto.CodeInvalidArgument, "hash", "hash has 63 characters; a hash is 64 lowercase hex digits as returned by cas_store", "exactly as cas_store returned it")

	_, err = h.CasGet(ctx, &hootv1.CasGetRequest{})
	wantError(t, err, hooteproto.CodeInvalidArgument, "hash", "hash is empty", "cas_store")
}

func TestBadHashes(t *testing.T) {
	h, _ := newHandler(t, nil)
	for _, tc := range []struct{ in, want string }{
		{strings.ToUpper(helloHash), "hash has uppercase 'B' at character 1"},
		{"sha256:" + helloHash, "hash has 71 characters and 's' at character 1, which is not a hex digit"},
		{helloHash[:5] + "z" + helloHash[6:], "hash has 'z' at character 6, which is not a hex digit"},
	} {
		_, err := h.CasGet(context.Background(), &hootv1.CasGetRequest{Hash: tc.in})
		wantError(t, err, hooteproto.CodeInvalidArgument, "hash", tc.want, "cas_store")
		_, err = h.CasInspect(context.Background(), &hootv1.CasInspectRequest{Hash: tc.in})
		wantError(t, err, hooteproto.CodeInvalidArgument, "hash", tc.want, "cas_store")
	}
}

func TestInspect(t *testing.T) {
	h, _ := newHandler(t, nil)
	before := time.Now().Add(-time.Second)
	st := storeBytes(t, h, []byte("MThd"), "audio/midi")
	res, err := h.CasInspect(context.Background(), &hootv1.CasInspectRequest{Hash: st.GetHash()})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetHash() != st.GetHash() || res.GetSize() != 4 || res.GetMimeType() != "audio/midi" {
		t.Errorf("cas_inspect = %v", res)
	}
	at := res.GetStoredAt().AsTime()
	if at.Before(before) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("stored_at = %v", at)
	}

	_, err = h.CasInspect(context.Background(), &hootv1.CasInspectRequest{Hash: helloHash})
	wantError(t, err, hooteproto.CodeNotFound, "hash", "no object has the hash "+helloHash, "store content with cas_store first")
}

func TestReadInternalErrors(t *testing.T) {
	h, dir := newHandler(t, nil)
	// A directory where the object should be is a fault in the store, not in the call.
	path := filepath.Join(dir, "objects", helloHash[:2], helloHash)
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := h.CasGet(context.Background(), &hootv1.CasGetRequest{Hash: helloHash})
	he := wantError(t, err, hooteproto.CodeInternal, "", "reading the object failed", "fault in the server")
	if strings.Contains(he.Error(), dir) {
		t.Errorf("internal error leaks the store's path: %v", he)
	}
	_, err = h.CasInspect(context.Background(), &hootv1.CasInspectRequest{Hash: helloHash})
	he = wantError(t, err, hooteproto.CodeInternal, "", "inspecting the object failed", "fault in the server")
	if strings.Contains(he.Error(), dir) {
		t.Errorf("internal error leaks the store's path: %v", he)
	}
	if te := hooteproto.ToolErrorOf(err); te.GetCategory() != hootv1.ErrorCategory_ERROR_CATEGORY_INTERNAL || strings.Contains(te.GetMessage(), dir) {
		t.Errorf("wire form = %v", te)
	}
}

func TestThroughDispatch(t *testing.T) {
	h, _ := newHandler(t, nil)
	jobs := &inlineJobs{}
	svc := hootv1hoot.NewCasService(h, jobs)
	ctx := context.Background()
	res, err := svc.Dispatch(ctx, &hootv1.Payload{Request: &hootv1.Payload_CasStore{CasStore: &hootv1.CasStoreRequest{
		Data: &hootv1.CasStoreRequest_Content{Content: "hello world"},
	}}})
	if err != nil || res.GetCasStore().GetHash() != helloHash {
		t.Fatalf("cas_store through Dispatch = %v, %v", res, err)
	}
	res, err = svc.Dispatch(ctx, &hootv1.Payload{Request: &hootv1.Payload_CasGet{CasGet: &hootv1.CasGetRequest{Hash: helloHash}}})
	if err != nil || res.GetCasGet().GetContent() != "hello world" {
		t.Fatalf("cas_get through Dispatch = %v, %v", res, err)
	}
	res, err = svc.Dispatch(ctx, &hootv1.Payload{Request: &hootv1.Payload_CasInspect{CasInspect: &hootv1.CasInspectRequest{Hash: helloHash}}})
	if err != nil || res.GetCasInspect().GetSize() != 11 {
		t.Fatalf("cas_inspect through Dispatch = %v, %v", res, err)
	}
	// Results survive the wire: text stays valid UTF-8 for protobuf.
	if _, err := proto.Marshal(res); err != nil {
		t.Fatal(err)
	}
	// A tool of kind JOB goes to the job starter, which answers with the job.
	res, err = svc.Dispatch(ctx, &hootv1.Payload{Request: &hootv1.Payload_CasVerify{CasVerify: &hootv1.CasVerifyRequest{}}})
	if err != nil || res.GetJobStarted().GetJobId() != "job_inline" || jobs.tool != "cas_verify" {
		t.Fatalf("cas_verify through Dispatch = %v, %v", res, err)
	}
	if jobs.result.GetCasVerify().GetChecked() != 1 {
		t.Errorf("the job's result = %v", jobs.result)
	}
}

// inlineJobs runs a job's work at once, for tests.
type inlineJobs struct {
	tool   string
	result *hootv1.Result
}

func (j *inlineJobs) StartJob(ctx context.Context, tool string, _ *hootv1.Payload, run func(context.Context) (*hootv1.Result, error)) (*hootv1.Result, error) {
	res, err := run(ctx)
	if err != nil {
		return nil, err
	}
	j.tool, j.result = tool, res
	return &hootv1.Result{Result: &hootv1.Result_JobStarted{JobStarted: &hootv1.JobStarted{JobId: "job_inline", Tool: tool}}}, nil
}

func TestVerify(t *testing.T) {
	t.Parallel()
	h, dir := newHandler(t, nil)
	good := storeText(t, h, "good", "")
	bad := storeText(t, h, "bad", "")
	path := filepath.Join(dir, "objects", bad.GetHash()[:2], bad.GetHash())
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("BAD"), 0o644); err != nil {
		t.Fatal(err)
	}
	var reports []*hootv1.Progress
	ctx := hooteproto.WithProgress(context.Background(), func(p *hootv1.Progress) { reports = append(reports, p) })
	for _, tc := range []struct {
		name     string
		hashes   []string
		checked  uint64
		problems []string
	}{
		{"every object", nil, 2, []string{"hash mismatch"}},
		{"one good", []string{good.GetHash()}, 1, nil},
		{"one missing", []string{strings.Repeat("0", 64)}, 1, []string{"missing"}},
	} {
		reports = nil
		res, err := h.CasVerify(ctx, &hootv1.CasVerifyRequest{Hashes: tc.hashes})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.GetChecked() != tc.checked || len(res.GetProblems()) != len(tc.problems) {
			t.Errorf("%s: %v", tc.name, res)
		}
		for i, p := range tc.problems {
			if !strings.HasPrefix(res.GetProblems()[i].GetProblem(), p) {
				t.Errorf("%s: problem %d = %q, want %q", tc.name, i, res.GetProblems()[i].GetProblem(), p)
			}
		}
		if last := reports[len(reports)-1]; last.GetProgress() != float64(tc.checked) || last.GetTotal() != float64(tc.checked) {
			t.Errorf("%s: last progress %v", tc.name, last)
		}
	}
	_, err := h.CasVerify(context.Background(), &hootv1.CasVerifyRequest{Hashes: []string{"nope"}})
	wantError(t, err, hooteproto.CodeInvalidArgument, "hashes[0]", "hash", "")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = h.CasVerify(cancelled, &hootv1.CasVerifyRequest{})
	wantError(t, err, hooteproto.CodeCanceled, "", "", "")
}

func TestCompleteRunes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"ab\xe2", 2},
		{"ab\xe2\x82", 2},
		{"ab\xe2\x82\xac", 5},
		{"a\xf0\x9f\x8e", 1},
		{"\xf0\x9f\x8e", 0},
		{"ab\xff", 3},
		{"ab\x82", 3},
	} {
		if got := completeRunes([]byte(tc.in)); got != tc.want {
			t.Errorf("completeRunes(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestStoreUnavailable stops the object store under the handler: the tools answer with a
// retryable unavailable error that says to call again, not an internal fault.
func TestStoreUnavailable(t *testing.T) {
	srv := storetest.StartS3Server(t)
	cfg, _ := cas.ParseS3URL(srv.URL("tools"))
	cfg.Endpoint = srv.Endpoint
	store, err := cas.OpenS3(t.Context(), cfg, &cas.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	h := New(store)
	h.Logger = quiet
	stored := storeText(t, h, "abc", "text/plain")
	srv.Stop()
	calls := map[string]func() error{
		"cas_store": func() error {
			_, err := h.CasStore(t.Context(), &hootv1.CasStoreRequest{Data: &hootv1.CasStoreRequest_Content{Content: "new"}})
			return err
		},
		"cas_get": func() error {
			_, err := h.CasGet(t.Context(), &hootv1.CasGetRequest{Hash: stored.Hash})
			return err
		},
		"cas_inspect": func() error {
			_, err := h.CasInspect(t.Context(), &hootv1.CasInspectRequest{Hash: stored.Hash})
			return err
		},
		"cas_verify": func() error {
			_, err := h.CasVerify(t.Context(), &hootv1.CasVerifyRequest{Hashes: []string{stored.Hash}})
			return err
		},
	}
	for name, call := range calls {
		e := hooteproto.AsError(call())
		if e.Code() != hooteproto.CodeUnavailable || !e.Retryable() || !strings.Contains(e.Message(), "the content store cannot be reached now") ||
			!strings.Contains(e.Hint(), "call again in a few seconds") {
			t.Errorf("%s with the store down = %v (code %v, retryable %v, hint %q), want a retryable unavailable error", name, e, e.Code(), e.Retryable(), e.Hint())
		}
	}
	srv.Start()
	if _, err := h.CasInspect(t.Context(), &hootv1.CasInspectRequest{Hash: stored.Hash}); err != nil {
		t.Errorf("cas_inspect once the store is back: %v", err)
	}
}
