package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const callUsage = `Usage: holler call TOOL [key=value ...] [flags]

Calls one tool and prints its result. Values are typed by the tool's input schema:
  count=3 ratio=0.5 dry_run=true mode=all     numbers, booleans, enums (last words will do)
  tags=folk tags=reel                         a list: repeat the key
  abc=@tune.abc   content=@-                  a file's contents (- for standard input)
  rendering:='{"velocity":90}'                JSON as it is
"holler tools TOOL" shows a tool's arguments and an example.

A tool that starts a job is followed until the job ends, with its progress; Ctrl-C cancels
the call (or the job). Exit status: 0 success, 1 the tool failed, 2 the call was refused or
could not be made (or --get names what the result does not hold), 130 cancelled.

Flags:
`

// callFlags are the flags of holler call.
type callFlags struct {
	common
	json   bool
	get    string
	out    string
	noWait bool
}

// parseInterleaved parses flags that may come before, between or after the positional words.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return words, nil
		}
		words = append(words, args[0])
		args = args[1:]
	}
}

func runCall(ctx context.Context, env Env, args []string) error {
	var f callFlags
	fs := flag.NewFlagSet("holler call", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() { fmt.Fprint(env.Stderr, callUsage); fs.PrintDefaults() }
	f.register(fs)
	fs.BoolVar(&f.json, "json", false, "print the structured result as JSON (for scripts)")
	fs.StringVar(&f.get, "get", "", "print only the value at this path of the structured result, names and list indexes joined by dots\n(tree.id, tunes.0.title): a string as it is, anything else as JSON (for scripts)")
	fs.StringVar(&f.out, "out", "", "write the stored objects and images the result names into this directory")
	fs.BoolVar(&f.noWait, "no-wait", false, "for a tool that starts a job, print the job and return at once")
	words, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &ExitError{Code: 2}
	}
	if len(words) == 0 {
		fs.Usage()
		return errors.New("name a tool to call; 'holler tools' lists them")
	}
	name, words := words[0], words[1:]
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}

	c, err := connect(ctx, env, f.common)
	if err != nil {
		return err
	}
	defer c.Close()
	tool, err := c.tool(ctx, name)
	if err != nil {
		return err
	}
	var s schema
	if tool != nil {
		s.root, _ = asMap(tool.InputSchema)
	}
	arguments, err := parseArguments(words, s, env.Stdin)
	if err != nil {
		return usageError(env, name, err)
	}

	bar := c.progress.start(env.Stderr, name)
	params := &mcp.CallToolParams{Name: name, Arguments: arguments}
	params.SetProgressToken("holler-cli")
	res, err := c.session.CallTool(ctx, params)
	bar.finish()
	if err != nil {
		return c.callFailed(ctx, name, err)
	}
	if res.IsError {
		fmt.Fprintln(env.Stderr, resultText(res))
		return &ExitError{Code: 1}
	}
	if job := startedJob(name, res); job != "" && !f.noWait {
		final, err := c.follow(ctx, job, name)
		if err != nil {
			return err
		}
		return c.printJob(final, f)
	}
	return c.printResult(ctx, res, f)
}

// tool returns the listed tool called name, or nil with no error when the gateway does not
// list it (the call then goes out as typed, and the gateway's answer says what it knows).
func (c *client) tool(ctx context.Context, name string) (*mcp.Tool, error) {
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if t.Name == name {
			return t, nil
		}
	}
	return nil, nil
}

// usageError prints what is wrong with the words and the tool's usage.
func usageError(env Env, name string, err error) error {
	fmt.Fprintln(env.Stderr, "holler call:", err)
	if t := lookup(name); t != nil {
		fmt.Fprintf(env.Stderr, "usage:   %s\nexample: %s\n", t.Usage, exampleWords(t.Example))
	}
	return &ExitError{Code: 2}
}

// callFailed prints a refused call: the gateway's message and its guidance.
func (c *client) callFailed(ctx context.Context, name string, err error) error {
	if ctx.Err() != nil {
		fmt.Fprintf(c.env.Stderr, "%s: cancelled\n", name)
		return &ExitError{Code: 130}
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		fmt.Fprintf(c.env.Stderr, "%s: %s\n", name, rpc.Message)
		if len(rpc.Data) > 0 {
			fmt.Fprintln(c.env.Stderr, indentJSON(rpc.Data))
		}
		return &ExitError{Code: 2}
	}
	fmt.Fprintf(c.env.Stderr, "%s: %v\n", name, err)
	return &ExitError{Code: 2}
}

// startedJob returns the id of the job a call started, or "".
func startedJob(name string, res *mcp.CallToolResult) string {
	t := lookup(name)
	if t == nil || t.Kind != hootv1.Kind_KIND_JOB {
		return ""
	}
	m, _ := asMap(res.StructuredContent)
	id, _ := m["job_id"].(string)
	return id
}

