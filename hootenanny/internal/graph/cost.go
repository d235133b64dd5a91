package graph

import (
	"fmt"
	"strconv"

	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/vektah/gqlparser/v2/ast"
	"google.golang.org/protobuf/types/known/structpb"
)

// Limits of a query's cost, checked on the parsed query before it is validated or run.
const (
	// MaxSelections is the most selections a query makes: every field (aliased or not) and
	// every fragment spread, counted each time a fragment is spread, in every operation and
	// fragment of the document. Validation compares fields that share a name pairwise, so this
	// bounds its work too.
	MaxSelections = 300
	// MaxCost is the most a query may cost: each field costs 1 each time it runs, and each
	// field that reads the store (artifact, artifacts, job, jobs and every field that gives
	// artifacts or annotations) costs StoreReadCost each time it runs. A field inside a list
	// runs once per item the list may hold (its limit, or its default), up to MaxNodes.
	MaxCost = 20000
	// StoreReadCost is what one read of the store costs.
	StoreReadCost = 10
)

// A cost is what a query costs, and where it costs most.
type cost struct {
	selections int // fields and fragment spreads, each time spread
	aliases    int // aliased fields among them
	total      int // the weighted cost
	depth      int // the deepest nesting of fields
	// dearest is the top-level field that costs most (with everything under it), and its cost.
	dearest     *ast.Field
	dearestCost int
}

// costLimits are the limits an Engine checks; tests may raise them.
type costLimits struct {
	selections, total int
}

var defaultCostLimits = costLimits{selections: MaxSelections, total: MaxCost}

// A costWalk counts one operation, stopping as soon as a limit is passed so that its own work
// stays within the limits whatever the query (a fragment spread twice in each of a chain of
// fragments would otherwise double the work at every link).
type costWalk struct {
	doc     *ast.QueryDocument
	vars    map[string]any
	limits  costLimits
	c       cost
	spreads map[string]bool // fragments being spread, to stop at a cycle
	spread  map[string]bool // fragments spread at all
	// running is set while the operation that runs is counted: the others' selections count,
	// their cost does not.
	running bool
	err     error
	// top is the top-level field being counted, and the total when its count began.
	top      *ast.Field
	topStart int
}

// measure counts op and returns what it costs, or an error past a limit.
//
// Validation reads the whole document, so the selections are those of every operation and of
// every fragment, spread or not; the cost is the operation's that runs.
func measure(doc *ast.QueryDocument, op *ast.OperationDefinition, variables *structpb.Struct, limits costLimits) (cost, error) {
	w := &costWalk{doc: doc, vars: variables.AsMap(), limits: limits, spreads: map[string]bool{}, spread: map[string]bool{}, running: true}
	w.set(op.SelectionSet, schema().Query, 1, 1)
	w.running = false
	for _, other := range doc.Operations {
		if other != op && w.err == nil {
			w.set(other.SelectionSet, schema().Query, 1, 1)
		}
	}
	for _, f := range doc.Fragments {
		if !w.spread[f.Name] && w.err == nil {
			w.set(f.SelectionSet, schema().Types[f.TypeCondition], 1, 2)
		}
	}
	return w.c, w.err
}

// set counts a selection set run mult times on objects of type def (nil when unknown), whose
// fields are at the given depth.
func (w *costWalk) set(set ast.SelectionSet, def *ast.Definition, mult, depth int) {
	for _, sel := range set {
		if w.err != nil {
			return
		}
		w.c.selections++
		if w.c.selections > w.limits.selections {
			w.err = w.refuse(selectionPos(sel), "it makes more than %d selections (fields, aliases and fragment spreads, each time a fragment is spread)", w.limits.selections)
			return
		}
		switch s := sel.(type) {
		case *ast.Field:
			if depth == 1 {
				w.top, w.topStart = s, w.c.total
			}
			w.field(s, def, mult, depth)
			if depth == 1 {
				w.noteTop()
				w.top = nil
			}
		case *ast.InlineFragment:
			w.set(s.SelectionSet, w.typeOr(s.TypeCondition, def), mult, depth)
		case *ast.FragmentSpread:
			f := w.doc.Fragments.ForName(s.Name)
			if f == nil {
				continue // validation names the missing fragment
			}
			if w.spreads[s.Name] {
				w.err = located(s.Position, "fragment %s spreads itself; a fragment cannot contain itself", s.Name)
				return
			}
			w.spreads[s.Name], w.spread[s.Name] = true, true
			w.set(f.SelectionSet, w.typeOr(f.TypeCondition, def), mult, depth)
			delete(w.spreads, s.Name)
		}
	}
}

// noteTop keeps the top-level field being counted as the dearest if it costs most so far.
func (w *costWalk) noteTop() {
	if w.top != nil && w.c.total-w.topStart > w.c.dearestCost {
		w.c.dearest, w.c.dearestCost = w.top, w.c.total-w.topStart
	}
}

