// Package artifactservice serves the tools of the "artifact" service: artifact_create,
// artifact_get, artifact_list, artifact_annotate, artifact_tag, storage_stats and storage_gc
// (a job), over the artifact store and the content store.
//
// storage_gc is served here rather than by the "cas" service because it needs both stores:
// the artifacts say which objects are named, the content store holds what is to be removed.
package artifactservice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/ids"
	"github.com/hootenanny/hoot/hootenanny/internal/outage"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// How many neighbours artifact_get returns at most.
const neighbourLimit = 100

// DefaultTextMediaType is the media type of inline text content given without one.
const DefaultTextMediaType = "text/plain; charset=utf-8"

// A Config is what a Handler serves over.
type Config struct {
	Artifacts *artifacts.Store
	CAS       cas.Store
	// CountJobs returns how many jobs are kept, for storage_stats; nil reports none.
	CountJobs func(context.Context) (int64, error)
	// DatabaseSize returns how many bytes the database takes, for storage_stats; nil reports
	// none.
	DatabaseSize func(context.Context) (int64, error)
	// Logger receives the causes of internal failures. Nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock storage_gc measures ages by. Nil means time.Now.
	Now func() time.Time
}

// A Handler serves the "artifact" tools.
type Handler struct {
	cfg Config
}

var _ hootv1hoot.ArtifactHandler = (*Handler)(nil)

// New returns a Handler over cfg.
func New(cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Handler{cfg: cfg}
}

// ArtifactCreate creates an artifact from a stored object or inline content.
func (h *Handler) ArtifactCreate(ctx context.Context, req *hootv1.ArtifactCreateRequest) (*hootv1.ArtifactCreateResult, error) {
	seen := make(map[string]int)
	for i, p := range req.GetParentIds() {
		if j, dup := seen[p]; dup {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
				fmt.Sprintf("parent_ids[%d] is %s, which parent_ids[%d] names already", i, p, j)).
				WithField(fmt.Sprintf("parent_ids[%d]", i)).
				WithHint("name each parent once")
		}
		seen[p] = i
	}
	// Parents are checked before content is stored, so that a call naming a missing parent
	// leaves nothing behind.
	if len(req.GetParentIds()) > 0 {
		found, err := h.cfg.Artifacts.GetMany(ctx, req.GetParentIds())
		if err != nil {
			return nil, h.internal("reading the parents", err)
		}
		for i, p := range req.GetParentIds() {
			if _, ok := found[p]; !ok {
				return nil, h.storeError("reading the parents", &artifacts.NotFoundError{ID: p, Parent: i}, "parent_ids")
			}
		}
	}
	var metadata []byte
	if m := req.GetMetadata(); m != nil && m.GetKind() != nil {
		b, err := proto.Marshal(m)
		if err != nil {
			return nil, h.internal("encoding the metadata", err)
		}
		metadata = b
	}
	obj, err := h.content(ctx, req)
	if err != nil {
		return nil, err
	}
	mimeType := req.GetMimeType()
	if mimeType == "" {
		mimeType = obj.MimeType
	} else if err := cas.ValidateMediaType(mimeType); err != nil {
		return nil, mediaTypeError(err)
	}
	a, err := h.cfg.Artifacts.Create(ctx, artifacts.New{
		Hash:         obj.Hash.String(),
		Size:         obj.Size,
		MimeType:     mimeType,
		Tags:         req.GetTags(),
		Creator:      req.GetCreator(),
		Metadata:     metadata,
		ParentIDs:    req.GetParentIds(),
		VariationSet: req.GetVariationSet(),
	})
	if err != nil {
		return nil, h.storeError("creating the artifact", err, "tags")
	}
	return &hootv1.ArtifactCreateResult{Artifact: h.artifact(a)}, nil
}

