// Package artifacts keeps artifacts in the worker's database: content with its own identity
// (the bytes live in the content store under a hash), tags, a creator, typed metadata (opaque
// bytes here), lineage to any number of parents, variation sets and annotations.
//
// Artifacts are created once and never change, except for their tags. Parents must exist when a
// child is created, so the lineage graph never has a cycle.
package artifacts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/ids"
)

// Limits of what the store keeps.
const (
	// MaxTags is the most tags an artifact has.
	MaxTags = 64
	// MaxParents is the most parents an artifact has.
	MaxParents = 64
	// MaxPage is the most artifacts or annotations one call returns.
	MaxPage = 500
)

// maxTime is the last time that Unix nanoseconds, as rows record times, can hold.
var maxTime = time.Unix(0, 1<<63-1)

// ErrNotFound reports an artifact that does not exist; the error is an [*NotFoundError].
var ErrNotFound = errors.New("artifacts: not found")

// A NotFoundError names the artifact that does not exist and, for a parent, its place in the
// list of parents.
type NotFoundError struct {
	ID string
	// Parent is the index of the missing id among the parents given, or -1.
	Parent int
}

func (e *NotFoundError) Error() string {
	if e.Parent >= 0 {
		return fmt.Sprintf("parent %d, %s, is not an artifact", e.Parent, e.ID)
	}
	return "no artifact has the id " + e.ID
}

// Is reports whether target is [ErrNotFound].
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// A LimitError reports a change that would take an artifact past one of the store's limits.
type LimitError struct{ Problem string }

func (e *LimitError) Error() string { return e.Problem }

// An Artifact is one artifact.
type Artifact struct {
	ID        string
	Hash      string
	Size      int64
	MimeType  string
	Tags      []string // sorted
	Creator   string
	CreatedAt time.Time
	// Metadata is the encoded typed metadata, or nil.
	Metadata       []byte
	ParentIDs      []string // in the order given
	VariationSet   string
	VariationIndex int
}

// A New is what creating an artifact takes.
type New struct {
	Hash         string
	Size         int64
	MimeType     string
	Tags         []string
	Creator      string
	Metadata     []byte
	ParentIDs    []string
	VariationSet string
}

// An Annotation is something said about an artifact.
type Annotation struct {
	ID         string
	ArtifactID string
	Message    string
	Vibe       string
	Source     string
	CreatedAt  time.Time
}

// A Store keeps artifacts in a database opened with package database, of either engine. It is
// safe for concurrent use, also by several processes sharing the database.
type Store struct {
	db  *database.DB
	now func() time.Time
}

// NewStore returns a Store over db.
func NewStore(db *database.DB) *Store { return &Store{db: db, now: time.Now} }

// ErrJobRunDiffers reports a run of a job, taken up again, that makes other artifacts than its
// earlier run made.
var ErrJobRunDiffers = errors.New("the job's runs differ")

type jobKeysKey struct{}

// jobKeys numbers the artifacts made under one run of a job.
type jobKeys struct {
	job string
	n   atomic.Int64
}

// WithJobKeys returns a context under which the artifacts that Create makes are keyed by the
// job: the n-th one made under it has the key "JOB#n". A later run of the same job (taken up
// again after its worker died), under a new WithJobKeys(ctx, job), finds the artifacts of the
// first run by their keys and gets them back from Create instead of new ones, so no artifact is
// made twice, as long as the work makes its artifacts in the same order each run.
func WithJobKeys(ctx context.Context, job string) context.Context {
	if job == "" {
		return ctx
	}
	return context.WithValue(ctx, jobKeysKey{}, &jobKeys{job: job})
}

// nextJobKey returns the key of the next artifact made under ctx, or "" outside a job.
func nextJobKey(ctx context.Context) string {
	k, ok := ctx.Value(jobKeysKey{}).(*jobKeys)
	if !ok {
		return ""
	}
	return k.job + "#" + strconv.FormatInt(k.n.Add(1), 10)
}

