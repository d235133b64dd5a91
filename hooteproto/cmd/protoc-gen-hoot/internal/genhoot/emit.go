package genhoot

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
)

// generateTools writes tools.hoot.go: the Tool and Annotations types and the Tools table.
func generateTools(g *protogen.GeneratedFile, c *catalog, pkg protogen.GoPackageName) {
	generatePreamble(g, c, pkg, true)
	if c.carrier != nil {
		generateCarriedTools(g, c)
		return
	}
	protoMessage := g.QualifiedGoIdent(protoPackage.Ident("Message"))
	fieldNumber := g.QualifiedGoIdent(protoreflectPackage.Ident("FieldNumber"))
	payload := g.QualifiedGoIdent(c.payload.GoIdent)
	result := g.QualifiedGoIdent(c.result.GoIdent)

	generateToolNames(g, c)
	g.P("// A Tool is everything the gateway knows about one tool, generated from its request message.")
	g.P("type Tool struct {")
	g.P("// Name is the tool's MCP name.")
	g.P("Name string")
	g.P("// Title is a short human title.")
	g.P("Title string")
	g.P("// Description is the option's one-line description followed by the message's comment.")
	g.P("Description string")
	g.P("// Service is the worker service that serves the tool.")
	g.P("Service string")
	g.P("// Tier is how much trust the tool needs.")
	g.P("Tier ", c.tierEnum.GoIdent)
	g.P("// Kind says whether the tool answers inline or runs as a job.")
	g.P("Kind ", c.kindEnum.GoIdent)
	g.P("// Annotations are the tool's behaviour hints.")
	g.P("Annotations Annotations")
	g.P("// Confirm says that the schema asks a person to confirm each call before it runs. The gateway")
	g.P("// also asks for every tool of tier ADMIN, whether or not it is set.")
	g.P("Confirm bool")
	g.P("// TaskRole says what the tool does for the gateway's MCP tasks, which are jobs: it reads a job")
	g.P("// (TASK_ROLE_GET) or cancels one (TASK_ROLE_CANCEL). Its request has one string field, the")
	g.P("// job's id, and its result a hoot.v1.Job field.")
	g.P("TaskRole ", c.taskRoleEnum.GoIdent)
	g.P("// TaskRequired says that a tool of kind JOB is called only as an MCP task.")
	g.P("TaskRequired bool")
	g.P("// Elicit are the request's fields that a person supplies when the caller leaves them out:")
	g.P("// the gateway asks for them with a form before the call reaches a worker.")
	g.P("Elicit []ElicitField")
	g.P("// Surface says how MCP clients see the request: as a tool (the zero value), a prompt or a")
	g.P("// resource.")
	g.P("Surface ", c.surfaceEnum.GoIdent)
	g.P("// URI is a resource's URI or URI template; empty for tools and prompts.")
	g.P("URI string")
	g.P("// MimeType is the media type of a resource's contents, when known.")
	g.P("MimeType string")
	g.P("// InputSchema is the JSON Schema of the tool's arguments, as JSON text.")
	g.P("InputSchema string")
	g.P("// OutputSchema is the JSON Schema of the tool's structured result (protojson with proto")
	g.P("// field names), as JSON text.")
	g.P("OutputSchema string")
	g.P("// Usage is a one-line signature, such as \"cas_get(hash: string, offset?: integer)\".")
	g.P("Usage string")
	g.P("// Example is a valid arguments object for the tool, as JSON text.")
	g.P("Example string")
	g.P("// PayloadField is the number of the tool's member of the ", c.payload.Desc.Name(), " oneof, which holds its")
	g.P("// request. NewRequest, Wrap and Unwrap work from it.")
	g.P("PayloadField ", fieldNumber)
	g.P("// ResultField is the number of the member of the ", c.result.Desc.Name(), " oneof that holds the tool's result.")
	g.P("// (Unwrap answers for a tool of kind JOB with the JobStarted that names the job.)")
	g.P("ResultField ", fieldNumber)
	if c.carrierPayload != nil {
		g.P("// Envelope, for a tool of a schema carried in this one, is that schema's ", c.payload.Desc.Name(), " and ", c.result.Desc.Name(), ",")
		g.P("// in which PayloadField and ResultField are; nil for this schema's own tools.")
		g.P("Envelope *Envelope")
	}
	g.P("}")
	g.P()
	generateToolMethods(g, c, payload, result, protoMessage, fieldNumber)
	g.P("// An ElicitField is a request field that a person supplies, and its property in the form that")
	g.P("// asks for it.")
	g.P("type ElicitField struct {")
	g.P("// Name is the field's name, as the input schema has it.")
	g.P("Name string")
	g.P("// Schema is the field's property in an elicitation form (MCP's primitive schema: a string,")
	g.P("// number, boolean or enum, with its title, description and bounds), as JSON text.")
	g.P("Schema string")
	g.P("}")
	g.P()
	g.P("// Annotations are a tool's behaviour hints.")
	g.P("type Annotations struct {")
	g.P("// ReadOnly: the tool does not change any state.")
	g.P("ReadOnly bool")
	g.P("// Destructive: the tool may destroy or overwrite existing state.")
	g.P("Destructive bool")
	g.P("// Idempotent: calling the tool twice with the same arguments has no further effect.")
	g.P("Idempotent bool")
	g.P("// OpenWorld: the tool reaches beyond this server.")
	g.P("OpenWorld bool")
	g.P("}")
	g.P()
	if c.carrierPayload != nil {
		messageType := g.QualifiedGoIdent(protoreflectPackage.Ident("MessageType"))
		wrapComment(g, "", "An Envelope is the "+string(c.payload.Desc.Name())+" and "+string(c.result.Desc.Name())+" of a schema carried in this one: its calls travel in "+
			string(c.carrierPayload.Desc.FullName())+" and its answers in "+string(c.carrierResult.Desc.FullName())+".")
		g.P("type Envelope struct {")
		g.P("Payload, Result ", messageType)
		g.P("}")
		g.P()
	}
	generateTables(g, c, "Tool", "")
}

