package genhoot

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Names of the envelope messages and of the error member of Result.
const (
	payloadName    = "Payload"
	resultName     = "Result"
	toolErrorName  = "ToolError"
	jobStartedName = "JobStarted"
	// anyName is the message of the members through which a schema carries another's envelope.
	anyName protoreflect.FullName = "google.protobuf.Any"
)

// jobNote ends the description of every tool of kind JOB.
const jobNote = "Runs as a background job: the call answers at once with job_started, which holds the job's id; " +
	"job_await waits for the result, job_status shows progress, job_cancel stops it."

var (
	toolNamePattern    = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	serviceNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
)

// A catalog is every tool of one schema, read from its Payload and Result messages.
type catalog struct {
	file     *protogen.File
	payload  *protogen.Message
	result   *protogen.Message
	tools    []*tool
	services []*service
	tierEnum *protogen.Enum
	kindEnum *protogen.Enum
	// surfaceEnum is hoot.v1.Surface: whether a request is a tool, a prompt or a resource.
	surfaceEnum *protogen.Enum
	// taskRoleEnum is hoot.v1.TaskRole: what a tool does for the gateway's MCP tasks.
	taskRoleEnum *protogen.Enum
	// jobStarted is the member of Result that tools of kind JOB answer with, or nil. For a
	// carried schema it is the carrier's.
	jobStarted *protogen.Field
	// carrierPayload and carrierResult are the google.protobuf.Any members of Payload and
	// Result through which this schema carries another's envelope, or nil.
	carrierPayload, carrierResult *protogen.Field
	// carrier is, for a schema whose file has the (hoot.v1.carried) option, the schema that
	// carries it; nil otherwise.
	carrier *carrier
}

// A carrier is the schema whose envelope carries another's: its Payload and Result, their Any
// members, and the Go package of its generated tool table, whose types the carried schema's
// tools and services use.
type carrier struct {
	payload, result               *protogen.Message
	carrierPayload, carrierResult *protogen.Field
	jobStarted                    *protogen.Field
	hoot                          protogen.GoImportPath
}

// A tool is one member of the Payload oneof with what was worked out about it.
type tool struct {
	opts         *hootv1.ToolOptions
	request      *protogen.Message
	result       *protogen.Message
	payloadField *protogen.Field // the request's member of the Payload oneof
	resultField  *protogen.Field // the result's member of the Result oneof
	answerField  *protogen.Field // the member the call answers with: resultField, or JobStarted for jobs
	method       string          // the handler method's Go name
	fixture      bool            // a test fixture, not a tool of the product (isFixture)
	carrier      *carrier        // the schema that carries the tool's, or nil
	description  string
	tier, kind   *protogen.EnumValue
	surface      *protogen.EnumValue
	taskRole     *protogen.EnumValue

	inputSchema  string
	outputSchema string
	elicit       []elicitField // the request's fields that a person supplies
	usage        string
	example      string
}

// A service is the tools that one worker service serves, in Payload order.
type service struct {
	name   string
	goName string
	tools  []*tool
	jobs   bool // some tool of the service runs as a job
}

// refusals collects every reason to refuse a schema, so that one run reports them all.
type refusals []error

func (r *refusals) add(format string, args ...any) {
	*r = append(*r, fmt.Errorf("protoc-gen-hoot: "+format, args...))
}

func (r refusals) err() error { return errors.Join(r...) }