// follow waits for a job, drawing its progress, and returns the job as job_status last showed
// it. Ctrl-C cancels the job.
func (c *client) follow(ctx context.Context, id, name string) (map[string]any, error) {
	bar := c.progress.start(c.env.Stderr, name+" "+id)
	defer bar.finish()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		job, err := c.job(context.WithoutCancel(ctx), hootv1hoot.JobStatusToolName, id)
		if err != nil {
			return nil, err
		}
		switch job["status"] {
		case "JOB_STATUS_SUCCEEDED", "JOB_STATUS_FAILED", "JOB_STATUS_CANCELLED":
			return job, nil
		}
		done, _ := job["progress"].(float64)
		total, _ := job["total"].(float64)
		msg, _ := job["message"].(string)
		bar.set(done, total, msg)
		select {
		case <-ctx.Done():
			bar.finish()
			if _, err := c.job(context.WithoutCancel(ctx), hootv1hoot.JobCancelToolName, id); err != nil {
				fmt.Fprintf(c.env.Stderr, "could not cancel %s: %v\n", id, err)
			} else {
				fmt.Fprintf(c.env.Stderr, "cancelled %s\n", id)
			}
			return nil, &ExitError{Code: 130}
		case <-tick.C:
		}
	}
}

// job calls a job tool (job_status, job_cancel) for id and returns the job it shows.
func (c *client) job(ctx context.Context, tool, id string) (map[string]any, error) {
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"id": id}})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		return nil, fmt.Errorf("%s: %s", tool, resultText(res))
	}
	m, _ := asMap(res.StructuredContent)
	job, _ := m["job"].(map[string]any)
	if job == nil {
		return nil, fmt.Errorf("%s answered without a job", tool)
	}
	return job, nil
}

// printJob prints a finished job's result, or its failure.
func (c *client) printJob(job map[string]any, f callFlags) error {
	result, _ := job["result"].(map[string]any)
	status, _ := job["status"].(string)
	if status != "JOB_STATUS_SUCCEEDED" {
		fmt.Fprintf(c.env.Stderr, "job %v %s: %v\n", job["id"], strings.ToLower(strings.TrimPrefix(status, "JOB_STATUS_")), job["message"])
		if e, ok := result["error"]; ok {
			fmt.Fprintln(c.env.Stderr, indentJSON(mustJSON(e)))
		}
		if status == "JOB_STATUS_CANCELLED" {
			return &ExitError{Code: 130}
		}
		return &ExitError{Code: 1}
	}
	// The result holds the tool's result under the tool's name.
	var out any = result
	if len(result) == 1 {
		for _, v := range result {
			out = v
		}
	}
	if f.get != "" {
		return c.printPath(out, f.get)
	}
	fmt.Fprintln(c.env.Stdout, indentJSON(mustJSON(out)))
	if f.out != "" {
		c.saveReferenced(out, f.out)
	}
	return nil
}

// printResult prints a tool's result: its text (JSON indented) and the links it carries, or
// with --json the structured result; with --out it saves what the result links to.
func (c *client) printResult(ctx context.Context, res *mcp.CallToolResult, f callFlags) error {
	if f.get != "" {
		return c.printPath(res.StructuredContent, f.get)
	}
	if f.json {
		v := res.StructuredContent
		if v == nil {
			v = res
		}
		fmt.Fprintln(c.env.Stdout, indentJSON(mustJSON(v)))
	}
	// A result that names an artifact links its content twice: as the artifact and as the
	// stored object. Save the artifacts, and stored objects only when no artifact is named.
	artifacts := false
	for _, block := range res.Content {
		if l, ok := block.(*mcp.ResourceLink); ok && strings.Contains(l.URI, "/artifacts/") {
			artifacts = true
		}
	}
	for i, block := range res.Content {
		switch b := block.(type) {
		case *mcp.TextContent:
			if !f.json {
				fmt.Fprintln(c.env.Stdout, indentJSON([]byte(b.Text)))
			}
		case *mcp.ResourceLink:
			if !f.json {
				fmt.Fprintf(c.env.Stdout, "-> %s %s\n", b.Name, b.URI)
			}
			if f.out != "" && (!artifacts || strings.Contains(b.URI, "/artifacts/")) {
				c.download(ctx, b.URI, b.Name, b.MIMEType, f.out)
			}
		case *mcp.ImageContent:
			c.saveBlock(f, fmt.Sprintf("image-%d", i), b.MIMEType, b.Data)
		case *mcp.AudioContent:
			c.saveBlock(f, fmt.Sprintf("audio-%d", i), b.MIMEType, b.Data)
		}
	}
	return nil
}