// generateTables writes the Tools and Fixtures tables of c's tools, of the Go type toolType;
// envelope, when set, names the variable that each entry's Envelope takes.
func generateTables(g *protogen.GeneratedFile, c *catalog, toolType, envelope string) {
	var product, fixtures []*tool
	for _, t := range c.tools {
		if t.fixture {
			fixtures = append(fixtures, t)
		} else {
			product = append(product, t)
		}
	}
	if len(product) > 0 || envelope == "" {
		wrapComment(g, "", "Tools is every tool of the schema but its fixtures, in the order of the "+string(c.payload.Desc.Name())+" oneof.")
		g.P("var Tools = []", toolType, "{")
		for _, t := range product {
			generateTool(g, t, envelope)
		}
		g.P("}")
		g.AnnotateSymbol("Tools", protogen.Annotation{Location: c.payload.Location})
	}
	if len(fixtures) == 0 {
		return
	}
	g.P()
	wrapComment(g, "", "Fixtures are the tools of the files marked (hoot.v1.fixtures): test fixtures, such as those the MCP conformance suite calls, "+
		"in the order of the "+string(c.payload.Desc.Name())+" oneof. They are not the product's tools; a gateway serves them only when it is told to.")
	g.P("var Fixtures = []", toolType, "{")
	for _, t := range fixtures {
		generateTool(g, t, envelope)
	}
	g.P("}")
}

// generateCarriedTools writes the tool table of a carried schema: the names of its tools, its
// Envelope, and its tables in the carrier's Tool type.
func generateCarriedTools(g *protogen.GeneratedFile, c *catalog) {
	generateToolNames(g, c)
	hoot := c.carrier.hoot
	g.P("// envelope is this schema's ", c.payload.Desc.Name(), " and ", c.result.Desc.Name(), ", which travel in ",
		c.carrier.carrierPayload.Desc.FullName(), " and ", c.carrier.carrierResult.Desc.FullName(), ".")
	g.P("var envelope = &", hoot.Ident("Envelope"), "{")
	g.P("Payload: (*", c.payload.GoIdent, ")(nil).ProtoReflect().Type(),")
	g.P("Result: (*", c.result.GoIdent, ")(nil).ProtoReflect().Type(),")
	g.P("}")
	g.P()
	generateTables(g, c, g.QualifiedGoIdent(hoot.Ident("Tool")), "envelope")
}

// hootIdent qualifies a type of the generated tool table: local in the schema that defines it,
// the carrier's for a carried schema.
func hootIdent(g *protogen.GeneratedFile, t *tool, name string) string {
	if t.carrier != nil {
		return g.QualifiedGoIdent(t.carrier.hoot.Ident(name))
	}
	return name
}