// newCatalog reads the tools of the schema whose Payload message is payload.
func newCatalog(plugin *protogen.Plugin, file *protogen.File, payload *protogen.Message, suffix string) (*catalog, error) {
	c := &catalog{file: file, payload: payload}
	var bad refusals
	if carried, _ := proto.GetExtension(file.Desc.Options(), hootv1.E_Carried).(bool); carried {
		if c.carrier = findCarrier(plugin, file, suffix); c.carrier == nil {
			bad.add("%s has the (hoot.v1.carried) option, but no other schema's Payload and Result have a google.protobuf.Any member to carry it: "+
				"add `google.protobuf.Any carried = N;` to the oneofs of the carrying schema's Payload and Result, or drop the option", file.Desc.Path())
			return nil, bad.err()
		}
		c.jobStarted = c.carrier.jobStarted
	}

	c.tierEnum = findEnum(plugin, (hootv1.Tier)(0).Descriptor().FullName())
	c.kindEnum = findEnum(plugin, (hootv1.Kind)(0).Descriptor().FullName())
	c.surfaceEnum = findEnum(plugin, (hootv1.Surface)(0).Descriptor().FullName())
	c.taskRoleEnum = findEnum(plugin, (hootv1.TaskRole)(0).Descriptor().FullName())
	if c.tierEnum == nil || c.kindEnum == nil || c.surfaceEnum == nil || c.taskRoleEnum == nil {
		bad.add("%s does not import %s: the tool options are needed to build the tool table",
			file.Desc.Path(), hootv1.File_hoot_v1_options_proto.Path())
		return nil, bad.err()
	}

	payloadOneof := soleOneof(payload, &bad)
	c.result = findMessage(file.Messages, resultName)
	if c.result == nil {
		bad.add("%s defines %s but no %s message: add `message %s { oneof result { %s error = 1; ... } }` next to it",
			file.Desc.Path(), payload.Desc.FullName(), resultName, resultName, toolErrorName)
		return nil, bad.err()
	}
	resultOneof := soleOneof(c.result, &bad)
	if payloadOneof == nil || resultOneof == nil {
		return nil, bad.err()
	}

	// The members of Result, by the full name of their message.
	results := make(map[protoreflect.FullName]*protogen.Field)
	produced := make(map[*protogen.Field]bool)
	var toolError *protogen.Field
	for _, f := range resultOneof.Fields {
		if f.Message == nil {
			bad.add("%s is a %s: every member of %s.%s must be a message (a tool's result or %s)",
				f.Desc.FullName(), f.Desc.Kind(), c.result.Desc.FullName(), resultOneof.Desc.Name(), toolErrorName)
			continue
		}
		if f.Message.Desc.FullName() == anyName && c.carrierResult == nil && c.carrier == nil {
			c.carrierResult = f
			continue
		}
		if f.Message.Desc.Name() == toolErrorName {
			toolError = f
			continue
		}
		if f.Message.Desc.Name() == jobStartedName {
			c.jobStarted = f
			continue
		}
		if prev, ok := results[f.Message.Desc.FullName()]; ok {
			bad.add("%s and %s both hold %s: keep one of them", prev.Desc.FullName(), f.Desc.FullName(), f.Message.Desc.FullName())
			continue
		}
		results[f.Message.Desc.FullName()] = f
	}
	if toolError == nil && c.carrier == nil {
		// A carried schema's errors come in its carrier's Result.
		bad.add("%s.%s has no %s member: add `%s error = N;` to it, so that workers can report failures",
			c.result.Desc.FullName(), resultOneof.Desc.Name(), toolErrorName, toolErrorName)
	}

	names := make(map[string]*tool)
	inPayload := make(map[protoreflect.FullName]bool)
	for _, f := range payloadOneof.Fields {
		if f.Message == nil {
			bad.add("%s is a %s: every member of %s.%s must be a tool's request message",
				f.Desc.FullName(), f.Desc.Kind(), payload.Desc.FullName(), payloadOneof.Desc.Name())
			continue
		}
		m := f.Message
		if m.Desc.FullName() == anyName && c.carrierPayload == nil && c.carrier == nil {
			c.carrierPayload = f
			continue
		}
		if inPayload[m.Desc.FullName()] {
			bad.add("%s holds %s a second time: a request message is one tool, keep one member", f.Desc.FullName(), m.Desc.FullName())
			continue
		}
		inPayload[m.Desc.FullName()] = true
		opts := toolOptionsOf(m)
		if opts == nil {
			bad.add("%s holds %s, which has no (hoot.v1.tool) option: add `option (hoot.v1.tool) = {name: \"...\" service: \"...\" ...};` to %s, or take it out of %s",
				f.Desc.FullName(), m.Desc.FullName(), m.Desc.Name(), payload.Desc.Name())
			continue
		}
		t := &tool{opts: opts, request: m, payloadField: f, method: camelCase(opts.GetName()), fixture: isFixture(m), carrier: c.carrier}
		c.checkTool(t, names, &bad)
		if t.result = c.findResult(t, results, &bad); t.result != nil {
			t.resultField = results[t.result.Desc.FullName()]
			t.answerField = t.resultField
			produced[t.resultField] = true
		}
		if t.isJob() {
			if c.jobStarted == nil {
				bad.add("%s: tool %q is of kind JOB, but %s has no %s member to answer with: add `%s job_started = N;` to its oneof, with a message %s that holds the job's id",
					m.Desc.FullName(), opts.GetName(), c.result.Desc.FullName(), jobStartedName, jobStartedName, jobStartedName)
			} else {
				t.answerField = c.jobStarted
			}
		}
		c.tools = append(c.tools, t)
	}

	// A tool option outside Payload would silently make no tool.
	for _, f := range plugin.Files {
		if f.Desc.Package() != file.Desc.Package() {
			continue
		}
		walkMessages(f.Messages, func(m *protogen.Message) {
			if toolOptionsOf(m) != nil && !inPayload[m.Desc.FullName()] {
				bad.add("%s has the (hoot.v1.tool) option but is not in %s.%s: add `%s %s = N;` to the oneof, or drop the option",
					m.Desc.FullName(), payload.Desc.FullName(), payloadOneof.Desc.Name(), m.Desc.Name(), toolOptionsOf(m).GetName())
			}
		})
	}
	c.checkTaskOptions(&bad)
	for _, f := range resultOneof.Fields {
		if f.Message != nil && f != toolError && !produced[f] && results[f.Message.Desc.FullName()] == f {
			bad.add("%s holds %s, which no tool returns: take it out of %s, or name it in a tool's (hoot.v1.tool).result",
				f.Desc.FullName(), f.Message.Desc.FullName(), c.result.Desc.Name())
		}
	}
	if (c.carrierPayload == nil) != (c.carrierResult == nil) {
		bad.add("%s and %s must both have a google.protobuf.Any member to carry another schema, or neither", payload.Desc.FullName(), c.result.Desc.FullName())
	}
	if len(bad) > 0 {
		return nil, bad.err()
	}
	c.groupServices(&bad)
	return c, bad.err()
}

