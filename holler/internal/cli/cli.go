// Package cli is holler's command line for people: it calls tools, shows their usage and
// watches jobs through a running gateway's MCP endpoint, as any MCP client does, or through a
// gateway and worker of its own (--local). It is a client of the gateway, not part of it: it
// learns the tools from tools/list, and takes each tool's usage line and example from the
// generated tool table when that table knows the tool.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/term"
)

// DefaultURL is the MCP endpoint of a gateway started with its defaults (make run).
const DefaultURL = "http://127.0.0.1:8080/mcp"

// An ExitError ends the command with a status and no further message: what went wrong has
// been printed already.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Env is what a command reads and writes: standard streams, and how to start a gateway of its
// own for --local.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Local starts a gateway and a worker for --local and returns the MCP endpoint and a
	// function that stops both.
	Local func(ctx context.Context, logs io.Writer) (url string, stop func(), err error)
	// Version names this client to the gateway.
	Version string
}

// common are the flags every command takes.
type common struct {
	url     string
	token   string
	local   bool
	timeout time.Duration
	yes     bool
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "url", envOr("HOLLER_URL", DefaultURL), "the gateway's MCP endpoint (env HOLLER_URL)")
	fs.StringVar(&c.token, "token", "", "a bearer token for a gateway with access control (env HOLLER_TOKEN; holler token add makes one)")
	fs.BoolVar(&c.local, "local", false, "start a gateway and a worker of its own instead of using --url")
	fs.DurationVar(&c.timeout, "connect-timeout", 10*time.Second, "how long to wait for the gateway to answer")
	fs.BoolVar(&c.yes, "yes", false, "confirm, without asking, every call the gateway asks a person to confirm")
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// a client is a connected MCP session and what the command needs beside it.
type client struct {
	env      Env
	session  *mcp.ClientSession
	url      string
	http     *http.Client
	progress *progressSink
	stop     func()
}

func (c *client) Close() {
	c.session.Close()
	if c.stop != nil {
		c.stop()
	}
}

// connect opens a session with the gateway that flags name.
func connect(ctx context.Context, env Env, c common) (*client, error) {
	url := c.url
	var stop func()
	if c.local {
		if env.Local == nil {
			return nil, errors.New("--local is not available in this build")
		}
		u, s, err := env.Local(ctx, env.Stderr)
		if err != nil {
			return nil, fmt.Errorf("start a local gateway: %w", err)
		}
		url, stop = u, s
	}
	sink := &progressSink{}
	token := c.token
	if token == "" {
		token = os.Getenv("HOLLER_TOKEN")
	}
	var transport http.RoundTripper = http.DefaultTransport
	if token != "" && !c.local {
		transport = bearer{token: token, next: transport}
	}
	cl := &client{env: env, url: url, http: &http.Client{Timeout: 5 * time.Minute, Transport: transport}, progress: sink, stop: stop}
	opts := &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			sink.report(req.Params)
		},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return confirmOnTerminal(ctx, env, c.yes, req.Params)
		},
	}
	mc := mcp.NewClient(&mcp.Implementation{Name: "holler-cli", Version: env.Version}, opts)
	cctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	s, err := mc.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: cl.http, MaxRetries: -1}, nil)
	if err != nil {
		if stop != nil {
			stop()
		}
		switch msg := err.Error(); {
		case strings.Contains(msg, "Unauthorized"):
			return nil, fmt.Errorf("the gateway at %s wants a bearer token: %w\n(pass --token or set HOLLER_TOKEN; its operator makes one with 'holler token add NAME --tier standard --file TOKENS')", url, err)
		case strings.Contains(msg, "Forbidden"):
			return nil, fmt.Errorf("the gateway at %s refused this client: %w\n(a token of a higher tier, or an allowed host or origin, may be needed)", url, err)
		}
		return nil, fmt.Errorf("cannot reach the gateway at %s: %w\n(start one with 'make run' or 'holler serve', name another with --url, or use --local)", url, err)
	}
	cl.session = s
	return cl, nil
}

// bearer adds the caller's token to every request: MCP calls and content downloads alike.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// isTerminal reports whether w is a terminal, where progress is drawn as a bar and questions
// can be asked.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// confirmOnTerminal answers the gateway's question (a person's confirmation of a risky call):
// yes when --yes was given, the person's answer on a terminal, and a decline otherwise.
func confirmOnTerminal(_ context.Context, env Env, yes bool, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	accept := func() *mcp.ElicitResult {
		content := map[string]any{}
		// Fill the form's boolean fields with true: the confirmation form is one checkbox.
		if props, ok := schemaProperties(p.RequestedSchema); ok {
			for name, v := range props {
				if m, ok := v.(map[string]any); ok && m["type"] == "boolean" {
					content[name] = true
				}
			}
		}
		return &mcp.ElicitResult{Action: "accept", Content: content}
	}
	if yes {
		fmt.Fprintf(env.Stderr, "%s\n(confirmed by --yes)\n", p.Message)
		return accept(), nil
	}
	if !isTerminal(env.Stdin) || !isTerminal(env.Stderr) {
		fmt.Fprintf(env.Stderr, "%s\nDeclined: nobody at a terminal to confirm it; run again with --yes to confirm.\n", p.Message)
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	fmt.Fprintf(env.Stderr, "%s\nConfirm? [y/N] ", p.Message)
	var line string
	_, _ = fmt.Fscanln(env.Stdin, &line)
	if a := strings.ToLower(strings.TrimSpace(line)); a == "y" || a == "yes" {
		return accept(), nil
	}
	return &mcp.ElicitResult{Action: "decline"}, nil
}

// schemaProperties returns the properties of an object schema, whatever Go type holds it.
func schemaProperties(schema any) (map[string]any, bool) {
	m, ok := asMap(schema)
	if !ok {
		return nil, false
	}
	props, ok := m["properties"].(map[string]any)
	return props, ok
}

// Run runs the command line's command (call, tools or jobs) with its arguments.
func Run(ctx context.Context, env Env, cmd string, args []string) error {
	switch cmd {
	case "call":
		return runCall(ctx, env, args)
	case "tools":
		return runTools(ctx, env, args)
	case "jobs":
		return runJobs(ctx, env, args)
	}
	return fmt.Errorf("unknown command %q", cmd)
}