// field counts one field run mult times on objects of type def.
func (w *costWalk) field(f *ast.Field, def *ast.Definition, mult, depth int) {
	if f.Alias != "" && f.Alias != f.Name {
		w.c.aliases++
	}
	if depth > w.c.depth {
		w.c.depth = depth
	}
	if depth > MaxDepth {
		w.err = located(f.Position, "%s is nested %d fields deep; a query nests at most %d", f.Name, depth, MaxDepth)
		return
	}
	var fd *ast.FieldDefinition
	if def != nil {
		fd = def.Fields.ForName(f.Name)
	}
	var typ *ast.Definition
	list := false
	if fd != nil {
		typ = schema().Types[fd.Type.Name()]
		list = fd.Type.Elem != nil
	}
	weight := 1
	if typ != nil && (typ.Name == "Artifact" || typ.Name == "Annotation" || typ.Name == "Job" || typ.Name == "TreeNode") {
		weight = StoreReadCost
	}
	if w.running {
		w.c.total = add(w.c.total, mul(mult, weight))
	}
	if w.c.total > w.limits.total {
		w.err = w.refuse(f.Position, "it costs more than %d", w.limits.total)
		return
	}
	inner := mult
	if list && len(f.SelectionSet) > 0 {
		inner = min(mul(mult, w.fanOut(f, fd)), MaxNodes)
	}
	w.set(f.SelectionSet, typ, inner, depth+1)
}

// fanOut is how many items a list field may give: its limit argument, or that argument's
// default, or for parents the most parents an artifact has.
func (w *costWalk) fanOut(f *ast.Field, fd *ast.FieldDefinition) int {
	if f.Name == "parents" {
		return artifacts.MaxParents
	}
	if f.Name == "artifacts" && fd.Type.Name() == "Artifact" && len(fd.Arguments) == 0 {
		return 1 // a tree node points at one artifact at most
	}
	ad := fd.Arguments.ForName("limit")
	if ad == nil {
		return MaxNodes
	}
	n := -1
	if a := f.Arguments.ForName("limit"); a != nil && a.Value != nil {
		switch a.Value.Kind {
		case ast.IntValue:
			if v, err := strconv.Atoi(a.Value.Raw); err == nil {
				n = v
			}
		case ast.Variable:
			if v, ok := toInt(w.vars[a.Value.Raw]); ok && v < int64(MaxNodes) {
				n = int(v)
			}
		}
	}
	if n < 0 && ad.DefaultValue != nil {
		n, _ = strconv.Atoi(ad.DefaultValue.Raw)
	}
	// A limit outside 1..MaxLimit is refused when the field runs; count it at the bounds.
	return max(1, min(n, MaxLimit))
}

// typeOr is the type named by a fragment's type condition, or def when it names none.
func (w *costWalk) typeOr(name string, def *ast.Definition) *ast.Definition {
	if name == "" {
		return def
	}
	return schema().Types[name]
}

// refuse says what the query costs, what the limit is, and how to make it cheaper.
func (w *costWalk) refuse(pos *ast.Position, format string, args ...any) error {
	why := fmt.Sprintf(format, args...)
	msg := fmt.Sprintf("the query is too costly to run: %s; counted so far: %d selections, %d of them aliased, nested %d fields deep, cost %d (each field costs 1 each time it runs, each read of the store %d, and a field inside a list runs once for each item the list may hold, by its limit)",
		why, w.c.selections, w.c.aliases, w.c.depth, w.c.total, StoreReadCost)
	if pos != nil {
		msg = fmt.Sprintf("line %d, column %d: %s", pos.Line, pos.Column, msg)
	}
	hint := fmt.Sprintf("split the query into several smaller ones, select each field once, or lower limit on the lists (%d selections and a cost of %d at most)", w.limits.selections, w.limits.total)
	w.noteTop()
	if d := w.c.dearest; d != nil {
		name := d.Name
		if d.Alias != "" && d.Alias != d.Name {
			name = d.Alias + ": " + d.Name
		}
		hint = fmt.Sprintf("the dearest top-level field so far is %s at line %d, column %d (cost %d); ", name, d.Position.Line, d.Position.Column, w.c.dearestCost) + hint
	}
	return located(nil, "%s", msg).WithHint(hint)
}

// selectionPos is where a selection starts.
func selectionPos(sel ast.Selection) *ast.Position {
	return sel.GetPosition()
}

// add and mul saturate, so that no count wraps around.
const saturated = 1 << 40

func add(a, b int) int { return min(a+b, saturated) }

func mul(a, b int) int {
	if a != 0 && b > saturated/a {
		return saturated
	}
	return min(a*b, saturated)
}