// checkTool checks the tool's options and resolves its tier and kind.
func (c *catalog) checkTool(t *tool, names map[string]*tool, bad *refusals) {
	m, o := t.request.Desc.FullName(), t.opts
	switch name := o.GetName(); {
	case name == "":
		bad.add("%s: (hoot.v1.tool).name is empty: give the tool a snake_case name such as %q", m, snakeCase(strings.TrimSuffix(string(t.request.Desc.Name()), "Request")))
	case !toolNamePattern.MatchString(name):
		bad.add("%s: tool name %q is not valid: use 1 to 64 characters of [a-z0-9_], starting with a letter", m, name)
	case names[name] != nil:
		bad.add("%s: tool name %q is already the name of %s: tool names must be unique", m, name, names[name].request.Desc.FullName())
	default:
		names[name] = t
	}
	switch s := o.GetService(); {
	case s == "":
		bad.add("%s: (hoot.v1.tool).service is empty: name the worker service that serves the tool, such as \"system\"", m)
	case !serviceNamePattern.MatchString(s):
		bad.add("%s: service name %q is not valid: use 1 to 64 characters of [a-z0-9_], starting with a letter", m, s)
	}
	t.tier = enumValue(c.tierEnum, protoreflect.EnumNumber(o.GetTier()))
	if o.GetTier() == hootv1.Tier_TIER_UNSPECIFIED || t.tier == nil {
		bad.add("%s: (hoot.v1.tool).tier is not set: say how much trust the tool needs, such as tier: TIER_BASIC", m)
	}
	t.kind = enumValue(c.kindEnum, protoreflect.EnumNumber(o.GetKind()))
	if o.GetKind() == hootv1.Kind_KIND_UNSPECIFIED || t.kind == nil {
		bad.add("%s: (hoot.v1.tool).kind is not set: say how the tool answers, kind: KIND_SYNC or kind: KIND_JOB", m)
	}
	t.description = joinProse(o.GetDescription(), prose(t.request.Comments.Leading))
	c.checkSurface(t, bad)
	checkConfirm(t, bad)
	checkFixtureSchema(t, bad)
	if t.isJob() {
		t.description = joinProse(t.description, jobNote)
	}
}

