package artifactservice

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hooteproto"
)

// The bounds of storage_gc.
const (
	// DefaultGCMinAge is how old an object must be before storage_gc may remove it, unless the
	// call says otherwise.
	DefaultGCMinAge = 24 * time.Hour
	// MinGCMinAge is the least age storage_gc takes. Content is stored before the artifact that
	// names it is created (by cas_store and then artifact_create, by PUT /cas, by a job), so a
	// young object that nothing names yet may be named in a moment; this floor keeps such an
	// object out of reach whatever the caller asks.
	MinGCMinAge = 10 * time.Minute
	// GCTempAge is how long a temporary file of an upload must go unmodified before storage_gc
	// removes it, as the directory store does when it opens.
	GCTempAge = cas.DefaultStaleTempAge
	// GCSampleLimit is the most hashes a storage_gc result lists.
	GCSampleLimit = 100
	// gcBatch is how many objects storage_gc looks at together: one question to the database
	// about their names, then one progress report.
	gcBatch = 500
	// gcStatConcurrency is how many objects' ages storage_gc reads at once.
	gcStatConcurrency = 8
)

// StorageGc removes the objects that no artifact names and that are older than the call's
// age limit, and the temporary files of uploads that stopped; with dry_run it only counts
// them. It runs as a job: it walks the store in batches, reports progress after each, and
// stops with the context's error when the job is cancelled.
//
// An object is removed only when the artifact store, asked again just before the removal,
// still says that nothing names it; see docs/decisions.md for what remains of the race with an
// artifact_create of the same content.
func (h *Handler) StorageGc(ctx context.Context, req *hootv1.StorageGcRequest) (*hootv1.StorageGcResult, error) {
	minAge := DefaultGCMinAge
	if s := req.GetMinAgeSeconds(); s != 0 {
		minAge = time.Duration(s) * time.Second
		if minAge < MinGCMinAge {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
				fmt.Sprintf("min_age_seconds is %d; storage_gc keeps every object younger than %d seconds (%v), because content is stored before the artifact that names it",
					s, int(MinGCMinAge.Seconds()), MinGCMinAge)).
				WithField("min_age_seconds").
				WithHint(fmt.Sprintf("give at least %d, or leave min_age_seconds out for 24 hours", int(MinGCMinAge.Seconds())))
		}
	}
	now := h.cfg.Now()
	res := &hootv1.StorageGcResult{DryRun: req.GetDryRun(), MinAgeSeconds: uint64(minAge / time.Second)}
	verb := "removed"
	if res.DryRun {
		verb = "would remove"
	}

	if tc, ok := h.cfg.CAS.(cas.TempCleaner); ok {
		files, n, err := tc.CleanTemps(ctx, now.Add(-GCTempAge), res.DryRun)
		res.TempFilesRemoved, res.TempBytesFreed = uint64(files), uint64(n)
		if err != nil {
			return nil, h.gcError(ctx, "removing temporary files", err)
		}
	}

	total, _, err := h.cfg.CAS.Stats(ctx)
	if err != nil {
		return nil, h.gcError(ctx, "counting stored objects", err)
	}
	res.ObjectsTotal = uint64(total)
	progress := func() {
		// The store may have grown since it was counted; the total never falls behind.
		hooteproto.ReportProgress(ctx, float64(res.ObjectsExamined), float64(max(res.ObjectsTotal, res.ObjectsExamined)),
			fmt.Sprintf("examined %d of %d objects: %d named, %d young, %s %d (%s)",
				res.ObjectsExamined, res.ObjectsTotal, res.ObjectsNamed, res.ObjectsYoung, verb, res.ObjectsRemoved, cas.FormatSize(int64(res.BytesFreed))))
	}
	progress()

	batch := make([]cas.Hash, 0, gcBatch)
	collect := func() error {
		err := h.collect(ctx, batch, now.Add(-minAge), res)
		batch = batch[:0]
		progress()
		return err
	}
	err = h.cfg.CAS.Walk(ctx, func(hash cas.Hash) error {
		batch = append(batch, hash)
		if len(batch) < gcBatch {
			return nil
		}
		return collect()
	})
	if err == nil && len(batch) > 0 {
		err = collect()
	}
	if err != nil {
		return nil, h.gcError(ctx, "collecting unnamed objects", err)
	}
	h.cfg.Logger.Info("artifactservice: storage_gc finished", "dry_run", res.DryRun, "examined", res.ObjectsExamined,
		"removed", res.ObjectsRemoved, "bytes", res.BytesFreed, "temp_files", res.TempFilesRemoved)
	return res, nil
}

// collect examines one batch of objects: it asks which are named, then looks at the age of the
// others and removes those stored before cutoff, counting all of it in res.
func (h *Handler) collect(ctx context.Context, batch []cas.Hash, cutoff time.Time, res *hootv1.StorageGcResult) error {
	names := make([]string, len(batch))
	for i, hash := range batch {
		names[i] = hash.String()
	}
	named, err := h.cfg.Artifacts.Referenced(ctx, names)
	if err != nil {
		return err
	}
	objs, err := h.stats(ctx, batch, named)
	if err != nil {
		return err
	}
	for i, hash := range batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		res.ObjectsExamined++
		if named[names[i]] {
			res.ObjectsNamed++
			continue
		}
		obj := objs[i]
		if obj.Hash != hash {
			// Removed since the walk saw it, by another collection.
			continue
		}
		if !obj.StoredAt.Before(cutoff) {
			res.ObjectsYoung++
			continue
		}
		if !res.DryRun {
			// An artifact may have come to name the object since the batch was asked about.
			again, err := h.cfg.Artifacts.Referenced(ctx, names[i:i+1])
			if err != nil {
				return err
			}
			if again[names[i]] {
				res.ObjectsNamed++
				continue
			}
			if err := h.cfg.CAS.Remove(ctx, hash); err != nil {
				return err
			}
		}
		res.ObjectsRemoved++
		res.BytesFreed += uint64(obj.Size)
		if len(res.SampleHashes) < GCSampleLimit {
			res.SampleHashes = append(res.SampleHashes, names[i])
		}
	}
	return nil
}

// stats returns the metadata of the objects of batch that named does not hold, at their
// places; an object that is gone has a zero Object. It asks gcStatConcurrency at a time, since
// each is a round trip to an S3 server.
func (h *Handler) stats(ctx context.Context, batch []cas.Hash, named map[string]bool) ([]cas.Object, error) {
	objs := make([]cas.Object, len(batch))
	errs := make([]error, len(batch))
	sem := make(chan struct{}, gcStatConcurrency)
	var wg sync.WaitGroup
	for i, hash := range batch {
		if named[hash.String()] {
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			obj, err := h.cfg.CAS.Stat(ctx, hash)
			if !errors.Is(err, cas.ErrNotFound) {
				objs[i], errs[i] = obj, err
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return objs, errors.Join(errs...)
}

// gcError turns an error of a collection into the caller's: the job's cancellation, a
// retryable unavailable error when a store cannot be reached, or an internal one.
func (h *Handler) gcError(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return hooteproto.AsError(ctx.Err())
	}
	return h.internal(op, err)
}