// nextVariationIndex reads the index the next member of a variation set gets. Its second
// condition, that the set is not empty, is the condition of the partial index
// artifacts_variation, which holds only the members of sets: said in the query, it lets both
// engines read the set's last index from that index; without it SQLite scanned every
// artifact, a tenth of a second at a million.
const nextVariationIndex = `SELECT COALESCE(MAX(variation_index), 0) + 1 FROM artifacts WHERE variation_set = ? AND variation_set <> ''`

// insertParent records a parent of an artifact if the parent exists, and nothing otherwise:
// the check and the insert in one statement, which on PostgreSQL is one round trip instead of
// two. A create's statements are few (the artifact, its tags in one, a parent each), since
// each is a round trip on PostgreSQL and a statement's fixed cost on SQLite.
const insertParent = `INSERT INTO artifact_parents (child_id, parent_id, position) SELECT ?, id, CAST(? AS BIGINT) FROM artifacts WHERE id = ?`

// Create stores a new artifact and returns it. A parent that does not exist gives a
// [*NotFoundError] naming it; nothing is stored then. Under [WithJobKeys], an artifact that an
// earlier run of the job made at the same place is returned as it is instead.
func (s *Store) Create(ctx context.Context, n New) (Artifact, error) {
	key := nextJobKey(ctx)
	tags := normalizeTags(n.Tags)
	if len(tags) > MaxTags {
		return Artifact{}, &LimitError{fmt.Sprintf("an artifact has at most %d tags; %d were given", MaxTags, len(tags))}
	}
	if len(n.ParentIDs) > MaxParents {
		return Artifact{}, &LimitError{fmt.Sprintf("an artifact has at most %d parents; %d were given", MaxParents, len(n.ParentIDs))}
	}
	now := s.now().UTC()
	a := Artifact{
		ID:           ids.New(ids.Artifact, now),
		Hash:         n.Hash,
		Size:         n.Size,
		MimeType:     n.MimeType,
		Tags:         tags,
		Creator:      n.Creator,
		CreatedAt:    now,
		Metadata:     n.Metadata,
		ParentIDs:    slices.Clone(n.ParentIDs),
		VariationSet: n.VariationSet,
	}
	var earlier string
	err := s.db.Write(ctx, func(tx *database.Tx) error {
		if key != "" {
			switch err := tx.QueryRowContext(ctx, `SELECT id FROM artifacts WHERE job_key = ?`, key).Scan(&earlier); {
			case err == nil:
				return nil
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
		}
		if a.VariationSet != "" {
			if err := tx.QueryRowContext(ctx, nextVariationIndex, a.VariationSet).Scan(&a.VariationIndex); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO artifacts (id, hash, size, mime_type, creator, created_at, metadata, variation_set, variation_index, job_key)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.Hash, a.Size, a.MimeType, a.Creator, a.CreatedAt.UnixNano(), nullBytes(a.Metadata), a.VariationSet, a.VariationIndex, nullString(key)); err != nil {
			return err
		}
		if len(a.Tags) > 0 {
			args := make([]any, 0, 2*len(a.Tags))
			for _, t := range a.Tags {
				args = append(args, a.ID, t)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO artifact_tags (artifact_id, tag) VALUES `+pairs(len(a.Tags)), args...); err != nil {
				return err
			}
		}
		for i, p := range a.ParentIDs {
			res, err := tx.ExecContext(ctx, insertParent, a.ID, i, p)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				return &NotFoundError{ID: p, Parent: i}
			}
		}
		return nil
	})
	if err != nil {
		return Artifact{}, err
	}
	if earlier != "" {
		got, err := s.Get(ctx, earlier)
		if err == nil && (got.Hash != a.Hash || !slices.Equal(got.ParentIDs, a.ParentIDs)) {
			// The work did not make the same artifacts in the same order as its earlier run
			// (it changed between the runs): handing back the earlier one would be wrong.
			return Artifact{}, fmt.Errorf("artifacts: the earlier run of job %s made a different artifact (%s) at this place: %w",
				strings.SplitN(key, "#", 2)[0], earlier, ErrJobRunDiffers)
		}
		return got, err
	}
	return a, nil
}

// Get returns the artifact with the given id.
func (s *Store) Get(ctx context.Context, id string) (Artifact, error) {
	as, err := s.query(ctx, `WHERE a.id = ?`, id)
	if err != nil {
		return Artifact{}, err
	}
	if len(as) == 0 {
		return Artifact{}, &NotFoundError{ID: id, Parent: -1}
	}
	return as[0], nil
}

// GetMany returns the artifacts with the given ids that exist, by id.
func (s *Store) GetMany(ctx context.Context, idList []string) (map[string]Artifact, error) {
	out := make(map[string]Artifact, len(idList))
	for chunk := range slices.Chunk(idList, 200) {
		as, err := s.query(ctx, `WHERE a.id IN (`+placeholders(len(chunk))+`)`, anys(chunk)...)
		if err != nil {
			return nil, err
		}
		for _, a := range as {
			out[a.ID] = a
		}
	}
	return out, nil
}

// Parents returns the parents of the artifact id, in the order they were given.
func (s *Store) Parents(ctx context.Context, id string) ([]Artifact, error) {
	return s.query(ctx, `JOIN artifact_parents p ON p.parent_id = a.id WHERE p.child_id = ? ORDER BY p.position`, id)
}

// Children returns up to limit artifacts made from the artifact id, oldest first.
func (s *Store) Children(ctx context.Context, id string, limit int) ([]Artifact, error) {
	return s.query(ctx, `JOIN artifact_parents p ON p.child_id = a.id WHERE p.parent_id = ? ORDER BY a.id LIMIT ?`, id, clampLimit(limit))
}

// Ancestors returns up to limit artifacts that the artifact id was made from, directly or
// through others, at most depth generations back; nearest generations first, each artifact once.
func (s *Store) Ancestors(ctx context.Context, id string, depth, limit int) ([]Artifact, error) {
	return s.lineage(ctx, id, depth, limit, `SELECT p.parent_id, l.depth + 1 FROM artifact_parents p JOIN lineage l ON p.child_id = l.id`)
}

// Descendants returns up to limit artifacts made from the artifact id, directly or through
// others, at most depth generations on; nearest generations first, each artifact once.
func (s *Store) Descendants(ctx context.Context, id string, depth, limit int) ([]Artifact, error) {
	return s.lineage(ctx, id, depth, limit, `SELECT p.child_id, l.depth + 1 FROM artifact_parents p JOIN lineage l ON p.parent_id = l.id`)
}

func (s *Store) lineage(ctx context.Context, id string, depth, limit int, step string) ([]Artifact, error) {
	if depth <= 0 {
		return nil, nil
	}
	// UNION (not UNION ALL) keeps the walk from visiting a (node, depth) pair twice; the
	// outer query keeps each artifact at its nearest depth.
	q := `WITH RECURSIVE lineage(id, depth) AS (
			SELECT id, 0 FROM artifacts WHERE id = ?
			UNION ` + step + ` WHERE l.depth < ?
		)
		SELECT ` + artifactColumns + ` FROM artifacts a
		JOIN (SELECT id, MIN(depth) AS depth FROM lineage WHERE depth > 0 GROUP BY id) d ON d.id = a.id
		ORDER BY d.depth, a.id LIMIT ?`
	return s.scan(ctx, q, id, depth, clampLimit(limit))
}

// Annotations returns up to limit annotations of the artifact id, oldest first.
func (s *Store) Annotations(ctx context.Context, id string, limit int) ([]Annotation, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, artifact_id, message, vibe, source, created_at FROM annotations
		WHERE artifact_id = ? ORDER BY id LIMIT ?`, id, clampLimit(limit))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Annotation
	for rows.Next() {
		var a Annotation
		var at int64
		if err := rows.Scan(&a.ID, &a.ArtifactID, &a.Message, &a.Vibe, &a.Source, &at); err != nil {
			return nil, err
		}
		a.CreatedAt = time.Unix(0, at).UTC()
		out = append(out, a)
	}
	return out, rows.Err()
}

// Annotate records an annotation of an artifact, which must exist.
func (s *Store) Annotate(ctx context.Context, artifactID, message, vibe, source string) (Annotation, error) {
	now := s.now().UTC()
	a := Annotation{ID: ids.New(ids.Annotation, now), ArtifactID: artifactID, Message: message, Vibe: vibe, Source: source, CreatedAt: now}
	err := s.db.Write(ctx, func(tx *database.Tx) error {
		if err := exists(ctx, tx, artifactID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO annotations (id, artifact_id, message, vibe, source, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			a.ID, a.ArtifactID, a.Message, a.Vibe, a.Source, now.UnixNano())
		return err
	})
	if err != nil {
		return Annotation{}, err
	}
	return a, nil
}

// Tag adds and removes tags of an artifact and returns it. A tag both added and removed is
// removed.
func (s *Store) Tag(ctx context.Context, id string, add, remove []string) (Artifact, error) {
	err := s.db.Write(ctx, func(tx *database.Tx) error {
		if err := exists(ctx, tx, id); err != nil {
			return err
		}
		for _, t := range normalizeTags(add) {
			if _, err := tx.ExecContext(ctx, `INSERT INTO artifact_tags (artifact_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING`, id, t); err != nil {
				return err
			}
		}
		for _, t := range remove {
			if _, err := tx.ExecContext(ctx, `DELETE FROM artifact_tags WHERE artifact_id = ? AND tag = ?`, id, t); err != nil {
				return err
			}
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM artifact_tags WHERE artifact_id = ?`, id).Scan(&n); err != nil {
			return err
		}
		if n > MaxTags {
			return &LimitError{fmt.Sprintf("the artifact would have %d tags; an artifact has at most %d", n, MaxTags)}
		}
		return nil
	})
	if err != nil {
		return Artifact{}, err
	}
	return s.Get(ctx, id)
}

// A Filter selects artifacts for [Store.List]. Zero fields do not filter.
type Filter struct {
	Tag          string
	Creator      string
	ParentID     string
	VariationSet string
	Since        time.Time
	// After is the cursor: list the artifacts that sort after this id (older ones).
	After string
	// Limit is the most to return; zero or less means 50, more than MaxPage means MaxPage.
	Limit int
}

// List returns the artifacts that match f, newest first, and the cursor for the next page ("" on
// the last page).
func (s *Store) List(ctx context.Context, f Filter) ([]Artifact, string, error) {
	var where []string
	var args []any
	// A tag's page is read along the index of the tag's artifacts, newest first, stopping at
	// the page's end: a subquery of all the tag's artifacts would cost in proportion to how
	// common the tag is, however short the page.
	from, order := `FROM artifacts a`, `a.id`
	if f.Tag != "" {
		from, order = `FROM artifact_tags t JOIN artifacts a ON a.id = t.artifact_id`, `t.artifact_id`
		where = append(where, `t.tag = ?`)
		args = append(args, f.Tag)
	}
	if f.Creator != "" {
		where = append(where, `a.creator = ?`)
		args = append(args, f.Creator)
	}
	if f.ParentID != "" {
		where = append(where, `a.id IN (SELECT child_id FROM artifact_parents WHERE parent_id = ?)`)
		args = append(args, f.ParentID)
	}
	if f.VariationSet != "" {
		where = append(where, `a.variation_set = ? AND a.variation_set <> ''`) // see nextVariationIndex
		args = append(args, f.VariationSet)
	}
	if f.Since.After(maxTime) {
		// Nothing was made after the last time a database row can record.
		return nil, "", nil
	}
	if !f.Since.IsZero() {
		where = append(where, `a.created_at >= ?`)
		args = append(args, f.Since.UnixNano())
	}
	if f.After != "" {
		where = append(where, order+` < ?`)
		args = append(args, f.After)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, MaxPage)
	clause := ""
	if len(where) > 0 {
		clause = "WHERE " + strings.Join(where, " AND ")
	}
	as, err := s.scan(ctx, `SELECT `+artifactColumns+` `+from+` `+clause+` ORDER BY `+order+` DESC LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(as) > limit {
		as = as[:limit]
		next = as[limit-1].ID
	}
	return as, next, nil
}

// Counts returns how many artifacts and annotations are stored.
func (s *Store) Counts(ctx context.Context) (artifacts, annotations int64, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM artifacts), (SELECT COUNT(*) FROM annotations)`).Scan(&artifacts, &annotations)
	return artifacts, annotations, err
}

// ReferencedBatch is how many hashes [Store.Referenced] asks the database about in one query.
const ReferencedBatch = 500

// Referenced reports which of hashes some artifact names: the map holds true for each one that
// is named, and nothing for the others. It asks in batches of [ReferencedBatch], one query each,
// so that a caller walking a large content store never holds every named hash in memory.
func (s *Store) Referenced(ctx context.Context, hashes []string) (map[string]bool, error) {
	named := make(map[string]bool)
	for chunk := range slices.Chunk(hashes, ReferencedBatch) {
		rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT hash FROM artifacts WHERE hash IN (`+placeholders(len(chunk))+`)`, anys(chunk)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var h string
			if err := rows.Scan(&h); err != nil {
				rows.Close()
				return nil, err
			}
			named[h] = true
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return named, nil
}

const artifactColumns = `a.id, a.hash, a.size, a.mime_type, a.creator, a.created_at, a.metadata, a.variation_set, a.variation_index`

// query returns the artifacts that the rest of a SELECT over artifacts a picks, with their tags
// and parents.
func (s *Store) query(ctx context.Context, rest string, args ...any) ([]Artifact, error) {
	return s.scan(ctx, `SELECT `+artifactColumns+` FROM artifacts a `+rest, args...)
}

func (s *Store) scan(ctx context.Context, q string, args ...any) ([]Artifact, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Artifact
	for rows.Next() {
		var a Artifact
		var at int64
		if err := rows.Scan(&a.ID, &a.Hash, &a.Size, &a.MimeType, &a.Creator, &at, &a.Metadata, &a.VariationSet, &a.VariationIndex); err != nil {
			return nil, err
		}
		a.CreatedAt = time.Unix(0, at).UTC()
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	return out, s.fill(ctx, out)
}

// fill loads the tags and parents of as.
func (s *Store) fill(ctx context.Context, as []Artifact) error {
	if len(as) == 0 {
		return nil
	}
	byID := make(map[string]*Artifact, len(as))
	idList := make([]string, 0, len(as))
	for i := range as {
		if _, dup := byID[as[i].ID]; !dup {
			idList = append(idList, as[i].ID)
		}
		byID[as[i].ID] = &as[i]
	}
	for chunk := range slices.Chunk(idList, 200) {
		in := placeholders(len(chunk))
		if err := s.each(ctx, `SELECT artifact_id, tag FROM artifact_tags WHERE artifact_id IN (`+in+`) ORDER BY artifact_id, tag`, chunk,
			func(id, v string) { byID[id].Tags = append(byID[id].Tags, v) }); err != nil {
			return err
		}
		if err := s.each(ctx, `SELECT child_id, parent_id FROM artifact_parents WHERE child_id IN (`+in+`) ORDER BY child_id, position`, chunk,
			func(id, v string) { byID[id].ParentIDs = append(byID[id].ParentIDs, v) }); err != nil {
			return err
		}
	}
	// Duplicates in as (the same artifact listed twice) share what the first one got.
	for i := range as {
		if p := byID[as[i].ID]; p != &as[i] {
			as[i].Tags, as[i].ParentIDs = p.Tags, p.ParentIDs
		}
	}
	return nil
}

func (s *Store) each(ctx context.Context, q string, idList []string, fn func(id, v string)) error {
	rows, err := s.db.QueryContext(ctx, q, anys(idList)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, v string
		if err := rows.Scan(&id, &v); err != nil {
			return err
		}
		fn(id, v)
	}
	return rows.Err()
}

func exists(ctx context.Context, tx *database.Tx, id string) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM artifacts WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return &NotFoundError{ID: id, Parent: -1}
	}
	return err
}

// normalizeTags returns the tags sorted, without duplicates.
func normalizeTags(tags []string) []string {
	out := slices.Clone(tags)
	slices.Sort(out)
	return slices.Compact(out)
}

func clampLimit(n int) int {
	if n <= 0 || n > MaxPage {
		return MaxPage
	}
	return n
}

// pairs returns n rows of two placeholders for a VALUES list: (?, ?), (?, ?)...
func pairs(n int) string {
	return strings.TrimSuffix(strings.Repeat("(?, ?), ", n), ", ")
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func nullString(v string) any {
	if v == "" {
		return nil
	}
	return v
}

func nullBytes(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}