// checkConfirm refuses confirm where the gateway would never ask: on prompts and resources,
// which are not called with tools/call, and on tools that neither destroy state nor are of tier
// ADMIN, where asking a person would only teach them to accept without reading.
func checkConfirm(t *tool, bad *refusals) {
	m, o := t.request.Desc.FullName(), t.opts
	if o.GetTier() >= hootv1.Tier_TIER_ADMIN && o.GetSurface() != hootv1.Surface_SURFACE_UNSPECIFIED {
		// The gateway asks a person before every admin call, and it can ask only in tools/call.
		bad.add("%s: %q is an admin %s: the gateway puts every admin call to a person, which only tools/call can do; make it a tool or give it a lower tier", m, o.GetName(), strings.ToLower(strings.TrimPrefix(o.GetSurface().String(), "SURFACE_")))
	}
	if !o.GetConfirm() {
		return
	}
	switch {
	case o.GetSurface() != hootv1.Surface_SURFACE_UNSPECIFIED:
		bad.add("%s: (hoot.v1.tool).confirm is for tools: %q is not called with tools/call, so nothing would ask; drop confirm", m, o.GetName())
	case !o.GetAnnotations().GetDestructive() && o.GetTier() < hootv1.Tier_TIER_ADMIN:
		bad.add("%s: (hoot.v1.tool).confirm is for destructive or admin tools: mark %q destructive (annotations: {destructive: true}) if it may destroy state, or drop confirm", m, o.GetName())
	}
}

// templateVariable matches one {variable} of a resource's URI template.
var templateVariable = regexp.MustCompile(`\{([^{}]*)\}`)

// checkSurface checks the options of a prompt or a resource and resolves its surface.
func (c *catalog) checkSurface(t *tool, bad *refusals) {
	m, o := t.request.Desc.FullName(), t.opts
	t.surface = enumValue(c.surfaceEnum, protoreflect.EnumNumber(o.GetSurface()))
	if t.surface == nil {
		bad.add("%s: (hoot.v1.tool).surface %d is not a Surface", m, o.GetSurface())
		return
	}
	if o.GetSurface() != hootv1.Surface_SURFACE_UNSPECIFIED && o.GetKind() != hootv1.Kind_KIND_SYNC {
		bad.add("%s: %q is a %s and must be of kind KIND_SYNC: prompts and resources answer inline", m, o.GetName(), t.surface.Desc.Name())
	}
	if o.GetSurface() != hootv1.Surface_SURFACE_RESOURCE {
		if o.GetUri() != "" || o.GetMimeType() != "" {
			bad.add("%s: (hoot.v1.tool).uri and mime_type are for resources: set surface: SURFACE_RESOURCE or drop them", m)
		}
		return
	}
	if o.GetUri() == "" {
		bad.add("%s: resource %q has no uri: set (hoot.v1.tool).uri to its URI or URI template, such as \"scheme://path/{id}\"", m, o.GetName())
		return
	}
	for _, v := range templateVariable.FindAllStringSubmatch(o.GetUri(), -1) {
		f := t.request.Desc.Fields().ByName(protoreflect.Name(v[1]))
		if f == nil || f.Kind() != protoreflect.StringKind || f.IsList() {
			bad.add("%s: the URI template %q names {%s}, which is not a string field of the request: add `string %s = N;`", m, o.GetUri(), v[1], v[1])
		}
	}
}

// isJob reports whether the tool runs as a background job.
func (t *tool) isJob() bool { return t.opts.GetKind() == hootv1.Kind_KIND_JOB }

// findResult returns the tool's result message from the members of Result.
func (c *catalog) findResult(t *tool, results map[protoreflect.FullName]*protogen.Field, bad *refusals) *protogen.Message {
	req := t.request.Desc
	name := t.opts.GetResult()
	if name == "" {
		base, ok := strings.CutSuffix(string(req.Name()), "Request")
		if !ok {
			bad.add("%s: the name does not end in Request, so the result cannot be found by name: set (hoot.v1.tool).result to the result message's name", req.FullName())
			return nil
		}
		name = base + "Result"
	}
	full := protoreflect.FullName(name)
	if !strings.Contains(name, ".") {
		full = req.ParentFile().Package().Append(protoreflect.Name(name))
	}
	if f, ok := results[full]; ok {
		return f.Message
	}
	bad.add("%s: tool %q has no result: %s is not a member of %s; add `%s %s = N;` to its oneof (or set (hoot.v1.tool).result to the message the tool returns)",
		req.FullName(), t.opts.GetName(), full, c.result.Desc.FullName(), full.Name(), t.opts.GetName())
	return nil
}

