package casservice

import (
	"context"
	"errors"
	"fmt"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hooteproto"
)

// CasVerify re-reads the objects req names, or every object, and reports those whose bytes no
// longer hash to their address. It runs as a job: it reports progress after each object, and
// stops with the context's error when the job is cancelled.
func (h *Handler) CasVerify(ctx context.Context, req *hootv1.CasVerifyRequest) (*hootv1.CasVerifyResult, error) {
	var hashes []cas.Hash
	for i, s := range req.GetHashes() {
		hash, err := parseHash(s)
		if err != nil {
			return nil, err.WithField(fmt.Sprintf("hashes[%d]", i))
		}
		hashes = append(hashes, hash)
	}
	if len(hashes) == 0 {
		if err := h.store.Walk(ctx, func(hash cas.Hash) error {
			hashes = append(hashes, hash)
			return ctx.Err()
		}); err != nil {
			if ctx.Err() != nil {
				return nil, hooteproto.AsError(ctx.Err())
			}
			return nil, h.internal("listing the stored objects", err)
		}
	}
	res := &hootv1.CasVerifyResult{}
	total := float64(len(hashes))
	hooteproto.ReportProgress(ctx, 0, total, fmt.Sprintf("checking %d objects", len(hashes)))
	for i, hash := range hashes {
		n, err := h.store.Verify(ctx, hash)
		res.Bytes += uint64(n)
		if ctx.Err() != nil {
			return nil, hooteproto.AsError(ctx.Err())
		}
		res.Checked++
		var ce *cas.CorruptError
		switch {
		case err == nil:
		case errors.As(err, &ce):
			res.Problems = append(res.Problems, &hootv1.CasProblem{Hash: hash.String(), Problem: "hash mismatch: " + ce.Error()})
		case errors.Is(err, cas.ErrUnavailable):
			// Every further object would fail the same way: the job fails, and can be run again.
			return nil, h.internal("reading the objects", err)
		case errors.Is(err, cas.ErrNotFound):
			res.Problems = append(res.Problems, &hootv1.CasProblem{Hash: hash.String(), Problem: "missing: no object has this hash"})
		default:
			h.logger().Warn("casservice: an object could not be read", "hash", hash.String(), "err", err)
			res.Problems = append(res.Problems, &hootv1.CasProblem{Hash: hash.String(), Problem: "unreadable: the worker's log has the details"})
		}
		hooteproto.ReportProgress(ctx, float64(i+1), total, fmt.Sprintf("checked %d of %d objects, %d problems", i+1, len(hashes), len(res.Problems)))
	}
	return res, nil
}