// saveBlock writes an image or audio block into --out, or says it is there.
func (c *client) saveBlock(f callFlags, name, mimeType string, data []byte) {
	if f.out == "" {
		if !f.json {
			fmt.Fprintf(c.env.Stdout, "[%s, %d bytes; --out DIR saves it]\n", mimeType, len(data))
		}
		return
	}
	c.write(filepath.Join(f.out, name+extension(mimeType)), data)
}

// saveReferenced downloads the content of the artifacts and objects a job's result names.
func (c *client) saveReferenced(v any, dir string) {
	base := strings.TrimSuffix(c.url, "/mcp")
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && (k == "id" || strings.HasSuffix(k, "artifact_id")) && strings.HasPrefix(s, "art_") {
					c.download(context.Background(), base+"/artifacts/"+s+"/content", s, "", dir)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

// download fetches uri into dir, named after name and its media type.
func (c *client) download(ctx context.Context, uri, name, mimeType, dir string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		fmt.Fprintf(c.env.Stderr, "cannot fetch %s: %v\n", uri, err)
		return
	}
	resp, err := c.http.Do(req)
	if err != nil {
		fmt.Fprintf(c.env.Stderr, "cannot fetch %s: %v\n", uri, err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(c.env.Stderr, "cannot fetch %s: %s\n", uri, resp.Status)
		return
	}
	if mimeType == "" {
		mimeType = resp.Header.Get("Content-Type")
	}
	path := filepath.Join(dir, safeName(name)+extension(mimeType))
	out, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(c.env.Stderr, "cannot save %s: %v\n", uri, err)
		return
	}
	n, err := io.Copy(out, resp.Body)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(c.env.Stderr, "cannot save %s: %v\n", uri, err)
		return
	}
	fmt.Fprintf(c.env.Stderr, "saved %s (%d bytes)\n", path, n)
}

func (c *client) write(path string, data []byte) {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		fmt.Fprintf(c.env.Stderr, "cannot save %s: %v\n", path, err)
		return
	}
	fmt.Fprintf(c.env.Stderr, "saved %s (%d bytes)\n", path, len(data))
}

// safeName keeps a file name to letters, digits, dot, dash and underscore.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
	if s == "" || strings.Trim(s, ".") == "" {
		return "content"
	}
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}

// extension returns a file extension for a media type.
func extension(mimeType string) string {
	t, _, _ := mime.ParseMediaType(mimeType)
	switch t {
	case "audio/midi", "audio/x-midi":
		return ".mid"
	case "text/vnd.abc":
		return ".abc"
	case "text/plain":
		return ".txt"
	case "audio/wav", "audio/x-wav", "audio/wave":
		return ".wav"
	case "image/png":
		return ".png"
	case "image/svg+xml":
		return ".svg"
	case "application/json":
		return ".json"
	}
	if exts, _ := mime.ExtensionsByType(t); len(exts) > 0 {
		return exts[0]
	}
	return ""
}

// resultText is the text of a result's text blocks.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, b := range res.Content {
		if t, ok := b.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprint(v))
	}
	return b
}

// indentJSON indents JSON text for a person, and returns other text as it is.
func indentJSON(b []byte) string {
	var out bytes.Buffer
	if json.Valid(b) && json.Indent(&out, b, "", "  ") == nil {
		return out.String()
	}
	return string(b)
}

// exampleWords writes a tool's example arguments (JSON) as key=value words.
func exampleWords(example string) string {
	var args map[string]json.RawMessage
	if json.Unmarshal([]byte(example), &args) != nil {
		return example
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var words []string
	for _, k := range keys {
		raw := args[k]
		var s string
		switch {
		case json.Unmarshal(raw, &s) == nil:
			words = append(words, k+"="+shellQuote(s))
		case len(raw) > 0 && (raw[0] == '{'):
			words = append(words, k+":="+shellQuote(string(raw)))
		case len(raw) > 0 && raw[0] == '[':
			var list []any
			_ = json.Unmarshal(raw, &list)
			for _, e := range list {
				if str, ok := e.(string); ok {
					words = append(words, k+"="+shellQuote(str))
				} else {
					words = append(words, k+"="+string(mustJSON(e)))
				}
			}
		default:
			words = append(words, k+"="+string(raw))
		}
	}
	return strings.Join(words, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/:@,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// lookup returns the generated table's tool called name, or nil: the table this binary was
// built with, which knows usage lines and examples.
func lookup(name string) *hootv1hoot.Tool {
	for i := range hootv1hoot.Tools {
		if hootv1hoot.Tools[i].Name == name {
			return &hootv1hoot.Tools[i]
		}
	}
	return nil
}
