// Package graph answers GraphQL queries over artifacts, their lineage and annotations, and jobs,
// with typed answers: the nested messages of hoot.v1 (ArtifactNode, AnnotationNode, JobNode)
// with only the selected fields set. The schema is schema.graphql, embedded.
//
// Parsing and validation are github.com/vektah/gqlparser's, which reports every mistake with
// its line and column; execution is this package's own, a walk of the selection over the
// stores. Limits keep one query cheap: before it is validated or run, its selections (fields,
// aliases and fragment spreads, each time spread) are at most [MaxSelections] and its cost (each
// field once per item of the lists around it, a read of the store weighing [StoreReadCost]) at
// most [MaxCost]; it nests at most [MaxDepth] fields deep, its answer holds at most [MaxNodes]
// nodes, and aliases are allowed on top-level fields only (a typed answer has one place for
// each field).
package graph

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/ids"
	"github.com/hootenanny/hoot/hootenanny/internal/jobs"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Limits of one query.
const (
	// MaxDepth is how deeply fields nest; a top-level field is at depth 1.
	MaxDepth = 8
	// MaxNodes is the most artifacts, annotations, jobs and tree nodes one answer holds.
	MaxNodes = 1000
	// MaxLimit is the largest limit a list field takes.
	MaxLimit = 500
	// MaxLineageDepth is the largest depth ancestors and descendants take.
	MaxLineageDepth = 100
)

//go:embed schema.graphql
var schemaText string

var schema = sync.OnceValue(func() *ast.Schema {
	return gqlparser.MustLoadSchema(&ast.Source{Name: "schema.graphql", Input: schemaText})
})

// Jobs is what the engine reads of jobs.
type Jobs interface {
	Get(ctx context.Context, id string, withResult bool) (jobs.Job, error)
	List(ctx context.Context, f jobs.Filter) ([]jobs.Job, string, error)
}

// An Engine answers queries over an artifact store and jobs.
type Engine struct {
	arts   *artifacts.Store
	jobs   Jobs
	trees  Trees
	limits costLimits
}

// New returns an Engine over arts and js.
func New(arts *artifacts.Store, js Jobs) *Engine {
	return &Engine{arts: arts, jobs: js, limits: defaultCostLimits}
}

// Query answers query, running the operation named opName (which may be empty when the query
// holds one), with the given variables. Mistakes in the query give a *hooteproto.Error with
// CodeInvalidArgument on the field "query" (with line and column), "variables" or
// "operation_name".
func (e *Engine) Query(ctx context.Context, query, opName string, variables *structpb.Struct) (res *hootv1.ArtifactQueryResult, err error) {
	doc, perr := parser.ParseQuery(&ast.Source{Input: query})
	if perr != nil {
		var ge *gqlerror.Error
		if !errors.As(perr, &ge) {
			ge = gqlerror.Wrap(perr)
		}
		return nil, fromGraphQL(gqlerror.List{ge})
	}
	op, err := operation(doc, opName)
	if err != nil {
		return nil, err
	}
	// The cost is counted before validation, whose work grows with the square of the fields
	// that share a name, and before anything runs.
	if _, err := measure(doc, op, variables, e.limits); err != nil {
		return nil, err
	}
	if errs := validator.ValidateWithRules(schema(), doc, nil); len(errs) > 0 {
		return nil, fromGraphQL(errs)
	}
	if err := checkShape(op.SelectionSet, 1); err != nil {
		return nil, err
	}
	vars, verr := validator.VariableValues(schema(), op, variables.AsMap())
	if verr != nil {
		var ge *gqlerror.Error
		msg := verr.Error()
		if errors.As(verr, &ge) {
			msg = strings.TrimPrefix(ge.Error(), "input: ")
		}
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, msg).WithField("variables").
			WithHint("give every variable the query declares a value of its type in variables, such as {\"id\": \"art_...\"}")
	}
	defer func() {
		// gqlparser panics on argument values it validated but cannot convert; say so plainly.
		if p := recover(); p != nil {
			res, err = nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("an argument cannot be read: %v", p)).
				WithField("query").WithHint("check the arguments' values against the schema in the tool's description")
		}
	}()
	x := &execution{ctx: ctx, e: e, vars: vars}
	res = &hootv1.ArtifactQueryResult{}
	keys, fields := x.collect(op.SelectionSet)
	for _, key := range keys {
		qf, err := x.root(key, fields[key])
		if err != nil {
			return nil, err
		}
		res.Data = append(res.Data, qf)
	}
	res.Nodes = uint32(x.nodes)
	return res, nil
}

