package storebench

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/hootenanny/hoot/hootenanny/internal/ids"
)

// The shape of a seeded store: what fraction of artifacts has which kind of lineage, how tags
// and creators are spread. The figures are a guess at a working music store, where most work
// continues something recent, some of it merges or fans out from a theme, and a few projects
// are tagged by name.
const (
	// Creators is how many agents make artifacts; a few make most of them (Zipf).
	Creators = 40
	// projectLen is how many consecutive artifacts share a project tag.
	projectLen = 500
	// recentWindow is how far back a continued artifact finds its parent: a small window
	// makes long chains.
	recentWindow = 64
	// mergeWindow is how far back the parents of a merge are found.
	mergeWindow = 1000
	// hubEvery says which artifacts are themes that many others come from.
	hubEvery = 1000
	// recentHubs is how many of the latest themes a fan-out picks from.
	recentHubs = 8
	// JobsPer is one seeded job for this many artifacts.
	JobsPer = 10
)

// Probabilities of the kinds of artifact, in this order; the rest are roots.
const (
	pContinue  = 0.55 // one parent among the recent ones
	pMerge     = 0.10 // two or three parents
	pFanOut    = 0.12 // a theme as parent
	pVariation = 0.02 // starts a variation set of 3 to 12 artifacts with the same parents
)

// vocabulary are the tags other than project tags, most common first.
var vocabulary = []string{
	"draft", "keeper", "piano", "drums", "bass", "melody", "chords", "jazz", "folk", "ambient",
	"reel", "jig", "waltz", "strings", "guitar", "loop", "intro", "outro", "bridge", "verse",
	"chorus", "slow", "fast", "minor", "major", "dorian", "mixolydian", "rejected", "final", "mixdown",
	"stem", "vocal", "synth", "pad", "arp", "lead", "harmony", "counterpoint", "fugue", "sketch",
	"2/4", "3/4", "4/4", "6/8", "9/8", "c-major", "g-major", "d-major", "a-minor", "e-minor",
	"reviewed", "favourite", "archive", "remix", "cover", "original", "live", "render", "preview", "export",
}

// mimeTypes and their weights out of 100.
var mimeTypes = []struct {
	name   string
	weight int
	size   [2]int64 // bytes, at least and at most
}{
	{"audio/midi", 50, [2]int64{1 << 10, 64 << 10}},
	{"text/vnd.abc", 20, [2]int64{200, 8 << 10}},
	{"audio/wav", 20, [2]int64{1 << 20, 40 << 20}},
	{"application/json", 10, [2]int64{100, 4 << 10}},
}

// jobTools are the tools of seeded jobs.
var jobTools = []string{"abc_to_midi", "render_audio", "analyze", "variations", "midi_to_abc"}

// A Row is one artifact to seed, with its tags and parents.
type Row struct {
	Index          int
	ID             string
	Hash           string
	Size           int64
	MimeType       string
	Creator        string
	CreatedAt      int64 // Unix nanoseconds
	VariationSet   string
	VariationIndex int
	Tags           []string
	Parents        []int // indices of earlier rows
}

// A JobRow is one finished job to seed.
type JobRow struct {
	ID         string
	Tool       string
	Status     int // a jobs.Status
	CreatedAt  int64
	FinishedAt int64
}

// A Shape makes the rows of a store one after another, the same rows for the same seed and
// start time, so that a store can be grown in steps: each call to Next continues where the last
// one stopped. Row i is made at startMs + i milliseconds, so ids sort as rows were made.
type Shape struct {
	rng     *rand.Rand
	creator *rand.Zipf
	tag     *rand.Zipf
	startMs int64
	n       int

	// The variation set being made: its name, next index, how many remain and their parents.
	set       string
	setIndex  int
	setLeft   int
	setParent []int
	// sets are the first rows of the variation sets made so far.
	sets []int
}

// NewShape returns a Shape whose first row is made at startMs (Unix milliseconds).
func NewShape(seed uint64, startMs int64) *Shape {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &Shape{
		rng:     rng,
		creator: rand.NewZipf(rng, 1.3, 2, Creators-1),
		tag:     rand.NewZipf(rng, 1.2, 3, uint64(len(vocabulary)-1)),
		startMs: startMs,
	}
}

// Made returns how many rows the shape has made.
func (s *Shape) Made() int { return s.n }

// ArtifactID returns the id of row i.
func (s *Shape) ArtifactID(i int) string { return seedID(ids.Artifact, s.startMs+int64(i), uint64(i)) }

// JobID returns the id of the job seeded with row i (a multiple of JobsPer).
func (s *Shape) JobID(i int) string { return seedID(ids.Job, s.startMs+int64(i), uint64(i)) }

