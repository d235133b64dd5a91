package consent

import (
	"encoding/json"
	"strconv"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// This file is the question put to a person about a call: what they read and the form they
// fill, the same in every protocol era; the mcp package's confirmers carry it to the client.

// A Question is one call put to a person: the tool and its decoded arguments, and what the
// person is asked: whether the call may run, the arguments they supply, or both in one form.
type Question struct {
	Tool *hootv1hoot.Tool
	// Confirm asks whether the call may run; Fill are the arguments the person supplies.
	Confirm bool
	Fill    []hootv1hoot.ElicitField
	// Args are the call's arguments that differ from their defaults, each as "name: value",
	// in the order of the request's fields, values shortened.
	Args []string
	// Req is the decoded arguments, which a question asked across two requests is bound to.
	Req proto.Message
}

// maxShownArguments bounds the arguments a question lists; the rest are counted.
const maxShownArguments = 12

// NewQuestion returns the question whether the call of t with req may run. A tool of tier
// OPERATOR runs a command on a worker's machine: its question lists every argument in full,
// never shortened, and those left out as the worker's defaults, so that the person sees exactly
// what will run.
func NewQuestion(t *hootv1hoot.Tool, req proto.Message) Question {
	return Question{Tool: t, Confirm: true, Args: argumentLines(req, t.Tier >= hootv1.Tier_TIER_OPERATOR), Req: req}
}

// argumentLines returns the fields set in req as "name: value" lines, in field order, with
// each value as compact JSON shortened to a line; in full, values are not shortened and the
// fields left out are named as the worker's defaults.
func argumentLines(req proto.Message, full bool) []string {
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(req)
	var set map[string]json.RawMessage
	if err != nil || json.Unmarshal(b, &set) != nil {
		return nil
	}
	var lines []string
	fields := req.ProtoReflect().Descriptor().Fields()
	for i := range fields.Len() {
		name := string(fields.Get(i).Name())
		v, ok := set[name]
		switch {
		case ok && full:
			lines = append(lines, name+": "+string(rawjson.Compact(v)))
		case ok:
			lines = append(lines, name+": "+wording.Short(string(rawjson.Compact(v))))
		case full:
			lines = append(lines, name+": the worker's default")
		}
	}
	return lines
}

// Message is what the person reads: which tool, what it does, why they are asked, and the
// arguments.
func (q Question) Message() string {
	if !q.Confirm {
		return q.fillMessage()
	}
	t := q.Tool
	var b strings.Builder
	q.introduce(&b, "Run the tool ", "? ")
	switch {
	case t.Tier >= hootv1.Tier_TIER_OPERATOR:
		b.WriteString(operatorWarning)
	case t.Annotations.Destructive && t.Tier >= hootv1.Tier_TIER_ADMIN:
		b.WriteString("It is destructive (it may destroy or overwrite stored data) and an admin tool.")
	case t.Annotations.Destructive:
		b.WriteString("It is destructive: it may destroy or overwrite stored data.")
	default:
		b.WriteString("It is an admin tool: it changes the server itself.")
	}
	b.WriteString("\nArguments: ")
	if len(q.Args) == 0 {
		b.WriteString("none (the tool's defaults)")
	} else {
		b.WriteString(q.shownArguments())
	}
	b.WriteString("\nA model asked for this call. Tick confirm and accept to run it once, with these arguments; decline to refuse it.")
	if len(q.Fill) > 0 {
		b.WriteString("\n" + q.fillNeeds())
	}
	return b.String()
}

// introduce writes lead, the tool's name and title, then after, and the first paragraph of its
// description: the opening of every question about a call.
func (q Question) introduce(b *strings.Builder, lead, after string) {
	b.WriteString(lead + q.Tool.Name)
	if q.Tool.Title != "" {
		b.WriteString(" (" + q.Tool.Title + ")")
	}
	b.WriteString(after)
	if first, _, _ := strings.Cut(q.Tool.Description, "\n\n"); first != "" {
		b.WriteString(strings.TrimSpace(first) + " ")
	}
}

// shownArguments lists the call's arguments, at most maxShownArguments of them and a count
// of the rest.
func (q Question) shownArguments() string {
	if n := len(q.Args); n > maxShownArguments {
		return strings.Join(q.Args[:maxShownArguments], ", ") + " and " + strconv.Itoa(n-maxShownArguments) + " more"
	}
	return strings.Join(q.Args, ", ")
}

// ConfirmField is the one field of the confirmation form.
const ConfirmField = "confirm"

// RequestedSchema is the form of the question: one boolean, unticked until the person ticks
// it, so that a client that accepts forms unread does not confirm anything.
func (q Question) RequestedSchema() map[string]any {
	props, required := q.fillProperties()
	if q.Confirm {
		props[ConfirmField] = map[string]any{
			"type":        "boolean",
			"title":       "Run " + q.Tool.Name,
			"description": "Tick to run " + q.Tool.Name + " once with the arguments shown.",
			"default":     false,
		}
		required = append(required, ConfirmField)
	}
	return map[string]any{
		"type":       "object",
		"properties": props,
		"required":   required,
	}
}

// Accepted returns what an accepted form with content answers q: accepted, unless q asks
// whether the call may run and the confirm box is not ticked.
func (q Question) Accepted(content map[string]json.RawMessage) Answer {
	if q.Confirm && string(rawjson.Compact(content[ConfirmField])) != "true" {
		return AcceptedUnticked
	}
	return Accepted
}

// fillNeeds says what the person is asked to supply.
func (q Question) fillNeeds() string {
	return "It needs what only you can give: " + strings.Join(ElicitNames(q.Fill), ", ") + ". Fill in the form."
}

// fillMessage is what the person reads when they are asked for arguments alone: which tool,
// what it does, what it needs of them, and the arguments it already has.
func (q Question) fillMessage() string {
	var b strings.Builder
	q.introduce(&b, "The tool ", " is about to run. ")
	b.WriteString(q.fillNeeds())
	if len(q.Args) > 0 {
		b.WriteString("\nArguments it has: " + q.shownArguments())
	}
	b.WriteString("\nA model asked for this call. Accept to run it with your answers; decline to refuse it.")
	return b.String()
}

// fillProperties returns the form's properties for the arguments q asks for, and their names,
// which the form requires.
func (q Question) fillProperties() (map[string]any, []string) {
	props := make(map[string]any, len(q.Fill)+1)
	required := make([]string, 0, len(q.Fill)+1)
	for _, f := range q.Fill {
		props[f.Name] = json.RawMessage(f.Schema)
		required = append(required, f.Name)
	}
	return props, required
}

// ElicitNames returns the names of the fields.
func ElicitNames(fields []hootv1hoot.ElicitField) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names
}

// KeyPrefix starts the key of q in inputRequests: ConfirmKeyPrefix for a question whether the
// call may run (arguments asked with it or not), ArgumentsKeyPrefix for arguments alone.
func (q Question) KeyPrefix() string {
	if q.Confirm {
		return ConfirmKeyPrefix
	}
	return ArgumentsKeyPrefix
}

// ConfirmKeyPrefix starts the key of the confirmation question in inputRequests; the
// question's id follows it.
const ConfirmKeyPrefix = "confirm-"

// ArgumentsKeyPrefix starts the key of a question that asks for arguments alone in
// inputRequests; the question's id follows it. A question that also asks whether the call may
// run is keyed with ConfirmKeyPrefix.
const ArgumentsKeyPrefix = "arguments-"