// groupServices sorts the tools into services, in the order each service first appears.
func (c *catalog) groupServices(bad *refusals) {
	byName := make(map[string]*service)
	goNames := make(map[string]string)
	for _, t := range c.tools {
		s := byName[t.opts.GetService()]
		if s == nil {
			s = &service{name: t.opts.GetService(), goName: camelCase(t.opts.GetService())}
			if other, ok := goNames[s.goName]; ok {
				bad.add("services %q and %q both become %sHandler in Go: rename one", other, s.name, s.goName)
			}
			goNames[s.goName] = s.name
			byName[s.name] = s
			c.services = append(c.services, s)
		}
		for _, u := range s.tools {
			if u.method == t.method {
				bad.add("%s: tools %q and %q of service %q both become the method %s: rename one",
					t.request.Desc.FullName(), u.opts.GetName(), t.opts.GetName(), s.name, t.method)
			}
		}
		s.tools = append(s.tools, t)
		s.jobs = s.jobs || t.isJob()
	}
}

// soleOneof returns the one oneof of an envelope message, which must hold all its fields.
func soleOneof(m *protogen.Message, bad *refusals) *protogen.Oneof {
	var oneofs []*protogen.Oneof
	for _, o := range m.Oneofs {
		if !o.Desc.IsSynthetic() {
			oneofs = append(oneofs, o)
		}
	}
	if len(oneofs) != 1 {
		bad.add("%s must have exactly one oneof, holding one member per tool; it has %d", m.Desc.FullName(), len(oneofs))
		return nil
	}
	for _, f := range m.Fields {
		if f.Oneof != oneofs[0] {
			bad.add("%s is outside the oneof %s: %s may hold nothing but its oneof; move the field into it or drop it",
				f.Desc.FullName(), oneofs[0].Desc.Name(), m.Desc.FullName())
		}
	}
	return oneofs[0]
}

func toolOptionsOf(m *protogen.Message) *hootv1.ToolOptions {
	opts := m.Desc.Options()
	if !proto.HasExtension(opts, hootv1.E_Tool) {
		return nil
	}
	o, _ := proto.GetExtension(opts, hootv1.E_Tool).(*hootv1.ToolOptions)
	return o
}

func findMessage(ms []*protogen.Message, name protoreflect.Name) *protogen.Message {
	for _, m := range ms {
		if m.Desc.Name() == name {
			return m
		}
	}
	return nil
}

func walkMessages(ms []*protogen.Message, fn func(*protogen.Message)) {
	for _, m := range ms {
		fn(m)
		walkMessages(m.Messages, fn)
	}
}

func findEnum(plugin *protogen.Plugin, name protoreflect.FullName) *protogen.Enum {
	for _, f := range plugin.Files {
		for _, e := range f.Enums {
			if e.Desc.FullName() == name {
				return e
			}
		}
	}
	return nil
}

func enumValue(e *protogen.Enum, n protoreflect.EnumNumber) *protogen.EnumValue {
	for _, v := range e.Values {
		if v.Desc.Number() == n {
			return v
		}
	}
	return nil
}

