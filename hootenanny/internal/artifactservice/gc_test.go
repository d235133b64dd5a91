package artifactservice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/cas/storetest"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

// gcStores are the content stores storage_gc is tested on: each opens a new, empty store at
// the clock given, and returns it with the text that opens it again.
var gcStores = []struct {
	name string
	open func(t *testing.T) string
}{
	{"dir", func(t *testing.T) string { return filepath.Join(t.TempDir(), "cas") }},
	{"s3", func(t *testing.T) string { return storetest.S3URL(t) }},
}

// openAt opens the store at where with a clock that reads now.
func openAt(t *testing.T, where string, now time.Time) cas.Store {
	t.Helper()
	s, err := cas.OpenURL(t.Context(), where, &cas.Options{Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// eachGCSetup runs fn for every content store on every database engine: a directory with
// SQLite and S3 with PostgreSQL are the pairs that a single machine and a fleet run, the other
// two come for free.
func eachGCSetup(t *testing.T, fn func(t *testing.T, where string, db *database.DB)) {
	servicetest.EachEngine(t, func(t *testing.T, engine database.Engine) {
		for _, st := range gcStores {
			t.Run(st.name, func(t *testing.T) {
				t.Parallel()
				where := st.open(t)
				db, _ := servicetest.OpenDatabase(t, engine)
				fn(t, where, db)
			})
		}
	})
}

func gcHandler(store cas.Store, db *database.DB, now func() time.Time) *Handler {
	return New(Config{Artifacts: artifacts.NewStore(db), CAS: store, Logger: slog.New(slog.DiscardHandler), Now: now})
}

// gc runs storage_gc and returns its result and the last progress it reported.
func gc(t *testing.T, h *Handler, req *hootv1.StorageGcRequest) (*hootv1.StorageGcResult, *hootv1.Progress) {
	t.Helper()
	var last atomic.Pointer[hootv1.Progress]
	ctx := hooteproto.WithProgress(t.Context(), func(p *hootv1.Progress) { last.Store(p) })
	res, err := h.StorageGc(ctx, req)
	if err != nil {
		t.Fatalf("storage_gc %v: %v", req, err)
	}
	return res, last.Load()
}

func TestStorageGC(t *testing.T) {
	eachGCSetup(t, testStorageGC)
}

func testStorageGC(t *testing.T, where string, db *database.DB) {
	ctx := t.Context()
	now := time.Now()
	old := openAt(t, where, now.Add(-72*time.Hour))
	store := openAt(t, where, now)
	h := gcHandler(store, db, nil)

	putOn := func(s cas.Store, content string) cas.Object {
		t.Helper()
		obj, _, err := s.Put(ctx, strings.NewReader(content), "text/plain")
		if err != nil {
			t.Fatal(err)
		}
		return obj
	}
	// Old objects that artifacts name, by hash and by inline content of an old object.
	namedOld := putOn(old, "named, stored long ago")
	create(t, h, &hootv1.ArtifactCreateRequest{Source: &hootv1.ArtifactCreateRequest_Hash{Hash: namedOld.Hash.String()}})
	namedInline := putOn(old, "named inline")
	create(t, h, text("named inline"))
	// Old objects that nothing names: garbage.
	var garbage []cas.Object
	var garbageBytes uint64
	for i := range 3 {
		obj := putOn(old, fmt.Sprintf("forgotten %d %s", i, strings.Repeat("x", i)))
		garbage = append(garbage, obj)
		garbageBytes += uint64(obj.Size)
	}
	slices.SortFunc(garbage, func(a, b cas.Object) int { return bytes.Compare(a.Hash[:], b.Hash[:]) })
	// A young object that nothing names yet: stored just before the artifact that will name it.
	young := putOn(store, "stored a moment ago")

	// Temporary files of a directory store: one left by an upload that stopped two hours ago,
	// one being written now.
	_, isDir := store.(*cas.Dir)
	var staleTemp, freshTemp string
	if isDir {
		staleTemp = filepath.Join(where, "tmp", "object-stale")
		freshTemp = filepath.Join(where, "tmp", "object-fresh")
		for _, p := range []string{staleTemp, freshTemp} {
			if err := os.WriteFile(p, []byte("half an upload"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		twoHoursAgo := now.Add(-2 * time.Hour)
		if err := os.Chtimes(staleTemp, twoHoursAgo, twoHoursAgo); err != nil {
			t.Fatal(err)
		}
	}
	wantTemps := uint64(0)
	if isDir {
		wantTemps = 1
	}
	var wantSample []string
	for _, g := range garbage {
		wantSample = append(wantSample, g.Hash.String())
	}
	check := func(what string, res *hootv1.StorageGcResult, removed, freed uint64, sample []string, temps uint64) {
		t.Helper()
		if res.GetObjectsTotal() != 6 || res.GetObjectsExamined() != 6 || res.GetObjectsNamed() != 2 ||
			res.GetObjectsRemoved() != removed || res.GetBytesFreed() != freed || !slices.Equal(res.GetSampleHashes(), sample) ||
			res.GetTempFilesRemoved() != temps || res.GetMinAgeSeconds() != 86400 {
			t.Errorf("%s = %v; want 6 objects examined, 2 named, %d removed (%d bytes: %v), %d temporary files, min age 86400",
				what, res, removed, freed, sample, temps)
		}
	}
	exists := func(obj cas.Object) bool {
		t.Helper()
		_, err := store.Stat(ctx, obj.Hash)
		if err != nil && !errors.Is(err, cas.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	fileExists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	// A dry run counts and removes nothing.
	res, progress := gc(t, h, &hootv1.StorageGcRequest{DryRun: true})
	check("dry run", res, 3, garbageBytes, wantSample, wantTemps)
	if !res.GetDryRun() || res.GetObjectsYoung() != 1 {
		t.Errorf("dry run = %v; want dry_run and 1 young object", res)
	}
	if progress.GetProgress() != 6 || progress.GetTotal() != 6 || !strings.Contains(progress.GetMessage(), "would remove 3") {
		t.Errorf("last progress of the dry run = %v; want 6 of 6, saying what would be removed", progress)
	}
	for _, g := range garbage {
		if !exists(g) {
			t.Errorf("the dry run removed %s", g.Hash)
		}
	}
	if isDir && !fileExists(staleTemp) {
		t.Error("the dry run removed a temporary file")
	}

	// The real run removes old garbage and stale temporary files, and nothing else.
	res, _ = gc(t, h, &hootv1.StorageGcRequest{})
	check("storage_gc", res, 3, garbageBytes, wantSample, wantTemps)
	if res.GetDryRun() || res.GetObjectsYoung() != 1 {
		t.Errorf("storage_gc = %v; want 1 young object", res)
	}
	for _, g := range garbage {
		if exists(g) {
			t.Errorf("unnamed old object %s is still stored", g.Hash)
		}
	}
	for _, kept := range []cas.Object{namedOld, namedInline, young} {
		got, _, err := store.ReadRange(ctx, kept.Hash, 0, 1<<10)
		if err != nil || int64(len(got)) != kept.Size {
			t.Errorf("object %s, named or young, after storage_gc: %q, %v", kept.Hash, got, err)
		}
	}
	if got, _, err := store.ReadRange(ctx, namedOld.Hash, 0, 1<<10); err != nil || string(got) != "named, stored long ago" {
		t.Errorf("the named object's bytes after storage_gc = %q, %v", got, err)
	}
	if isDir && (fileExists(staleTemp) || !fileExists(freshTemp)) {
		t.Errorf("after storage_gc: stale temporary file there %v, fresh one there %v; want only the fresh one",
			fileExists(staleTemp), fileExists(freshTemp))
	}

	// A second run finds nothing more to remove.
	res, _ = gc(t, h, &hootv1.StorageGcRequest{})
	if res.GetObjectsExamined() != 3 || res.GetObjectsRemoved() != 0 || res.GetBytesFreed() != 0 || len(res.GetSampleHashes()) != 0 || res.GetTempFilesRemoved() != 0 {
		t.Errorf("second storage_gc = %v; want 3 examined and nothing removed", res)
	}

	// Two days on, the young object is old enough; an hour's limit takes it sooner.
	later := gcHandler(store, db, func() time.Time { return now.Add(48 * time.Hour) })
	if res, _ := gc(t, later, &hootv1.StorageGcRequest{DryRun: true}); res.GetObjectsRemoved() != 1 || res.GetSampleHashes()[0] != young.Hash.String() {
		t.Errorf("dry run two days later = %v; want the young object", res)
	}
	soon := gcHandler(store, db, func() time.Time { return now.Add(2 * time.Hour) })
	if res, _ := gc(t, soon, &hootv1.StorageGcRequest{DryRun: true, MinAgeSeconds: 3600}); res.GetObjectsRemoved() != 1 || res.GetMinAgeSeconds() != 3600 {
		t.Errorf("dry run two hours later with min_age_seconds 3600 = %v; want the young object", res)
	}
	if !exists(young) {
		t.Error("a dry run removed the young object")
	}
}

func TestStorageGCMinAgeFloor(t *testing.T) {
	t.Parallel()
	h := newHandler(t, database.SQLite)
	for _, s := range []uint64{1, 599} {
		_, err := h.StorageGc(t.Context(), &hootv1.StorageGcRequest{MinAgeSeconds: s})
		e := servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "min_age_seconds", "600 seconds")
		if !strings.Contains(e.Hint(), "600") {
			t.Errorf("hint %q does not give the floor", e.Hint())
		}
	}
	if res, err := h.StorageGc(t.Context(), &hootv1.StorageGcRequest{MinAgeSeconds: 600, DryRun: true}); err != nil || res.GetMinAgeSeconds() != 600 {
		t.Errorf("storage_gc at the floor = %v, %v", res, err)
	}
}

// namingStore is a content store in which an artifact comes to name an object at the moment
// storage_gc looks at the object's age: an artifact_create that races the collection.
type namingStore struct {
	cas.Store
	name func(h cas.Hash)
}

func (s namingStore) Stat(ctx context.Context, h cas.Hash) (cas.Object, error) {
	s.name(h)
	return s.Store.Stat(ctx, h)
}

// TestStorageGCNamedMeanwhile checks that an object is asked about again just before it is
// removed: one that an artifact came to name after its batch was asked about is kept.
func TestStorageGCNamedMeanwhile(t *testing.T) {
	eachGCSetup(t, func(t *testing.T, where string, db *database.DB) {
		old := openAt(t, where, time.Now().Add(-72*time.Hour))
		obj, _, err := old.Put(t.Context(), strings.NewReader("named at the last moment"), "text/plain")
		if err != nil {
			t.Fatal(err)
		}
		arts := artifacts.NewStore(db)
		store := namingStore{Store: old, name: func(h cas.Hash) {
			if _, err := arts.Create(context.Background(), artifacts.New{Hash: h.String(), Size: obj.Size, MimeType: "text/plain"}); err != nil {
				t.Error(err)
			}
		}}
		res, _ := gc(t, gcHandler(store, db, nil), &hootv1.StorageGcRequest{})
		if res.GetObjectsRemoved() != 0 || res.GetObjectsNamed() != 1 {
			t.Errorf("storage_gc = %v; want the object kept as named", res)
		}
		if _, err := old.Stat(t.Context(), obj.Hash); err != nil {
			t.Errorf("the object named during the collection was removed: %v", err)
		}
	})
}

// cancellingStore cancels the collection when it is asked about the n-th object.
type cancellingStore struct {
	cas.Store
	n      *atomic.Int64
	cancel context.CancelFunc
}

func (s cancellingStore) Stat(ctx context.Context, h cas.Hash) (cas.Object, error) {
	if s.n.Add(1) == 3 {
		s.cancel()
	}
	return s.Store.Stat(ctx, h)
}

func TestStorageGCCancel(t *testing.T) {
	t.Parallel()
	where := filepath.Join(t.TempDir(), "cas")
	old := openAt(t, where, time.Now().Add(-72*time.Hour))
	for i := range 10 {
		if _, _, err := old.Put(t.Context(), strings.NewReader(fmt.Sprint("garbage ", i)), ""); err != nil {
			t.Fatal(err)
		}
	}
	db, _ := servicetest.Database(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h := gcHandler(cancellingStore{Store: old, n: new(atomic.Int64), cancel: cancel}, db, nil)
	_, err := h.StorageGc(ctx, &hootv1.StorageGcRequest{})
	if hooteproto.CodeOf(err) != hooteproto.CodeCanceled {
		t.Fatalf("cancelled storage_gc = %v, want a cancelled error", err)
	}
	objects, _, err := old.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The job was cancelled while the first batch's ages were being read: nothing was removed.
	if objects != 10 {
		t.Errorf("%d objects left after a cancel during the first batch, want 10: the collection did not stop promptly", objects)
	}
}

// BenchmarkStorageGC measures a dry run over a store of 2000 old objects, half of them named:
// the walk, the batched questions to the database and a look at the age of every unnamed
// object, which is what a real run does besides the removals.
func BenchmarkStorageGC(b *testing.B) {
	const n = 2000
	for _, setup := range []struct {
		name   string
		engine database.Engine
		store  int
	}{{"dir+sqlite", database.SQLite, 0}, {"s3+postgres", database.Postgres, 1}} {
		b.Run(setup.name, func(b *testing.B) {
			where := ""
			if setup.store == 0 {
				where = filepath.Join(b.TempDir(), "cas")
			} else {
				where = storetest.S3URL(b)
			}
			db, _ := servicetest.OpenDatabase(b, setup.engine)
			s, err := cas.OpenURL(b.Context(), where, &cas.Options{Logger: slog.New(slog.DiscardHandler),
				Now: func() time.Time { return time.Now().Add(-72 * time.Hour) }})
			if err != nil {
				b.Fatal(err)
			}
			arts := artifacts.NewStore(db)
			for i := range n {
				obj, _, err := s.Put(b.Context(), strings.NewReader(fmt.Sprint("object ", i)), "text/plain")
				if err != nil {
					b.Fatal(err)
				}
				if i%2 == 0 {
					if _, err := arts.Create(b.Context(), artifacts.New{Hash: obj.Hash.String(), Size: obj.Size, MimeType: "text/plain"}); err != nil {
						b.Fatal(err)
					}
				}
			}
			h := gcHandler(s, db, nil)
			for b.Loop() {
				res, err := h.StorageGc(b.Context(), &hootv1.StorageGcRequest{DryRun: true})
				if err != nil || res.GetObjectsExamined() != n || res.GetObjectsRemoved() != n/2 {
					b.Fatalf("storage_gc = %v, %v", res, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
		})
	}
}