// content finds or stores the content that req names.
func (h *Handler) content(ctx context.Context, req *hootv1.ArtifactCreateRequest) (cas.Object, error) {
	var (
		r        io.Reader
		size     int
		field    string
		mimeType = req.GetMimeType()
	)
	switch src := req.GetSource().(type) {
	case *hootv1.ArtifactCreateRequest_Hash:
		hash, err := cas.ParseHash(src.Hash)
		if err != nil {
			return cas.Object{}, hooteproto.NewError(hooteproto.CodeInvalidArgument, err.Error()).WithField("hash").
				WithHint("pass the hash exactly as cas_store returned it")
		}
		obj, err := h.cfg.CAS.Stat(ctx, hash)
		if errors.Is(err, cas.ErrNotFound) {
			return cas.Object{}, hooteproto.NewError(hooteproto.CodeNotFound, "no stored object has the hash "+src.Hash).
				WithField("hash").
				WithHint("store the content with cas_store first, or give it inline in content or content_base64")
		}
		if err != nil {
			return cas.Object{}, h.internal("reading the stored object", err)
		}
		return obj, nil
	case *hootv1.ArtifactCreateRequest_Content:
		r, size, field = strings.NewReader(src.Content), len(src.Content), "content"
		if mimeType == "" {
			mimeType = DefaultTextMediaType
		}
	case *hootv1.ArtifactCreateRequest_ContentBase64:
		r, size, field = bytes.NewReader(src.ContentBase64), len(src.ContentBase64), "content_base64"
	default:
		return cas.Object{}, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			"no content was given; artifact_create takes a stored object's hash, or content (text) or content_base64 (binary)").
			WithField("hash").
			WithHint("set hash to what cas_store returned, or put the content in content or content_base64")
	}
	if limit := h.cfg.CAS.MaxObjectSize(); int64(size) > limit {
		return cas.Object{}, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("%s is %s, more than the store's limit of %s", field, cas.FormatSize(int64(size)), cas.FormatSize(limit))).
			WithField(field).
			WithHint("store larger content with PUT /cas on the gateway and pass its hash")
	}
	obj, _, err := h.cfg.CAS.Put(ctx, r, mimeType)
	if err != nil {
		var mt *cas.MediaTypeError
		if errors.As(err, &mt) {
			return cas.Object{}, mediaTypeError(err)
		}
		if ctx.Err() != nil {
			return cas.Object{}, hooteproto.AsError(ctx.Err())
		}
		return cas.Object{}, h.internal("storing the content", err)
	}
	return obj, nil
}

// ArtifactGet returns an artifact with its parents, children and annotations.
func (h *Handler) ArtifactGet(ctx context.Context, req *hootv1.ArtifactGetRequest) (*hootv1.ArtifactGetResult, error) {
	a, err := h.cfg.Artifacts.Get(ctx, req.GetId())
	if err != nil {
		return nil, h.storeError("reading the artifact", err, "id")
	}
	parents, err := h.cfg.Artifacts.Parents(ctx, a.ID)
	if err != nil {
		return nil, h.internal("reading the parents", err)
	}
	children, err := h.cfg.Artifacts.Children(ctx, a.ID, neighbourLimit)
	if err != nil {
		return nil, h.internal("reading the children", err)
	}
	anns, err := h.cfg.Artifacts.Annotations(ctx, a.ID, neighbourLimit)
	if err != nil {
		return nil, h.internal("reading the annotations", err)
	}
	res := &hootv1.ArtifactGetResult{Artifact: h.artifact(a)}
	for _, p := range parents {
		res.Parents = append(res.Parents, h.artifact(p))
	}
	for _, c := range children {
		res.Children = append(res.Children, h.artifact(c))
	}
	for _, n := range anns {
		res.Annotations = append(res.Annotations, annotation(n))
	}
	return res, nil
}