// snakeCase turns a Go-style name into snake_case: "CasGet" becomes "cas_get".
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// checkTaskOptions checks the options by which the gateway serves MCP tasks: each task role
// belongs to one tool, a plain tool whose request is the job's id alone and whose result holds
// a Job; task_required is for tools of kind JOB.
func (c *catalog) checkTaskOptions(bad *refusals) {
	jobName := (*hootv1.Job)(nil).ProtoReflect().Descriptor().FullName()
	byRole := make(map[hootv1.TaskRole]*tool)
	for _, t := range c.tools {
		m, o := t.request.Desc.FullName(), t.opts
		if o.GetTaskRequired() && !t.isJob() {
			bad.add("%s: (hoot.v1.tool).task_required is for tools of kind JOB, which run as MCP tasks: make %q a job, or drop task_required", m, o.GetName())
		}
		role := o.GetTaskRole()
		if role == hootv1.TaskRole_TASK_ROLE_UNSPECIFIED {
			continue
		}
		if t.taskRole = enumValue(c.taskRoleEnum, protoreflect.EnumNumber(role)); t.taskRole == nil {
			bad.add("%s: (hoot.v1.tool).task_role %d is not a TaskRole", m, role)
			continue
		}
		if other := byRole[role]; other != nil {
			bad.add("%s: task_role %s is already the role of %q: the gateway needs one tool per role", m, role, other.opts.GetName())
		}
		byRole[role] = t
		if t.isJob() || o.GetSurface() != hootv1.Surface_SURFACE_UNSPECIFIED {
			bad.add("%s: a tool with a task_role must be a plain tool of kind SYNC: the gateway calls it and reads its answer at once", m)
		}
		fields := t.request.Desc.Fields()
		want := 1
		if role == hootv1.TaskRole_TASK_ROLE_UPDATE {
			want = 2
			if fields.Len() != 2 || !isAnswerMap(fields.Get(1)) {
				bad.add("%s: the tool of task_role %s takes the job's id and then the answers: give its request a second field map<string, hoot.v1.ClientResponse>", m, role)
			}
		}
		if fields.Len() < 1 || fields.Get(0).Kind() != protoreflect.StringKind || fields.Get(0).IsList() || fields.Len() != want {
			bad.add("%s: a tool with a task_role takes the job's id as its first field, a string, and nothing more but TASK_ROLE_UPDATE's answers", m)
		}
		if t.result == nil {
			continue
		}
		found := false
		rf := t.result.Desc.Fields()
		for i := range rf.Len() {
			if f := rf.Get(i); f.Message() != nil && f.Message().FullName() == jobName && !f.IsList() {
				found = true
			}
		}
		if !found {
			bad.add("%s: a tool with a task_role answers with the job: its result %s needs a field of type %s", m, t.result.Desc.FullName(), jobName)
		}
	}
}

// isAnswerMap reports whether f is a map from strings to hoot.v1.ClientResponse.
func isAnswerMap(f protoreflect.FieldDescriptor) bool {
	return f.IsMap() && f.MapKey().Kind() == protoreflect.StringKind && f.MapValue().Message() != nil &&
		f.MapValue().Message().FullName() == "hoot.v1.ClientResponse"
}

// findCarrier returns the schema that carries file's: the one other file of the request whose
// Payload and Result have a google.protobuf.Any member in their oneofs. Its generated package
// is found as GenerateFile names it, with the same suffix.
func findCarrier(plugin *protogen.Plugin, file *protogen.File, suffix string) *carrier {
	var found *carrier
	for _, f := range plugin.Files {
		if f == file {
			continue
		}
		p, r := findMessage(f.Messages, payloadName), findMessage(f.Messages, resultName)
		if p == nil || r == nil {
			continue
		}
		c := &carrier{payload: p, result: r}
		for _, x := range p.Fields {
			if x.Oneof != nil && x.Message != nil && x.Message.Desc.FullName() == anyName {
				c.carrierPayload = x
			}
		}
		for _, x := range r.Fields {
			if x.Oneof == nil || x.Message == nil {
				continue
			}
			switch {
			case x.Message.Desc.FullName() == anyName:
				c.carrierResult = x
			case x.Message.Desc.Name() == jobStartedName:
				c.jobStarted = x
			}
		}
		if c.carrierPayload == nil || c.carrierResult == nil {
			continue
		}
		if found != nil {
			return nil
		}
		pkg := string(f.GoPackageName) + suffix
		c.hoot = protogen.GoImportPath(path.Join(string(f.GoImportPath), pkg))
		found = c
	}
	return found
}

// kindJob is the KIND_JOB value of the Kind enum.
func (c *catalog) kindJob() *protogen.EnumValue {
	return enumValue(c.kindEnum, protoreflect.EnumNumber(hootv1.Kind_KIND_JOB))
}