// VariationSets returns how many variation sets the shape has made.
func (s *Shape) VariationSets() int { return len(s.sets) }

// VariationSet returns the name of the k-th variation set made and the row of its first
// artifact.
func (s *Shape) VariationSet(k int) (name string, first int) {
	return "vs-" + s.ArtifactID(s.sets[k]), s.sets[k]
}

// CreatorName returns the name of creator c.
func CreatorName(c int) string { return fmt.Sprintf("agent-%02d", c) }

// ProjectTag returns the project tag of row i.
func ProjectTag(i int) string { return "project-" + strconv.Itoa(i/projectLen) }

// Vocabulary returns the tags other than project tags, most common first.
func Vocabulary() []string { return vocabulary }

// Next makes the next row, and the job seeded with it (nil for most rows).
func (s *Shape) Next() (Row, *JobRow) {
	i := s.n
	s.n++
	r := Row{
		Index:     i,
		ID:        s.ArtifactID(i),
		Creator:   CreatorName(int(s.creator.Uint64())),
		CreatedAt: (s.startMs + int64(i)) * 1e6,
	}
	sum := sha256.Sum256([]byte(r.ID))
	r.Hash = hex.EncodeToString(sum[:])
	w := s.rng.IntN(100)
	for _, m := range mimeTypes {
		if w < m.weight {
			r.MimeType = m.name
			r.Size = m.size[0] + s.rng.Int64N(m.size[1]-m.size[0])
			break
		}
		w -= m.weight
	}

	// Tags: the project's for half of them, and up to three more, common ones more often.
	if s.rng.IntN(2) == 0 {
		r.Tags = append(r.Tags, ProjectTag(i))
	}
	for range s.rng.IntN(4) {
		r.Tags = append(r.Tags, vocabulary[s.tag.Uint64()])
	}
	r.Tags = uniqueSorted(r.Tags)

	// Lineage.
	switch p := s.rng.Float64(); {
	case s.setLeft > 0:
		r.Parents = s.setParent
		r.VariationSet, r.VariationIndex = s.set, s.setIndex
		s.setIndex++
		s.setLeft--
	case i == 0:
	case p < pContinue:
		r.Parents = []int{i - 1 - s.rng.IntN(min(i, recentWindow))}
	case p < pContinue+pMerge:
		k := 2 + s.rng.IntN(2)
		for range k {
			r.Parents = append(r.Parents, i-1-s.rng.IntN(min(i, mergeWindow)))
		}
		r.Parents = uniqueInts(r.Parents)
	case p < pContinue+pMerge+pFanOut:
		last := (i - 1) / hubEvery * hubEvery // the latest theme before this row
		r.Parents = []int{last - hubEvery*s.rng.IntN(min(last/hubEvery+1, recentHubs))}
	case p < pContinue+pMerge+pFanOut+pVariation:
		r.Parents = []int{i - 1 - s.rng.IntN(min(i, recentWindow))}
		s.set = "vs-" + r.ID // as VariationSet names it
		r.VariationSet, r.VariationIndex = s.set, 1
		s.setIndex, s.setLeft, s.setParent = 2, 2+s.rng.IntN(10), r.Parents
		s.sets = append(s.sets, i)
	}

	var job *JobRow
	if i%JobsPer == 0 {
		job = &JobRow{ID: s.JobID(i), Tool: jobTools[s.rng.IntN(len(jobTools))], Status: 3, CreatedAt: r.CreatedAt,
			FinishedAt: r.CreatedAt + s.rng.Int64N(5e9)}
		switch w := s.rng.IntN(100); {
		case w < 8:
			job.Status = 4 // failed
		case w < 10:
			job.Status = 5 // cancelled
		}
	}
	return r, job
}

// seedID returns an id of the form package ids makes, for a row made at ms: the time, then
// 16 digits from n, so ids differ even within a millisecond and sort by ms first.
func seedID(prefix string, ms int64, n uint64) string {
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	b := make([]byte, 0, len(prefix)+26)
	b = append(b, prefix...)
	for i := 9; i >= 0; i-- {
		b = append(b, alphabet[(uint64(ms)>>(5*uint(i)))&31])
	}
	for i := 15; i >= 0; i-- {
		b = append(b, alphabet[(n>>(5*uint(i)))&31])
	}
	return string(b)
}

func uniqueSorted(ss []string) []string {
	slices.Sort(ss)
	return slices.Compact(ss)
}

func uniqueInts(xs []int) []int {
	out := xs[:0]
	for _, x := range xs {
		dup := false
		for _, y := range out {
			dup = dup || x == y
		}
		if !dup {
			out = append(out, x)
		}
	}
	return out
}