func generateTool(g *protogen.GeneratedFile, t *tool, envelope string) {
	g.P("{")
	g.P("Name: ", strconv.Quote(t.opts.GetName()), ",")
	g.P("Title: ", strconv.Quote(t.opts.GetTitle()), ",")
	g.P("Description: ", strconv.Quote(t.description), ",")
	g.P("Service: ", strconv.Quote(t.opts.GetService()), ",")
	g.P("Tier: ", t.tier.GoIdent, ",")
	g.P("Kind: ", t.kind.GoIdent, ",")
	var hints []string
	a := t.opts.GetAnnotations()
	for _, h := range []struct {
		name string
		on   bool
	}{{"ReadOnly", a.GetReadOnly()}, {"Destructive", a.GetDestructive()}, {"Idempotent", a.GetIdempotent()}, {"OpenWorld", a.GetOpenWorld()}} {
		if h.on {
			hints = append(hints, h.name+": true")
		}
	}
	annotations := hootIdent(g, t, "Annotations")
	g.P("Annotations: ", annotations, "{", strings.Join(hints, ", "), "},")
	if t.opts.GetConfirm() {
		g.P("Confirm: true,")
	}
	if t.opts.GetTaskRole() != 0 {
		g.P("TaskRole: ", t.taskRole.GoIdent, ",")
	}
	if t.opts.GetTaskRequired() {
		g.P("TaskRequired: true,")
	}
	if len(t.elicit) > 0 {
		g.P("Elicit: []", hootIdent(g, t, "ElicitField"), "{")
		for _, f := range t.elicit {
			g.P("{Name: ", strconv.Quote(f.name), ", Schema: ", goString(f.schema), "},")
		}
		g.P("},")
	}
	if t.opts.GetSurface() != 0 {
		g.P("Surface: ", t.surface.GoIdent, ",")
	}
	if t.opts.GetUri() != "" {
		g.P("URI: ", strconv.Quote(t.opts.GetUri()), ",")
	}
	if t.opts.GetMimeType() != "" {
		g.P("MimeType: ", strconv.Quote(t.opts.GetMimeType()), ",")
	}
	g.P("InputSchema: ", goString(t.inputSchema), ",")
	g.P("OutputSchema: ", goString(t.outputSchema), ",")
	g.P("Usage: ", strconv.Quote(t.usage), ",")
	g.P("Example: ", goString(t.example), ",")
	g.P("PayloadField: ", t.payloadField.Desc.Number(), ", // ", t.payloadField.Desc.Name(), ": ", t.request.Desc.FullName())
	g.P("ResultField: ", t.resultField.Desc.Number(), ", // ", t.resultField.Desc.Name(), ": ", t.result.Desc.FullName())
	if envelope != "" {
		g.P("Envelope: ", envelope, ",")
	}
	g.P("},")
}

// generateToolNames writes a constant for each tool's name, for code that calls a tool by name.
func generateToolNames(g *protogen.GeneratedFile, c *catalog) {
	g.P("// The names of the tools, as MCP clients call them.")
	g.P("const (")
	for _, t := range c.tools {
		g.P("// ", t.method, "ToolName is the name of the tool whose request is ", t.request.Desc.FullName(), ".")
		g.P(t.method, "ToolName = ", strconv.Quote(t.opts.GetName()))
	}
	g.P(")")
	g.P()
}