// ArtifactList lists artifacts, newest first.
func (h *Handler) ArtifactList(ctx context.Context, req *hootv1.ArtifactListRequest) (*hootv1.ArtifactListResult, error) {
	if c := req.GetCursor(); c != "" && !ids.Valid(ids.Artifact, c) {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "cursor "+c+" is not one that artifact_list returned").
			WithField("cursor").
			WithHint("pass next_cursor from the previous answer unchanged, or leave cursor out to start from the newest")
	}
	f := artifacts.Filter{
		Tag:          req.GetTag(),
		Creator:      req.GetCreator(),
		ParentID:     req.GetParentId(),
		VariationSet: req.GetVariationSet(),
		After:        req.GetCursor(),
		Limit:        int(req.GetLimit()),
	}
	if req.GetSince() != nil {
		if err := req.GetSince().CheckValid(); err != nil {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "since is not a valid time: "+err.Error()).WithField("since").
				WithHint(`give a time in RFC 3339, such as "2026-01-02T15:04:05Z"`)
		}
		f.Since = req.GetSince().AsTime()
	}
	as, next, err := h.cfg.Artifacts.List(ctx, f)
	if err != nil {
		return nil, h.internal("listing artifacts", err)
	}
	res := &hootv1.ArtifactListResult{NextCursor: next}
	for _, a := range as {
		res.Artifacts = append(res.Artifacts, h.artifact(a))
	}
	return res, nil
}

// ArtifactAnnotate records an annotation.
func (h *Handler) ArtifactAnnotate(ctx context.Context, req *hootv1.ArtifactAnnotateRequest) (*hootv1.ArtifactAnnotateResult, error) {
	n, err := h.cfg.Artifacts.Annotate(ctx, req.GetArtifactId(), req.GetMessage(), req.GetVibe(), req.GetSource())
	if err != nil {
		return nil, h.storeError("annotating the artifact", err, "artifact_id")
	}
	return &hootv1.ArtifactAnnotateResult{Annotation: annotation(n)}, nil
}

// ArtifactTag adds and removes tags.
func (h *Handler) ArtifactTag(ctx context.Context, req *hootv1.ArtifactTagRequest) (*hootv1.ArtifactTagResult, error) {
	a, err := h.cfg.Artifacts.Tag(ctx, req.GetArtifactId(), req.GetAdd(), req.GetRemove())
	if err != nil {
		return nil, h.storeError("tagging the artifact", err, "artifact_id")
	}
	return &hootv1.ArtifactTagResult{Artifact: h.artifact(a)}, nil
}

// StorageStats counts what the worker stores.
func (h *Handler) StorageStats(ctx context.Context, _ *hootv1.StorageStatsRequest) (*hootv1.StorageStatsResult, error) {
	objects, objectBytes, err := h.cfg.CAS.Stats(ctx)
	if err != nil {
		return nil, h.internal("counting stored objects", err)
	}
	arts, anns, err := h.cfg.Artifacts.Counts(ctx)
	if err != nil {
		return nil, h.internal("counting artifacts", err)
	}
	res := &hootv1.StorageStatsResult{
		Objects:     uint64(objects),
		ObjectBytes: uint64(objectBytes),
		Artifacts:   uint64(arts),
		Annotations: uint64(anns),
	}
	if h.cfg.CountJobs != nil {
		n, err := h.cfg.CountJobs(ctx)
		if err != nil {
			return nil, h.internal("counting jobs", err)
		}
		res.Jobs = uint64(n)
	}
	if h.cfg.DatabaseSize != nil {
		n, err := h.cfg.DatabaseSize(ctx)
		if err != nil {
			return nil, h.internal("measuring the database", err)
		}
		res.DatabaseBytes = uint64(n)
	}
	return res, nil
}

// storeError turns an error of the artifact store into the caller's error; field is the
// argument that names the artifact, or that a limit is about.
func (h *Handler) storeError(op string, err error, field string) error {
	var nf *artifacts.NotFoundError
	var le *artifacts.LimitError
	switch {
	case errors.As(err, &nf) && nf.Parent >= 0:
		return hooteproto.NewError(hooteproto.CodeNotFound, nf.Error()).
			WithField(fmt.Sprintf("parent_ids[%d]", nf.Parent)).
			WithHint("name parents by the ids artifact_create or artifact_list returned; create a parent before its children")
	case errors.As(err, &nf):
		return hooteproto.NewError(hooteproto.CodeNotFound, nf.Error()).
			WithField(field).
			WithHint("find artifacts with artifact_list, or create one with artifact_create")
	case errors.As(err, &le):
		if field == "artifact_id" {
			field = "add"
		}
		return hooteproto.NewError(hooteproto.CodeInvalidArgument, le.Problem).WithField(field).
			WithHint(fmt.Sprintf("keep an artifact to at most %d tags; remove some with artifact_tag", artifacts.MaxTags))
	}
	if e := (*hooteproto.Error)(nil); errors.As(err, &e) {
		return e
	}
	return h.internal(op, err)
}