// operation picks the operation to run.
func operation(doc *ast.QueryDocument, name string) (*ast.OperationDefinition, error) {
	var names []string
	for _, op := range doc.Operations {
		names = append(names, op.Name)
	}
	if name != "" {
		if op := doc.Operations.ForName(name); op != nil {
			return op, nil
		}
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("the query has no operation named %q; it has %s", name, strings.Join(quoteAll(names), ", "))).
			WithField("operation_name").WithHint("name one of the query's operations, or leave operation_name out when it has one")
	}
	if len(doc.Operations) != 1 {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("the query has %d operations (%s); say which one to run", len(doc.Operations), strings.Join(quoteAll(names), ", "))).
			WithField("operation_name").WithHint("set operation_name to the name of the operation to run")
	}
	return doc.Operations[0], nil
}

// checkShape refuses what the typed answer cannot hold: introspection, nested aliases, and
// nesting deeper than MaxDepth.
func checkShape(set ast.SelectionSet, depth int) error {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				return located(s.Position, "%s: introspection is not served; the tool's description shows the whole schema", s.Name)
			}
			if depth > 1 && s.Alias != "" && s.Alias != s.Name {
				return located(s.Position, "alias %q: aliases are allowed on top-level fields only, since the answer has one place for each field", s.Alias)
			}
			if depth > MaxDepth {
				return located(s.Position, "%s is nested %d fields deep; a query nests at most %d", s.Name, depth, MaxDepth)
			}
			if err := checkShape(s.SelectionSet, depth+1); err != nil {
				return err
			}
		case *ast.InlineFragment:
			if err := checkShape(s.SelectionSet, depth); err != nil {
				return err
			}
		case *ast.FragmentSpread:
			if s.Definition != nil {
				if err := checkShape(s.Definition.SelectionSet, depth); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// fromGraphQL turns parse and validation errors into the caller's error: the first with its
// line and column, and how many more there are.
func fromGraphQL(errs gqlerror.List) error {
	first := errs[0]
	msg := first.Message
	if len(first.Locations) > 0 {
		msg = fmt.Sprintf("line %d, column %d: %s", first.Locations[0].Line, first.Locations[0].Column, first.Message)
	}
	if len(errs) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(errs)-1)
	}
	return hooteproto.NewError(hooteproto.CodeInvalidArgument, msg).WithField("query").
		WithHint("fix the query at that place; the tool's description shows the schema and example queries")
}

// located is a mistake at a place in the query.
func located(pos *ast.Position, format string, args ...any) *hooteproto.Error {
	msg := fmt.Sprintf(format, args...)
	if pos != nil {
		msg = fmt.Sprintf("line %d, column %d: %s", pos.Line, pos.Column, msg)
	}
	return hooteproto.NewError(hooteproto.CodeInvalidArgument, msg).WithField("query").
		WithHint("fix the query at that place; the tool's description shows the schema and example queries")
}

// An execution is one run of an operation.
type execution struct {
	ctx   context.Context
	e     *Engine
	vars  map[string]any
	nodes int
	// owners are the owners of the trees read so far, by tree id ("" for none).
	owners map[string]string
}