// generateToolMethods writes the methods that make a tool's request, put it into a Payload and
// take the answer out of a Result. They are the same for every tool, which the table names by
// field number only: the table is data, and these few methods are its one piece of logic. In a
// schema that carries another, they also wrap and unwrap the carried schema's envelope.
func generateToolMethods(g *protogen.GeneratedFile, c *catalog, payload, result, protoMessage, fieldNumber string) {
	valueOfMessage := g.QualifiedGoIdent(protoreflectPackage.Ident("ValueOfMessage"))
	messageType := g.QualifiedGoIdent(protoreflectPackage.Ident("MessageType"))
	carries := c.carrierPayload != nil
	g.P("// envelopeTypes returns the ", c.payload.Desc.Name(), " and ", c.result.Desc.Name(), " types that PayloadField and ResultField are members of.")
	g.P("func (t *Tool) envelopeTypes() (payload, result ", messageType, ") {")
	if carries {
		g.P("if t.Envelope != nil {")
		g.P("return t.Envelope.Payload, t.Envelope.Result")
		g.P("}")
	}
	g.P("return (*", payload, ")(nil).ProtoReflect().Type(), (*", result, ")(nil).ProtoReflect().Type()")
	g.P("}")
	g.P()
	g.P("// NewRequest returns a new, empty request message of the tool.")
	g.P("func (t *Tool) NewRequest() ", protoMessage, " {")
	g.P("pt, _ := t.envelopeTypes()")
	g.P("p := pt.New()")
	g.P("return p.NewField(p.Descriptor().Fields().ByNumber(t.PayloadField)).Message().Interface()")
	g.P("}")
	g.P()
	g.P("// Wrap puts a request made by NewRequest into a ", c.payload.Desc.Name(), ".")
	if carries {
		g.P("// A carried schema's request goes into its own ", c.payload.Desc.Name(), ", and that into ", c.carrierPayload.Desc.Name(), "; a request that")
		g.P("// protobuf cannot encode (a string that is not UTF-8, which no decoded JSON holds) gives an empty")
		g.P("// ", c.payload.Desc.Name(), ", which a worker refuses as holding no call.")
	}
	g.P("func (t *Tool) Wrap(m ", protoMessage, ") *", payload, " {")
	g.P("pt, _ := t.envelopeTypes()")
	g.P("p := pt.New()")
	g.P("p.Set(p.Descriptor().Fields().ByNumber(t.PayloadField), ", valueOfMessage, "(m.ProtoReflect()))")
	if carries {
		g.P("if t.Envelope != nil {")
		g.P("a, err := ", anypbPackage.Ident("New"), "(p.Interface())")
		g.P("if err != nil {")
		g.P("return new(", payload, ")")
		g.P("}")
		g.P("return &", payload, "{", c.carrierPayload.Oneof.GoName, ": &", c.carrierPayload.GoIdent, "{", c.carrierPayload.GoName, ": a}}")
		g.P("}")
	}
	g.P("return p.Interface().(*", payload, ")")
	g.P("}")
	g.P()
	g.P("// Unwrap takes the tool's answer out of a ", c.result.Desc.Name(), ": its result, or for a tool of kind JOB the")
	g.P("// JobStarted that names the job; ok is false when r holds something else.")
	g.P("func (t *Tool) Unwrap(r *", result, ") (m ", protoMessage, ", ok bool) {")
	if js := c.jobStarted; js != nil {
		g.P("if t.Kind == ", c.kindJob().GoIdent, " {")
		g.P("x, ok := r.Get", js.Oneof.GoName, "().(*", js.GoIdent, ")")
		g.P("if !ok {")
		g.P("return nil, false")
		g.P("}")
		g.P("return x.", js.GoName, ", true")
		g.P("}")
	}
	g.P("return t.UnwrapResult(r)")
	g.P("}")
	g.P()
	g.P("// UnwrapResult takes the tool's result out of a ", c.result.Desc.Name(), ", for a tool of kind JOB the result of")
	g.P("// its finished job; ok is false when r holds something else.")
	g.P("func (t *Tool) UnwrapResult(r *", result, ") (m ", protoMessage, ", ok bool) {")
	g.P("x := r.ProtoReflect()")
	if carries {
		g.P("if t.Envelope != nil {")
		g.P("c, ok := r.Get", c.carrierResult.Oneof.GoName, "().(*", c.carrierResult.GoIdent, ")")
		g.P("if !ok {")
		g.P("return nil, false")
		g.P("}")
		g.P("x = t.Envelope.Result.New()")
		g.P("if err := c.", c.carrierResult.GoName, ".UnmarshalTo(x.Interface()); err != nil {")
		g.P("return nil, false")
		g.P("}")
		g.P("}")
	}
	g.P("fd := x.Descriptor().Fields().ByNumber(t.ResultField)")
	g.P("if fd == nil || !x.Has(fd) {")
	g.P("return nil, false")
	g.P("}")
	g.P("return x.Get(fd).Message().Interface(), true")
	g.P("}")
	g.P()
	g.P("// CheckFields reports a tool whose PayloadField or ResultField is not a message member of the")
	g.P("// oneof of its ", c.payload.Desc.Name(), " or its ", c.result.Desc.Name(), ", which NewRequest, Wrap and Unwrap could not use.")
	g.P("func (t *Tool) CheckFields() error {")
	g.P("pt, rt := t.envelopeTypes()")
	g.P("for _, f := range []struct {")
	g.P("m ", messageType)
	g.P("n ", fieldNumber)
	g.P("}{{pt, t.PayloadField}, {rt, t.ResultField}} {")
	g.P("d := f.m.Descriptor()")
	g.P("fd := d.Fields().ByNumber(f.n)")
	g.P("if fd == nil || fd.Message() == nil || fd.ContainingOneof() == nil {")
	g.P("return ", fmtPackage.Ident("Errorf"), `("tool %q: field %d of %s is not a message member of its oneof", t.Name, f.n, d.FullName())`)
	g.P("}")
	g.P("}")
	g.P("return nil")
	g.P("}")
	g.P()
}