func mediaTypeError(err error) error {
	return hooteproto.NewError(hooteproto.CodeInvalidArgument, err.Error()).
		WithField("mime_type").
		WithHint("give a media type such as text/plain, text/vnd.abc or audio/midi, or leave mime_type out")
}

// internal logs err and returns an error that says what failed without inner details: a
// retryable unavailable error when the database cannot be reached, an internal one otherwise.
func (h *Handler) internal(op string, err error) *hooteproto.Error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// The call's context ended (its caller went away, or its job was cancelled or taken up
		// by another worker): not a fault of the worker's.
		return hooteproto.AsError(err)
	}
	if e := outage.Error(op, err); e != nil {
		h.cfg.Logger.Warn("artifactservice: "+op+" failed", "err", err)
		return e
	}
	h.cfg.Logger.Error("artifactservice: "+op+" failed", "err", err)
	return hooteproto.NewError(hooteproto.CodeInternal, op+" failed inside the worker").
		WithHint("this is a fault in the server, not in the call; if it keeps happening, tell the server's operator")
}

// artifact returns a in its wire form.
func (h *Handler) artifact(a artifacts.Artifact) *hootv1.Artifact {
	return ArtifactProto(a, h.cfg.Logger)
}

// ArtifactProto returns a in its wire form. Metadata that does not decode is logged and left
// out.
func ArtifactProto(a artifacts.Artifact, log *slog.Logger) *hootv1.Artifact {
	out := &hootv1.Artifact{
		Id:             a.ID,
		Hash:           a.Hash,
		Size:           uint64(a.Size),
		MimeType:       a.MimeType,
		Tags:           a.Tags,
		Creator:        a.Creator,
		CreatedAt:      timestamppb.New(a.CreatedAt),
		ParentIds:      a.ParentIDs,
		VariationSet:   a.VariationSet,
		VariationIndex: uint32(a.VariationIndex),
	}
	if len(a.Metadata) > 0 {
		m := new(hootv1.ArtifactMetadata)
		if err := proto.Unmarshal(a.Metadata, m); err != nil {
			log.Warn("artifactservice: unreadable metadata", "artifact", a.ID, "err", err)
		} else {
			out.Metadata = m
		}
	}
	return out
}

func annotation(n artifacts.Annotation) *hootv1.Annotation {
	return &hootv1.Annotation{
		Id:         n.ID,
		ArtifactId: n.ArtifactID,
		Message:    n.Message,
		Vibe:       n.Vibe,
		Source:     n.Source,
		CreatedAt:  timestamppb.New(n.CreatedAt),
	}
}

// StoreNew puts b in the content store and records it as the artifact n (its hash and size
// filled in), for a service that makes content: what midi_render, abc_to_midi and the score
// tools store. what names the content in the error of a failed store ("the audio"); component
// names the service in the log.
func StoreNew(ctx context.Context, store cas.Store, arts *artifacts.Store, log *slog.Logger, component, what string, b []byte, n artifacts.New) (*hootv1.Artifact, error) {
	obj, _, err := store.Put(ctx, bytes.NewReader(b), n.MimeType)
	if err != nil {
		if ctx.Err() != nil {
			return nil, hooteproto.AsError(ctx.Err())
		}
		return nil, outage.Internal(log, component, "storing "+what, err)
	}
	n.Hash, n.Size = obj.Hash.String(), obj.Size
	a, err := arts.Create(ctx, n)
	if err != nil {
		var le *artifacts.LimitError
		if errors.As(err, &le) {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, le.Problem).WithField("tags").
				WithHint(fmt.Sprintf("give at most %d tags", artifacts.MaxTags))
		}
		// A missing parent is a fault too: it was read a moment ago, and artifacts are never
		// deleted.
		return nil, outage.Internal(log, component, "creating the artifact", err)
	}
	return ArtifactProto(a, log), nil
}
