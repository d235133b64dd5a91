package artifactservice

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

func newHandler(t *testing.T, engine database.Engine) *Handler {
	t.Helper()
	dir := t.TempDir()
	store, err := cas.OpenDir(filepath.Join(dir, "cas"), &cas.Options{MaxObjectSize: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	db, _ := servicetest.OpenDatabase(t, engine)
	return New(Config{Artifacts: artifacts.NewStore(db), CAS: store, DatabaseSize: db.Size, Logger: slog.New(slog.DiscardHandler)})
}

func create(t *testing.T, h *Handler, req *hootv1.ArtifactCreateRequest) *hootv1.Artifact {
	t.Helper()
	res, err := h.ArtifactCreate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res.GetArtifact()
}

func text(s string) *hootv1.ArtifactCreateRequest {
	return &hootv1.ArtifactCreateRequest{Source: &hootv1.ArtifactCreateRequest_Content{Content: s}}
}

func TestCreateAndGet(t *testing.T) { servicetest.EachEngine(t, testCreateAndGet) }

func testCreateAndGet(t *testing.T, engine database.Engine) {
	h := newHandler(t, engine)
	ctx := context.Background()
	root := create(t, h, &hootv1.ArtifactCreateRequest{
		Source:   &hootv1.ArtifactCreateRequest_ContentBase64{ContentBase64: []byte("MThd")},
		MimeType: "audio/midi",
		Tags:     []string{"seed"},
		Creator:  "tester",
		Metadata: &hootv1.ArtifactMetadata{Kind: &hootv1.ArtifactMetadata_Midi{Midi: &hootv1.MidiInfo{Format: 1, Tracks: 2, TicksPerQuarter: 480}}},
	})
	if root.GetMimeType() != "audio/midi" || root.GetSize() != 4 || root.GetMetadata().GetMidi().GetTracks() != 2 {
		t.Errorf("root = %v", root)
	}
	// From an object already stored: the object's own media type is the default.
	obj, _, err := h.cfg.CAS.Put(ctx, strings.NewReader("X:1\nK:C\nC|"), "text/vnd.abc")
	if err != nil {
		t.Fatal(err)
	}
	child := create(t, h, &hootv1.ArtifactCreateRequest{
		Source:       &hootv1.ArtifactCreateRequest_Hash{Hash: obj.Hash.String()},
		ParentIds:    []string{root.GetId()},
		VariationSet: "takes",
	})
	if child.GetMimeType() != "text/vnd.abc" || child.GetHash() != obj.Hash.String() || child.GetVariationIndex() != 1 {
		t.Errorf("child = %v", child)
	}
	if _, err := h.ArtifactAnnotate(ctx, &hootv1.ArtifactAnnotateRequest{ArtifactId: root.GetId(), Message: "nice", Vibe: "warm"}); err != nil {
		t.Fatal(err)
	}
	got, err := h.ArtifactGet(ctx, &hootv1.ArtifactGetRequest{Id: root.GetId()})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.GetChildren()) != 1 || got.GetChildren()[0].GetId() != child.GetId() || len(got.GetAnnotations()) != 1 || len(got.GetParents()) != 0 {
		t.Errorf("artifact_get(root) = %v", got)
	}
	got, _ = h.ArtifactGet(ctx, &hootv1.ArtifactGetRequest{Id: child.GetId()})
	if len(got.GetParents()) != 1 || got.GetParents()[0].GetId() != root.GetId() {
		t.Errorf("artifact_get(child) = %v", got)
	}
	tagged, err := h.ArtifactTag(ctx, &hootv1.ArtifactTagRequest{ArtifactId: root.GetId(), Add: []string{"keeper"}, Remove: []string{"seed"}})
	if err != nil || !slices.Equal(tagged.GetArtifact().GetTags(), []string{"keeper"}) {
		t.Errorf("artifact_tag = %v, %v", tagged, err)
	}
	list, err := h.ArtifactList(ctx, &hootv1.ArtifactListRequest{ParentId: root.GetId()})
	if err != nil || len(list.GetArtifacts()) != 1 {
		t.Errorf("artifact_list(parent) = %v, %v", list, err)
	}
	stats, err := h.StorageStats(ctx, &hootv1.StorageStatsRequest{})
	if err != nil || stats.GetObjects() != 2 || stats.GetArtifacts() != 2 || stats.GetAnnotations() != 1 || stats.GetDatabaseBytes() == 0 {
		t.Errorf("storage_stats = %v, %v", stats, err)
	}
}

func TestErrors(t *testing.T) { servicetest.EachEngine(t, testErrors) }

func testErrors(t *testing.T, engine database.Engine) {
	h := newHandler(t, engine)
	ctx := context.Background()
	a := create(t, h, text("a"))
	missing := "art_00000000000000000000000000"
	for _, tc := range []struct {
		name      string
		call      func() error
		code      hooteproto.Code
		field     string
		inMessage string
	}{
		{"unknown hash", func() error {
			_, err := h.ArtifactCreate(ctx, &hootv1.ArtifactCreateRequest{Source: &hootv1.ArtifactCreateRequest_Hash{Hash: strings.Repeat("a", 64)}})
			return err
		}, hooteproto.CodeNotFound, "hash", "no stored object"},
		{"no content", func() error {
			_, err := h.ArtifactCreate(ctx, &hootv1.ArtifactCreateRequest{})
			return err
		}, hooteproto.CodeInvalidArgument, "hash", "no content"},
		{"too large", func() error {
			_, err := h.ArtifactCreate(ctx, text(strings.Repeat("x", 2<<10)))
			return err
		}, hooteproto.CodeInvalidArgument, "content", "limit"},
		{"bad media type", func() error {
			_, err := h.ArtifactCreate(ctx, &hootv1.ArtifactCreateRequest{Source: &hootv1.ArtifactCreateRequest_Content{Content: "x"}, MimeType: "text/plain;"})
			return err
		}, hooteproto.CodeInvalidArgument, "mime_type", "parameter"},
		{"missing parent", func() error {
			req := text("b")
			req.ParentIds = []string{a.GetId(), missing}
			_, err := h.ArtifactCreate(ctx, req)
			return err
		}, hooteproto.CodeNotFound, "parent_ids[1]", missing},
		{"parent twice", func() error {
			req := text("b")
			req.ParentIds = []string{a.GetId(), a.GetId()}
			_, err := h.ArtifactCreate(ctx, req)
			return err
		}, hooteproto.CodeInvalidArgument, "parent_ids[1]", "already"},
		{"get unknown", func() error {
			_, err := h.ArtifactGet(ctx, &hootv1.ArtifactGetRequest{Id: missing})
			return err
		}, hooteproto.CodeNotFound, "id", missing},
		{"annotate unknown", func() error {
			_, err := h.ArtifactAnnotate(ctx, &hootv1.ArtifactAnnotateRequest{ArtifactId: missing, Message: "x"})
			return err
		}, hooteproto.CodeNotFound, "artifact_id", missing},
		{"tag unknown", func() error {
			_, err := h.ArtifactTag(ctx, &hootv1.ArtifactTagRequest{ArtifactId: missing, Add: []string{"x"}})
			return err
		}, hooteproto.CodeNotFound, "artifact_id", missing},
		{"bad cursor", func() error {
			_, err := h.ArtifactList(ctx, &hootv1.ArtifactListRequest{Cursor: "abc"})
			return err
		}, hooteproto.CodeInvalidArgument, "cursor", "abc"},
	} {
		servicetest.WantError(t, tc.call(), tc.code, tc.field, tc.inMessage)
	}
	// None of the failures changed anything.
	stats, _ := h.StorageStats(ctx, &hootv1.StorageStatsRequest{})
	if stats.GetArtifacts() != 1 || stats.GetObjects() != 1 || stats.GetAnnotations() != 0 {
		t.Errorf("after the failures: %v", stats)
	}
}

// A database that cannot be reached gives a retryable unavailable error (not an internal one),
// and the tools work again once it is back.
func TestDatabaseUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, err := cas.OpenDir(filepath.Join(t.TempDir(), "cas"), nil)
	if err != nil {
		t.Fatal(err)
	}
	db, proxy := servicetest.CuttableDatabase(t)
	h := New(Config{Artifacts: artifacts.NewStore(db), CAS: store, DatabaseSize: db.Size, Logger: slog.New(slog.DiscardHandler)})
	a := create(t, h, text("la"))
	proxy.Cut()
	_, err = h.ArtifactCreate(ctx, text("di"))
	servicetest.WantUnavailable(t, err)
	_, err = h.ArtifactGet(ctx, &hootv1.ArtifactGetRequest{Id: a.GetId()})
	servicetest.WantUnavailable(t, err)
	_, err = h.StorageStats(ctx, &hootv1.StorageStatsRequest{})
	servicetest.WantUnavailable(t, err)
	proxy.Restore(t)
	servicetest.Eventually(t, func() error {
		_, err := h.ArtifactGet(ctx, &hootv1.ArtifactGetRequest{Id: a.GetId()})
		return err
	})
	if res, err := h.ArtifactList(ctx, &hootv1.ArtifactListRequest{}); err != nil || len(res.GetArtifacts()) != 1 {
		t.Errorf("artifact_list after the database is back = %v, %v; want the one artifact made before", res, err)
	}
}