// generateCarriedServices writes the services of a carried schema: per service a handler
// interface and a constructor of the carrier's Service type, whose dispatch takes the call out
// of the carrier's Payload and puts the answer into its Result.
func generateCarriedServices(g *protogen.GeneratedFile, c *catalog) {
	ctx := g.QualifiedGoIdent(contextPackage.Ident("Context"))
	cr := c.carrier
	outerPayload := g.QualifiedGoIdent(cr.payload.GoIdent)
	outerResult := g.QualifiedGoIdent(cr.result.GoIdent)
	notServed := g.QualifiedGoIdent(cr.hoot.Ident("ErrNotServed"))
	errorf := g.QualifiedGoIdent(fmtPackage.Ident("Errorf"))

	g.P("const (")
	for _, s := range c.services {
		g.P("// ", s.goName, "ServiceName is the name of the ", strconv.Quote(s.name), " service.")
		g.P(s.goName, "ServiceName = ", strconv.Quote(s.name))
	}
	g.P(")")
	g.P()
	g.P("// unwrapPayload takes this schema's ", c.payload.Desc.Name(), " out of p's ", cr.carrierPayload.Desc.Name(), " member.")
	g.P("func unwrapPayload(p *", outerPayload, ") (*", c.payload.GoIdent, ", error) {")
	g.P("c, ok := p.Get", cr.carrierPayload.Oneof.GoName, "().(*", cr.carrierPayload.GoIdent, ")")
	g.P("if !ok {")
	g.P("return nil, ", errorf, `("%w: %T", `, notServed, ", p.Get", cr.carrierPayload.Oneof.GoName, "())")
	g.P("}")
	g.P("in := new(", c.payload.GoIdent, ")")
	g.P("if err := c.", cr.carrierPayload.GoName, ".UnmarshalTo(in); err != nil {")
	g.P("return nil, ", errorf, `("%w: %w", `, notServed, ", err)")
	g.P("}")
	g.P("return in, nil")
	g.P("}")
	g.P()
	g.P("// wrapResult puts this schema's ", c.result.Desc.Name(), " into the ", cr.carrierResult.Desc.Name(), " member of a ", cr.result.Desc.FullName(), ".")
	g.P("func wrapResult(r *", c.result.GoIdent, ") (*", outerResult, ", error) {")
	g.P("a, err := ", anypbPackage.Ident("New"), "(r)")
	g.P("if err != nil {")
	g.P("return nil, err")
	g.P("}")
	g.P("return &", outerResult, "{", cr.carrierResult.Oneof.GoName, ": &", cr.carrierResult.GoIdent, "{", cr.carrierResult.GoName, ": a}}, nil")
	g.P("}")
	g.P()
	service := g.QualifiedGoIdent(cr.hoot.Ident("Service"))
	jobStarter := g.QualifiedGoIdent(cr.hoot.Ident("JobStarter"))
	newService := g.QualifiedGoIdent(cr.hoot.Ident("NewService"))
	for _, s := range c.services {
		generateHandler(g, s, ctx)
		quoted := make([]string, len(s.tools))
		for i, t := range s.tools {
			quoted[i] = strconv.Quote(t.opts.GetName())
		}
		if s.jobs {
			g.P("// New", s.goName, "Service returns the Service that dispatches the ", strconv.Quote(s.name), " tools to h, and")
			g.P("// starts the tools of kind JOB with jobs.")
			g.P("func New", s.goName, "Service(h ", s.goName, "Handler, jobs ", jobStarter, ") ", service, " {")
		} else {
			g.P("// New", s.goName, "Service returns the Service that dispatches the ", strconv.Quote(s.name), " tools to h.")
			g.P("func New", s.goName, "Service(h ", s.goName, "Handler) ", service, " {")
		}
		g.P("return ", newService, "(", s.goName, "ServiceName, []string{", strings.Join(quoted, ", "), "}, func(ctx ", ctx, ", p *", outerPayload, ") (*", outerResult, ", error) {")
		g.P("in, err := unwrapPayload(p)")
		g.P("if err != nil {")
		g.P("return nil, err")
		g.P("}")
		g.P("switch x := in.Get", s.tools[0].payloadField.Oneof.GoName, "().(type) {")
		for _, t := range s.tools {
			pf, rf := t.payloadField, t.resultField
			g.P("case *", pf.GoIdent, ":")
			if t.isJob() {
				g.P("req := x.", pf.GoName)
				g.P("return jobs.StartJob(ctx, ", strconv.Quote(t.opts.GetName()), ", p, func(ctx ", ctx, ") (*", outerResult, ", error) {")
				g.P("res, err := h.", t.method, "(ctx, req)")
				g.P("if err != nil {")
				g.P("return nil, err")
				g.P("}")
				g.P("return wrapResult(&", c.result.GoIdent, "{", rf.Oneof.GoName, ": &", rf.GoIdent, "{", rf.GoName, ": res}})")
				g.P("})")
				continue
			}
			g.P("res, err := h.", t.method, "(ctx, x.", pf.GoName, ")")
			g.P("if err != nil {")
			g.P("return nil, err")
			g.P("}")
			g.P("return wrapResult(&", c.result.GoIdent, "{", rf.Oneof.GoName, ": &", rf.GoIdent, "{", rf.GoName, ": res}})")
		}
		g.P("default:")
		g.P("return nil, ", errorf, `("%w: %T", `, notServed, ", x)")
		g.P("}")
		g.P("})")
		g.P("}")
		g.P()
	}
}