// collect returns the fields of a selection set by response key, in order, with fragments
// spread and @skip/@include applied. Fields that share a key are merged by the caller.
func (x *execution) collect(set ast.SelectionSet) ([]string, map[string][]*ast.Field) {
	var keys []string
	fields := make(map[string][]*ast.Field)
	var walk func(ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				if !x.included(s.Directives) {
					continue
				}
				key := s.Alias
				if key == "" {
					key = s.Name
				}
				if _, ok := fields[key]; !ok {
					keys = append(keys, key)
				}
				fields[key] = append(fields[key], s)
			case *ast.InlineFragment:
				if x.included(s.Directives) {
					walk(s.SelectionSet)
				}
			case *ast.FragmentSpread:
				if x.included(s.Directives) && s.Definition != nil {
					walk(s.Definition.SelectionSet)
				}
			}
		}
	}
	walk(set)
	return keys, fields
}

// included applies @skip and @include.
func (x *execution) included(ds ast.DirectiveList) bool {
	if d := ds.ForName("skip"); d != nil {
		if v, _ := d.ArgumentMap(x.vars)["if"].(bool); v {
			return false
		}
	}
	if d := ds.ForName("include"); d != nil {
		if v, _ := d.ArgumentMap(x.vars)["if"].(bool); !v {
			return false
		}
	}
	return true
}

// sub returns the merged selection of fields that share a response key.
func sub(fs []*ast.Field) ast.SelectionSet {
	if len(fs) == 1 {
		return fs[0].SelectionSet
	}
	var set ast.SelectionSet
	for _, f := range fs {
		set = append(set, f.SelectionSet...)
	}
	return set
}

// count adds n nodes to the answer, or fails past MaxNodes.
func (x *execution) count(f *ast.Field, n int) error {
	x.nodes += n
	if x.nodes > MaxNodes {
		return located(f.Position, "%s: the answer would hold more than %d artifacts, annotations, jobs and tree nodes; ask for fewer with limit, or select fewer nested lists", f.Name, MaxNodes)
	}
	return x.ctx.Err()
}

func (x *execution) root(key string, fs []*ast.Field) (*hootv1.QueryField, error) {
	f := fs[0]
	args := f.ArgumentMap(x.vars)
	qf := &hootv1.QueryField{Name: key}
	switch f.Name {
	case "artifact":
		id, _ := args["id"].(string)
		if !ids.Valid(ids.Artifact, id) {
			return nil, located(f.Position, "artifact(id: %q): an artifact id is \"art_\" and 26 lowercase letters and digits", id)
		}
		a, err := x.e.arts.Get(x.ctx, id)
		if errors.Is(err, artifacts.ErrNotFound) {
			return qf, nil
		}
		if err != nil {
			return nil, err
		}
		if err := x.count(f, 1); err != nil {
			return nil, err
		}
		node, err := x.artifact(a, sub(fs))
		if err != nil {
			return nil, err
		}
		qf.Value = &hootv1.QueryField_Artifact{Artifact: node}
	case "artifacts":
		filter := artifacts.Filter{}
		filter.Tag, _ = args["tag"].(string)
		filter.Creator, _ = args["creator"].(string)
		filter.ParentID, _ = args["parent"].(string)
		filter.VariationSet, _ = args["variation_set"].(string)
		if s, ok := args["since"].(string); ok && s != "" {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				return nil, located(f.Position, "artifacts(since: %q) is not a time; write it in RFC 3339, such as \"2026-01-02T15:04:05Z\"", s)
			}
			filter.Since = t
		}
		limit, err := x.limit(f, args, "limit", 50, MaxLimit)
		if err != nil {
			return nil, err
		}
		filter.Limit = limit
		as, _, err := x.e.arts.List(x.ctx, filter)
		if err != nil {
			return nil, err
		}
		list, err := x.artifactList(f, as, sub(fs))
		if err != nil {
			return nil, err
		}
		qf.Value = &hootv1.QueryField_Artifacts{Artifacts: list}
	case "job":
		id, _ := args["id"].(string)
		if !ids.Valid(ids.Job, id) {
			return nil, located(f.Position, "job(id: %q): a job id is \"job_\" and 26 lowercase letters and digits", id)
		}
		j, err := x.e.jobs.Get(x.ctx, id, false)
		if errors.Is(err, jobs.ErrNotFound) {
			return qf, nil
		}
		if err != nil {
			return nil, err
		}
		if err := x.count(f, 1); err != nil {
			return nil, err
		}
		qf.Value = &hootv1.QueryField_Job{Job: x.job(j, sub(fs))}
	case "jobs":
		filter := jobs.Filter{}
		if s, ok := args["status"].(string); ok {
			filter.Status = jobs.Status(hootv1.JobStatus_value["JOB_STATUS_"+s])
		}
		filter.Tool, _ = args["tool"].(string)
		limit, err := x.limit(f, args, "limit", 50, MaxLimit)
		if err != nil {
			return nil, err
		}
		filter.Limit = limit
		js, _, err := x.e.jobs.List(x.ctx, filter)
		if err != nil {
			return nil, err
		}
		if err := x.count(f, len(js)); err != nil {
			return nil, err
		}
		list := &hootv1.JobNodeList{}
		for _, j := range js {
			list.Items = append(list.Items, x.job(j, sub(fs)))
		}
		qf.Value = &hootv1.QueryField_Jobs{Jobs: list}
	case "tree_node":
		if err := x.rootTreeNode(qf, fs, args); err != nil {
			return nil, err
		}
	}
	return qf, nil
}

