package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const toolsUsage = `Usage: holler tools [TOOL] [flags]

Without TOOL, lists the tools the gateway offers now (its live workers decide which). With
TOOL, shows what it does, its arguments and an example call.

Flags:
`

func runTools(ctx context.Context, env Env, args []string) error {
	var f common
	fs := flag.NewFlagSet("holler tools", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() { fmt.Fprint(env.Stderr, toolsUsage); fs.PrintDefaults() }
	f.register(fs)
	words, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &ExitError{Code: 2}
	}
	if len(words) > 1 {
		return fmt.Errorf("name one tool at most, not %q", words)
	}
	c, err := connect(ctx, env, f)
	if err != nil {
		return err
	}
	defer c.Close()
	var tools []*mcp.Tool
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, t)
	}
	if len(words) == 0 {
		if len(tools) == 0 {
			fmt.Fprintln(env.Stderr, "The gateway offers no tools: no worker is live. Start one (hootenanny, or holler serve --worker-command hootenanny).")
			return &ExitError{Code: 1}
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		for _, t := range tools {
			fmt.Fprintf(tw, "%s\t%s\n", t.Name, firstLine(t.Description))
		}
		return tw.Flush()
	}
	name := words[0]
	i := slices.IndexFunc(tools, func(t *mcp.Tool) bool { return t.Name == name })
	if i < 0 {
		fmt.Fprintf(env.Stderr, "The gateway offers no tool %q.%s\n", name, suggest(name, tools))
		return &ExitError{Code: 1}
	}
	describeTool(c, tools[i])
	return nil
}

// describeTool prints a tool's description, arguments and example.
func describeTool(c *client, t *mcp.Tool) {
	w := c.env.Stdout
	title := t.Title
	if title == "" && t.Annotations != nil {
		title = t.Annotations.Title
	}
	fmt.Fprintf(w, "%s — %s\n\n%s\n\n", t.Name, title, strings.TrimSpace(t.Description))
	s := schema{}
	s.root, _ = asMap(t.InputSchema)
	props, _ := s.root["properties"].(map[string]any)
	required, _ := s.root["required"].([]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) > 0 {
		fmt.Fprintln(w, "Arguments:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, k := range names {
			p, _ := s.property(k)
			kind, _ := p["type"].(string)
			if p["type"] == "array" {
				items, _ := p["items"].(map[string]any)
				it, _ := s.resolve(items)["type"].(string)
				kind = it + " (repeat the key)"
			}
			if p["contentEncoding"] == "base64" {
				kind = "bytes (key=@file)"
			}
			if kind == "" || kind == "object" {
				kind = "object (key:=JSON)"
			}
			need := ""
			if slices.Contains(required, any(k)) {
				need = "required"
			}
			desc, _ := p["description"].(string)
			if d, ok := props[k].(map[string]any)["description"].(string); ok {
				desc = d
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", k, kind, need, firstLine(desc))
		}
		_ = tw.Flush()
		fmt.Fprintln(w)
	}
	if tt := lookup(t.Name); tt != nil {
		fmt.Fprintf(w, "Usage:   %s\nExample: holler call %s %s\n", tt.Usage, t.Name, exampleWords(tt.Example))
	}
}

// suggest names the listed tools closest to name.
func suggest(name string, tools []*mcp.Tool) string {
	var near []string
	for _, t := range tools {
		if strings.Contains(t.Name, name) || strings.Contains(name, t.Name) || levenshtein(name, t.Name) <= 2 {
			near = append(near, t.Name)
		}
	}
	if len(near) == 0 {
		return " 'holler tools' lists them."
	}
	return " Did you mean: " + strings.Join(near, ", ") + "?"
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

const jobsUsage = `Usage: holler jobs [flags]

Lists recent jobs, newest first, with their progress. --watch redraws the list every second
until Ctrl-C (on a terminal), or prints each change as a line (otherwise).

Flags:
`

func runJobs(ctx context.Context, env Env, args []string) error {
	var f common
	var watch bool
	var limit int
	fs := flag.NewFlagSet("holler jobs", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() { fmt.Fprint(env.Stderr, jobsUsage); fs.PrintDefaults() }
	f.register(fs)
	fs.BoolVar(&watch, "watch", false, "keep showing the jobs as they change")
	fs.IntVar(&limit, "limit", 20, "how many jobs to show")
	words, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &ExitError{Code: 2}
	}
	if len(words) > 0 {
		return fmt.Errorf("unexpected argument %q; see holler jobs --help", words[0])
	}
	if limit < 1 || limit > 100 {
		return errors.New("--limit takes 1 to 100")
	}
	c, err := connect(ctx, env, f)
	if err != nil {
		return err
	}
	defer c.Close()
	terminal := isTerminal(env.Stdout)
	seen := map[string]string{} // job id -> the line last printed, for plain --watch
	for {
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: hootv1hoot.JobListToolName, Arguments: map[string]any{"limit": limit}})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return c.callFailed(ctx, hootv1hoot.JobListToolName, err)
		}
		if res.IsError {
			fmt.Fprintln(env.Stderr, resultText(res))
			return &ExitError{Code: 1}
		}
		m, _ := asMap(res.StructuredContent)
		jobs, _ := m["jobs"].([]any)
		lines := make([]string, 0, len(jobs))
		ids := make([]string, 0, len(jobs))
		for _, j := range jobs {
			job, _ := j.(map[string]any)
			id, _ := job["id"].(string)
			ids = append(ids, id)
			lines = append(lines, jobLine(job))
		}
		switch {
		case !watch || terminal:
			if watch {
				fmt.Fprint(env.Stdout, "\x1b[H\x1b[2J") // home and clear, to redraw in place
			}
			if len(lines) == 0 {
				fmt.Fprintln(env.Stdout, "no jobs")
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			for _, l := range lines {
				fmt.Fprintln(tw, l)
			}
			_ = tw.Flush()
		default:
			for i := len(lines) - 1; i >= 0; i-- { // oldest first, as a log reads
				if seen[ids[i]] != lines[i] {
					seen[ids[i]] = lines[i]
					fmt.Fprintln(env.Stdout, strings.ReplaceAll(lines[i], "\t", "  "))
				}
			}
		}
		if !watch {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
}

// jobLine is one job as a row: id, tool, status, progress, age.
func jobLine(job map[string]any) string {
	status, _ := job["status"].(string)
	status = strings.ToLower(strings.TrimPrefix(status, "JOB_STATUS_"))
	done, _ := job["progress"].(float64)
	total, _ := job["total"].(float64)
	progress := ""
	if total > 0 {
		progress = fmt.Sprintf("%3.0f%%", 100*done/total)
	}
	age := ""
	if s, ok := job["created_at"].(string); ok {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			age = time.Since(t).Round(time.Second).String() + " ago"
		}
	}
	msg, _ := job["message"].(string)
	return fmt.Sprintf("%v\t%v\t%s\t%s\t%s\t%s", job["id"], job["tool"], status, progress, age, firstLine(msg))
}