// generateServices writes services.hoot.go: the Service type, the service name constants, and
// per service a handler interface and its constructor.
func generateServices(g *protogen.GeneratedFile, c *catalog, pkg protogen.GoPackageName) {
	generatePreamble(g, c, pkg, false)
	if c.carrier != nil {
		generateCarriedServices(g, c)
		return
	}
	ctx := g.QualifiedGoIdent(contextPackage.Ident("Context"))
	payload := g.QualifiedGoIdent(c.payload.GoIdent)
	result := g.QualifiedGoIdent(c.result.GoIdent)

	g.P("// ErrNotServed is returned by a Service's Dispatch for a payload that holds no request of that")
	g.P("// service.")
	g.P("var ErrNotServed = ", errorsPackage.Ident("New"), "(", strconv.Quote(string(pkg)+": payload is not served by this service"), ")")
	g.P()
	g.P("// A Service is the worker side of one service: the names of its tools and a dispatch that calls")
	g.P("// the handler method of the tool a payload holds.")
	g.P("type Service struct {")
	g.P("// Name is the service's name, as the tools' service option gives it.")
	g.P("Name string")
	g.P("// Tools are the names of the service's tools.")
	g.P("Tools []string")
	g.P("dispatch func(", ctx, ", *", payload, ") (*", result, ", error)")
	g.P("}")
	g.P()
	g.P("// Dispatch calls the handler method for the request in p and wraps its answer in a Result.")
	g.P("// A handler's error is returned as it is; a payload of another service gives ErrNotServed.")
	g.P("func (s Service) Dispatch(ctx ", ctx, ", p *", payload, ") (*", result, ", error) {")
	g.P("return s.dispatch(ctx, p)")
	g.P("}")
	g.P()
	if c.carrierPayload != nil {
		g.P("// NewService returns the Service of the tools named tools whose calls dispatch serves: the services")
		g.P("// of a schema carried in this one are made with it.")
		g.P("func NewService(name string, tools []string, dispatch func(", ctx, ", *", payload, ") (*", result, ", error)) Service {")
		g.P("return Service{Name: name, Tools: tools, dispatch: dispatch}")
		g.P("}")
		g.P()
	}
	g.P("const (")
	for _, s := range c.services {
		g.P("// ", s.goName, "ServiceName is the name of the ", strconv.Quote(s.name), " service.")
		g.P(s.goName, "ServiceName = ", strconv.Quote(s.name))
	}
	g.P(")")
	g.P()
	for _, s := range c.services {
		if s.jobs {
			generateJobStarter(g, ctx, payload, result)
			break
		}
	}
	for _, s := range c.services {
		generateHandler(g, s, ctx)
		generateService(g, s, ctx, payload, result)
	}
}