// limit reads an integer argument that must lie in 1..most.
func (x *execution) limit(f *ast.Field, args map[string]any, name string, def, most int) (int, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return def, nil
	}
	n, ok := toInt(v)
	if !ok || n < 1 || n > int64(most) {
		return 0, located(f.Position, "%s(%s: %v): give a whole number from 1 to %d", f.Name, name, v, most)
	}
	return int(n), nil
}

func toInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	case string:
		i, err := strconv.ParseInt(n, 10, 64)
		return i, err == nil
	}
	return 0, false
}

func (x *execution) artifactList(f *ast.Field, as []artifacts.Artifact, set ast.SelectionSet) (*hootv1.ArtifactNodeList, error) {
	if err := x.count(f, len(as)); err != nil {
		return nil, err
	}
	list := &hootv1.ArtifactNodeList{Items: make([]*hootv1.ArtifactNode, 0, len(as))}
	for _, a := range as {
		node, err := x.artifact(a, set)
		if err != nil {
			return nil, err
		}
		list.Items = append(list.Items, node)
	}
	return list, nil
}

// artifact returns the node of a with the fields set selects.
func (x *execution) artifact(a artifacts.Artifact, set ast.SelectionSet) (*hootv1.ArtifactNode, error) {
	n := &hootv1.ArtifactNode{}
	keys, fields := x.collect(set)
	for _, key := range keys {
		fs := fields[key]
		f := fs[0]
		args := f.ArgumentMap(x.vars)
		var err error
		switch f.Name {
		case "id":
			n.Id = proto.String(a.ID)
		case "hash":
			n.Hash = proto.String(a.Hash)
		case "size":
			n.Size = proto.Uint64(uint64(a.Size))
		case "mime_type":
			n.MimeType = proto.String(a.MimeType)
		case "tags":
			n.Tags = &hootv1.StringList{Values: append([]string{}, a.Tags...)}
		case "creator":
			n.Creator = proto.String(a.Creator)
		case "created_at":
			n.CreatedAt = timestamppb.New(a.CreatedAt)
		case "variation_set":
			if a.VariationSet != "" {
				n.VariationSet = proto.String(a.VariationSet)
			}
		case "variation_index":
			if a.VariationSet != "" {
				n.VariationIndex = proto.Uint32(uint32(a.VariationIndex))
			}
		case "midi", "audio":
			if len(a.Metadata) == 0 {
				continue
			}
			m := new(hootv1.ArtifactMetadata)
			if proto.Unmarshal(a.Metadata, m) != nil {
				continue
			}
			if f.Name == "midi" {
				n.Midi = m.GetMidi()
			} else {
				n.Audio = m.GetAudio()
			}
		case "parents":
			var as []artifacts.Artifact
			if as, err = x.e.arts.Parents(x.ctx, a.ID); err == nil {
				n.Parents, err = x.artifactList(f, as, sub(fs))
			}
		case "children":
			var limit int
			if limit, err = x.limit(f, args, "limit", 50, MaxLimit); err == nil {
				var as []artifacts.Artifact
				if as, err = x.e.arts.Children(x.ctx, a.ID, limit); err == nil {
					n.Children, err = x.artifactList(f, as, sub(fs))
				}
			}
		case "ancestors", "descendants":
			var depth, limit int
			if depth, err = x.limit(f, args, "depth", 10, MaxLineageDepth); err != nil {
				break
			}
			if limit, err = x.limit(f, args, "limit", 100, MaxLimit); err != nil {
				break
			}
			walk := x.e.arts.Ancestors
			if f.Name == "descendants" {
				walk = x.e.arts.Descendants
			}
			var as []artifacts.Artifact
			if as, err = walk(x.ctx, a.ID, depth, limit); err != nil {
				break
			}
			list, lerr := x.artifactList(f, as, sub(fs))
			if f.Name == "ancestors" {
				n.Ancestors = list
			} else {
				n.Descendants = list
			}
			err = lerr
		case "annotations":
			var limit int
			if limit, err = x.limit(f, args, "limit", 50, MaxLimit); err != nil {
				break
			}
			var anns []artifacts.Annotation
			if anns, err = x.e.arts.Annotations(x.ctx, a.ID, limit); err != nil {
				break
			}
			if err = x.count(f, len(anns)); err != nil {
				break
			}
			n.Annotations = &hootv1.AnnotationNodeList{}
			for _, an := range anns {
				node, aerr := x.annotation(an, sub(fs))
				if aerr != nil {
					return nil, aerr
				}
				n.Annotations.Items = append(n.Annotations.Items, node)
			}
		case "tree_nodes":
			var limit int
			if limit, err = x.limit(f, args, "limit", 20, MaxLimit); err == nil {
				n.TreeNodes, err = x.artifactTreeNodes(f, sub(fs), a.ID, limit)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (x *execution) annotation(an artifacts.Annotation, set ast.SelectionSet) (*hootv1.AnnotationNode, error) {
	n := &hootv1.AnnotationNode{}
	keys, fields := x.collect(set)
	for _, key := range keys {
		fs := fields[key]
		switch fs[0].Name {
		case "id":
			n.Id = proto.String(an.ID)
		case "message":
			n.Message = proto.String(an.Message)
		case "vibe":
			n.Vibe = proto.String(an.Vibe)
		case "source":
			n.Source = proto.String(an.Source)
		case "created_at":
			n.CreatedAt = timestamppb.New(an.CreatedAt)
		case "artifact":
			a, err := x.e.arts.Get(x.ctx, an.ArtifactID)
			if err != nil {
				return nil, err
			}
			if err := x.count(fs[0], 1); err != nil {
				return nil, err
			}
			if n.Artifact, err = x.artifact(a, sub(fs)); err != nil {
				return nil, err
			}
		}
	}
	return n, nil
}

func (x *execution) job(j jobs.Job, set ast.SelectionSet) *hootv1.JobNode {
	n := &hootv1.JobNode{}
	keys, fields := x.collect(set)
	for _, key := range keys {
		switch fields[key][0].Name {
		case "id":
			n.Id = proto.String(j.ID)
		case "tool":
			n.Tool = proto.String(j.Tool)
		case "status":
			s := hootv1.JobStatus(j.Status)
			n.Status = &s
		case "progress":
			n.Progress = proto.Float64(j.Progress)
		case "total":
			n.Total = proto.Float64(j.Total)
		case "message":
			n.Message = proto.String(j.Message)
		case "created_at":
			n.CreatedAt = timestamppb.New(j.CreatedAt)
		case "started_at":
			if !j.StartedAt.IsZero() {
				n.StartedAt = timestamppb.New(j.StartedAt)
			}
		case "finished_at":
			if !j.FinishedAt.IsZero() {
				n.FinishedAt = timestamppb.New(j.FinishedAt)
			}
		}
	}
	return n
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		if s == "" {
			s = "(unnamed)"
		} else {
			s = strconv.Quote(s)
		}
		out[i] = s
	}
	return out
}