// generateJobStarter writes the JobStarter interface, which the services of tools of kind JOB
// take to run them in the background.
func generateJobStarter(g *protogen.GeneratedFile, ctx, payload, result string) {
	g.P("// A JobStarter runs the work of tools of kind JOB in the background. StartJob starts run as a")
	g.P("// job for the call p of the tool named tool and returns at once the Result that answers the")
	g.P("// call: a JobStarted that names the job. run's Result, or its error, is the job's outcome; its")
	g.P("// context ends when the job is cancelled.")
	g.P("type JobStarter interface {")
	g.P("StartJob(ctx ", ctx, ", tool string, p *", payload, ", run func(", ctx, ") (*", result, ", error)) (*", result, ", error)")
	g.P("}")
	g.P()
}

func generateHandler(g *protogen.GeneratedFile, s *service, ctx string) {
	name := s.goName + "Handler"
	g.P("// ", name, " serves the tools of the ", strconv.Quote(s.name), " service.")
	g.P("type ", name, " interface {")
	for _, t := range s.tools {
		wrapComment(g, "\t", t.method+" serves the tool "+strconv.Quote(t.opts.GetName())+". "+t.opts.GetDescription())
		g.P(t.method, "(", ctx, ", *", t.request.GoIdent, ") (*", t.result.GoIdent, ", error)")
		g.AnnotateSymbol(name+"."+t.method, protogen.Annotation{Location: t.request.Location})
	}
	g.P("}")
	g.P()
}

func generateService(g *protogen.GeneratedFile, s *service, ctx, payload, result string) {
	quoted := make([]string, len(s.tools))
	for i, t := range s.tools {
		quoted[i] = strconv.Quote(t.opts.GetName())
	}
	if s.jobs {
		g.P("// New", s.goName, "Service returns the Service that dispatches the ", strconv.Quote(s.name), " tools to h, and")
		g.P("// starts the tools of kind JOB with jobs.")
		g.P("func New", s.goName, "Service(h ", s.goName, "Handler, jobs JobStarter) Service {")
	} else {
		g.P("// New", s.goName, "Service returns the Service that dispatches the ", strconv.Quote(s.name), " tools to h.")
		g.P("func New", s.goName, "Service(h ", s.goName, "Handler) Service {")
	}
	g.P("return Service{")
	g.P("Name: ", s.goName, "ServiceName,")
	g.P("Tools: []string{", strings.Join(quoted, ", "), "},")
	g.P("dispatch: func(ctx ", ctx, ", p *", payload, ") (*", result, ", error) {")
	g.P("switch x := p.Get", s.tools[0].payloadField.Oneof.GoName, "().(type) {")
	for _, t := range s.tools {
		pf, rf := t.payloadField, t.resultField
		g.P("case *", pf.GoIdent, ":")
		if t.isJob() {
			g.P("req := x.", pf.GoName)
			g.P("return jobs.StartJob(ctx, ", strconv.Quote(t.opts.GetName()), ", p, func(ctx ", ctx, ") (*", result, ", error) {")
			g.P("res, err := h.", t.method, "(ctx, req)")
			g.P("if err != nil {")
			g.P("return nil, err")
			g.P("}")
			g.P("return &", result, "{", rf.Oneof.GoName, ": &", rf.GoIdent, "{", rf.GoName, ": res}}, nil")
			g.P("})")
			continue
		}
		g.P("res, err := h.", t.method, "(ctx, x.", pf.GoName, ")")
		g.P("if err != nil {")
		g.P("return nil, err")
		g.P("}")
		g.P("return &", result, "{", rf.Oneof.GoName, ": &", rf.GoIdent, "{", rf.GoName, ": res}}, nil")
	}
	g.P("default:")
	g.P("return nil, ", fmtPackage.Ident("Errorf"), "(\"%w: %T\", ErrNotServed, x)")
	g.P("}")
	g.P("},")
	g.P("}")
	g.P("}")
	g.P()
}
