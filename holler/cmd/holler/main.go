// Command holler is the MCP gateway of Hootenanny: it serves the Model Context Protocol over
// Streamable HTTP or stdio and sends every tool call, as a typed protobuf payload over ZeroMQ,
// to a hootenanny worker.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/cli"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/hootenanny/hoot/holler/internal/httpapi"
	"github.com/hootenanny/hoot/holler/internal/mcp"
	"github.com/hootenanny/hoot/holler/internal/netlimit"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hooteproto/curvekey"
	"github.com/hootenanny/hoot/hooteproto/envflag"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "devel"

const usage = `holler: the MCP gateway of Hootenanny.

Usage:
  holler serve [flags]   serve MCP over Streamable HTTP at http://ADDR/mcp and over WebSocket at ws://ADDR/ws
  holler mcp [flags]     serve MCP over stdin/stdout (for desktop clients); logs go to stderr
  holler call TOOL [key=value ...]
                         call a tool of a running gateway and print its result
  holler tools [TOOL]    list the tools, or show one's arguments and an example
  holler jobs [--watch]  list recent jobs and their progress
  holler version         print the version
  holler keygen --out DIR/NAME
                         make a CURVE key pair, for workers on other machines
  holler token add NAME --tier TIER --file PATH
                         make a bearer token for the HTTP endpoint, print it once
                         and append its hash to the token file (see --tokens)

Tool calls go to hootenanny workers that connect to the worker endpoint. Start
one with --worker-command (holler then runs it and keeps it running), or run
"hootenanny" yourself, on this machine or another.

Example:
  holler serve --worker-command "hootenanny --data /tmp/hoot"

Workers on other machines: bind the worker endpoint to a reachable address and
give the gateway and each worker a key pair (holler keygen, hootenanny keygen),
then --curve-secret and --curve-allow here, --curve-secret and --curve-server on
each worker. A worker whose key is not allowed is refused.

An HTTP endpoint that other machines can reach needs access control: bearer
tokens (holler token add, then --tokens FILE) or OAuth access tokens
(--oauth-issuer, --oauth-audience, --oauth-scope-tier), or --insecure-http on a
network you trust. Each token's tier caps the tools its caller may use.

Flags (each can also be set in the environment: --http-addr as HOLLER_HTTP_ADDR):
`

func main() {
	if err := run(os.Args[1:]); err != nil {
		if exit, ok := err.(*cli.ExitError); ok {
			os.Exit(exit.Code)
		}
		fmt.Fprintln(os.Stderr, "holler:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		newFlags(io.Discard).fs.PrintDefaults()
		return errors.New("name a command: serve, mcp or version")
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "version", "--version", "-version":
		fmt.Println("holler", version)
		return nil
	case "help", "--help", "-help", "-h":
		f := newFlags(os.Stdout)
		fmt.Print(usage)
		f.fs.PrintDefaults()
		return nil
	case "token":
		return tokenCommand(args, os.Stdout)
	case "keygen":
		return keygen(args)
	case "call", "tools", "jobs":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return cli.Run(ctx, cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Local: startLocal, Version: version}, cmd, args)
	case "serve", "mcp":
	default:
		return fmt.Errorf("unknown command %q; the commands are serve, mcp, call, tools, jobs, keygen, token and version (see holler help)", cmd)
	}

	f := newFlags(os.Stderr)
	if err := envflag.Parse(f.fs, "HOLLER_", args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; see holler help", f.fs.Arg(0))
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	if cfg.NoConfirm {
		cfg.Logger.Warn("--confirm never: admin tools and destructive tools marked confirm run without asking anyone (operator tools are confirmed all the same)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tp, flushTraces, err := startTraces(ctx, cfg.Logger)
	if err != nil {
		return err
	}
	defer flushTraces()
	cfg.TracerProvider = tp

	if cmd == "serve" {
		// Bind HTTP first: if the address is taken, fail before starting anything else.
		l, err := net.Listen("tcp", f.httpAddr)
		if err != nil {
			return fmt.Errorf("cannot listen on %s: %w (is another holler running? choose another with --http-addr)", f.httpAddr, err)
		}
		if err := gateway.CheckHTTPListener(l.Addr(), cfg); err != nil {
			l.Close()
			return err
		}
		if cfg.InsecureHTTP && cfg.Access == nil {
			cfg.Logger.Warn("--insecure-http: the HTTP endpoint takes requests without a token; anyone who reaches it can call every tool up to --max-tier")
		}
		if o := cfg.Access.OAuth(); o != nil {
			// A wrong issuer shows at once; holler serves anyway and fetches again on use.
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			if err := o.Prefetch(pctx); err != nil {
				cfg.Logger.Warn("the OAuth issuer's keys cannot be fetched now; access tokens are refused until they can", "err", err)
			}
			cancel()
		}
		g, err := gateway.Start(cfg)
		if err != nil {
			l.Close()
			return err
		}
		defer g.Close()
		waitForOwnWorker(ctx, g, cfg)
		cfg.Logger.Info("holler serving MCP", "url", "http://"+l.Addr().String()+"/mcp", "workers", g.WorkerEndpoint(), "version", version)
		return g.ServeHTTP(ctx, l)
	}
	// Over stdio there is no HTTP to serve stored bytes on, so the gateway needs no store.
	cfg.DataDir = ""
	g, err := gateway.Start(cfg)
	if err != nil {
		return err
	}
	defer g.Close()
	waitForOwnWorker(ctx, g, cfg)
	cfg.Logger.Info("holler serving MCP on stdio", "workers", g.WorkerEndpoint(), "version", version)
	return g.ServeStdio(ctx, os.Stdin, os.Stdout)
}

type flags struct {
	fs             *flag.FlagSet
	httpAddr       string
	workerEndpoint string
	workerCommand  string
	maxTier        string
	confirm        string
	stateKey       string
	minimalErrors  bool
	conformance    bool
	callTimeout    time.Duration
	heartbeat      time.Duration
	logLevel       string
	allowHosts     string
	allowOrigins   string
	dataDir        string
	casURL         string
	maxUpload      int64
	maxUploads     int
	clientUploads  int
	metricsToken   string

	maxConns           int
	maxConnsPerClient  int
	idleTimeout        time.Duration
	writeTimeout       time.Duration
	minUploadRate      int64
	maxSessions        int
	wsMaxInFlight      int
	sessionBuffer      int
	sessionBufferTotal int64

	curveSecret     string
	curveAllow      string
	insecureWorkers bool

	tokens         string
	oauthIssuer    string
	oauthAudience  string
	oauthScopeTier *envflag.List
	insecureHTTP   bool
}

func newFlags(out io.Writer) *flags {
	f := &flags{fs: flag.NewFlagSet("holler", flag.ContinueOnError), oauthScopeTier: envflag.NewList()}
	f.fs.SetOutput(out)
	f.fs.StringVar(&f.httpAddr, "http-addr", gateway.DefaultHTTPAddr, "`address` for HTTP (serve only)")
	f.fs.StringVar(&f.workerEndpoint, "worker-endpoint", gateway.DefaultWorkerEndpoint, "ZeroMQ `endpoint` that workers connect to")
	f.fs.StringVar(&f.workerCommand, "worker-command", "", "a worker `command` to start and keep running, such as \"hootenanny\"")
	f.fs.StringVar(&f.maxTier, "max-tier", "standard", "highest tool `tier` to serve: basic, standard, admin or operator")
	f.fs.StringVar(&f.confirm, "confirm", "ask", "`ask` a person (through the MCP client) before each call of an admin tool or a destructive tool marked confirm, and refuse it when the client cannot ask; "+
		"never runs them without asking anyone. never is dangerous: a model can then destroy data on its own; use it only for trusted clients")
	f.fs.StringVar(&f.stateKey, "state-key", "", "a `file` holding the secret (at least 16 bytes, such as the output of openssl rand -hex 32) that signs the requestState of "+
		"the questions of protocol 2026-07-28 (confirmations, and what workers ask the client); give every gateway that serves the same clients the same file, so that a client's retry may reach any of them "+
		"(default: a random key per process, so a retry must reach the gateway that asked)")
	f.fs.BoolVar(&f.minimalErrors, "minimal-errors", false, "answer errors with code and message only, without guidance")
	f.fs.BoolVar(&f.conformance, "conformance", false, "serve the MCP conformance suite's test fixtures too, which a worker started with --conformance serves; for testing only")
	f.fs.DurationVar(&f.callTimeout, "call-timeout", 60*time.Second, "longest a tool call may take")
	f.fs.DurationVar(&f.heartbeat, "heartbeat", 2500*time.Millisecond, "how often to check that workers are alive")
	f.fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	f.fs.StringVar(&f.allowHosts, "allow-hosts", "", "comma-separated host `names` HTTP clients may use besides loopback ones, such as holler.example.com; * for any")
	f.fs.StringVar(&f.allowOrigins, "allow-origins", "", "comma-separated browser `origins` allowed besides loopback ones, such as https://app.example.com; * for any")
	f.fs.StringVar(&f.dataDir, "data", defaultDataDir(), "the workers' data `directory` on this machine, for the content routes (/cas, /artifacts/{id}/content); empty turns them off")
	f.fs.StringVar(&f.casURL, "cas", "", "the workers' content `store`, for the content routes and a worker started with --worker-command: "+cas.URLForms+" (default: the --data directory's cas/)")
	f.fs.Int64Var(&f.maxUpload, "max-upload", gateway.DefaultMaxUpload, "largest body PUT /cas takes, in `bytes`")
	def := netlimit.DefaultLimits(netlimit.OpenFileLimit())
	f.fs.IntVar(&f.maxConns, "max-conns", def.MaxConns, "most HTTP `connections` open at once, from all clients; when it is near, idle keep-alive connections are closed first, "+
		"and beyond it new connections are answered 503 with Retry-After; the default is three quarters of this process's limit of open files (ulimit -n)")
	f.fs.IntVar(&f.maxConnsPerClient, "max-conns-per-client", 0, "most HTTP `connections` open at once from one client address (an IPv4 address or an IPv6 /64), "+
		"so that one client cannot take them all; 0 means a sixteenth of --max-conns (at least 16); -1 turns the cap off, as a gateway behind a reverse proxy needs, where every connection comes from the proxy")
	f.fs.DurationVar(&f.idleTimeout, "idle-timeout", gateway.DefaultIdleTimeout, "close a keep-alive HTTP connection that waits this long for its next request")
	f.fs.DurationVar(&f.writeTimeout, "write-timeout", gateway.DefaultWriteTimeout, "cut off a client that leaves one write of a response or an event stream blocked this long (a client that stopped reading); "+
		"event streams themselves live as long as their client reads them")
	f.fs.Int64Var(&f.minUploadRate, "min-upload-rate", gateway.DefaultMinUploadRate, "slowest a request body may arrive, in `bytes` a second over 10-second windows, after 10 seconds of grace; "+
		"a slower one is answered 408, so that a trickled body cannot hold a connection for ever; 0 turns this off")
	f.fs.IntVar(&f.maxSessions, "max-sessions", mcp.DefaultMaxSessions, "most MCP `sessions` (protocol 2025-11-25 and older, named by Mcp-Session-Id) alive at once; "+
		"a new one beyond it ends the least recently used, whose client is answered 404 and initializes again; with --tokens or OAuth one caller may hold a quarter of them, "+
		"past which its own least recently used session makes room")
	f.fs.IntVar(&f.wsMaxInFlight, "ws-max-in-flight", mcp.DefaultWebSocketMaxInFlight, "most `requests` of one WebSocket (/ws) handled at once; one more is answered with an error until one ends")
	f.fs.IntVar(&f.sessionBuffer, "session-buffer", mcp.DefaultEventBufferBytes, "`bytes` of recent events each MCP session keeps, so that a client that loses an event stream can resume it; the oldest go first")
	f.fs.Int64Var(&f.sessionBufferTotal, "session-buffer-total", mcp.DefaultEventBufferTotal, "`bytes` of events all MCP sessions keep together; past it the oldest events of any session go first, "+
		"and their clients can no longer resume from before them")
	f.fs.IntVar(&f.maxUploads, "max-uploads", httpapi.DefaultMaxUploads, "most PUT /cas uploads running at once, from all clients; one more is answered 503 with Retry-After")
	f.fs.IntVar(&f.clientUploads, "max-uploads-per-client", httpapi.DefaultMaxUploadsPerClient, "most PUT /cas uploads one client (a token, or an address without tokens) runs at once; one more is answered 429 with Retry-After")
	f.fs.StringVar(&f.metricsToken, "metrics-token-file", "", "a `file` holding the bearer token (at least 16 characters, such as the output of openssl rand -hex 32) that /metrics takes, and the only one; "+
		"without it /metrics is served to this machine's peers only (and needs an access token when --tokens or OAuth is on)")
	f.fs.StringVar(&f.curveSecret, "curve-secret", "", "the gateway's secret key `file` (NAME.key_secret from holler keygen); turns on CURVE for workers")
	f.fs.StringVar(&f.curveAllow, "curve-allow", "", "the public keys of the workers to let in: a NAME.key `file` or a directory of them")
	f.fs.BoolVar(&f.insecureWorkers, "insecure-workers", false, "serve a worker endpoint that other machines can reach without CURVE keys")
	f.fs.StringVar(&f.tokens, "tokens", "", "a token `file` (made with holler token add): HTTP requests need one of its tokens as Authorization: Bearer TOKEN, "+
		"and each token's tier caps the tools its caller may use; the file must have mode 0600 and is read again when it changes")
	f.fs.StringVar(&f.oauthIssuer, "oauth-issuer", "", "take OAuth access tokens (JWTs) of the authorization server with this issuer `URL`; its keys are fetched from its metadata")
	f.fs.StringVar(&f.oauthAudience, "oauth-audience", "", "this endpoint's canonical `URL`, such as https://holler.example.com/mcp: access tokens must be issued for it (aud), the protected resource metadata names it, and its host is allowed as with --allow-hosts")
	f.fs.Var(f.oauthScopeTier, "oauth-scope-tier", "a `scope=tier` pair: an access token with that scope may use tools up to that tier (basic, standard, admin or operator); repeat the flag, or separate pairs with commas")
	f.fs.BoolVar(&f.insecureHTTP, "insecure-http", false, "serve an HTTP endpoint that other machines can reach without tokens")
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), usage)
		f.fs.PrintDefaults()
	}
	return f
}

func (f *flags) config() (gateway.Config, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return gateway.Config{}, fmt.Errorf("--log-level %q: want debug, info, warn or error", f.logLevel)
	}
	tier, ok := hootv1.Tier_value["TIER_"+strings.ToUpper(f.maxTier)]
	if !ok || tier == 0 {
		return gateway.Config{}, fmt.Errorf("--max-tier %q: want basic, standard, admin or operator", f.maxTier)
	}
	if f.confirm != "ask" && f.confirm != "never" {
		return gateway.Config{}, fmt.Errorf("--confirm %q: want ask (the default) or never", f.confirm)
	}
	var stateKey []byte
	if f.stateKey != "" {
		b, err := os.ReadFile(f.stateKey)
		if err != nil {
			return gateway.Config{}, fmt.Errorf("--state-key: %w", err)
		}
		// Trailing space and newlines are not part of the secret: an editor or echo adds them.
		if stateKey = bytes.TrimSpace(b); len(stateKey) < 16 {
			return gateway.Config{}, fmt.Errorf("--state-key %s: the key has %d bytes and needs at least 16 (openssl rand -hex 32 > %s makes one)", f.stateKey, len(stateKey), f.stateKey)
		}
	}
	if f.maxUploads <= 0 || f.clientUploads <= 0 {
		return gateway.Config{}, fmt.Errorf("--max-uploads %d and --max-uploads-per-client %d: both must be at least 1", f.maxUploads, f.clientUploads)
	}
	metricsToken, err := readMetricsToken(f.metricsToken)
	if err != nil {
		return gateway.Config{}, err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	guard, err := f.accessGuard(logger)
	if err != nil {
		return gateway.Config{}, err
	}
	if err := f.checkLimits(); err != nil {
		return gateway.Config{}, err
	}
	// 0 turns the rate off; the gateway reads 0 as its default and a negative rate as off.
	minUploadRate := f.minUploadRate
	if minUploadRate == 0 {
		minUploadRate = -1
	}
	var command []string
	if f.workerCommand != "" {
		command = strings.Fields(f.workerCommand)
	}
	return gateway.Config{
		WorkerEndpoint:      f.workerEndpoint,
		WorkerCommand:       command,
		MaxTier:             hootv1.Tier(tier),
		NoConfirm:           f.confirm == "never",
		StateKey:            stateKey,
		MinimalErrors:       f.minimalErrors,
		Conformance:         f.conformance,
		AllowedHosts:        f.allowedHosts(),
		AllowedOrigins:      splitList(f.allowOrigins),
		CallTimeout:         f.callTimeout,
		Heartbeat:           f.heartbeat,
		DataDir:             f.dataDir,
		CAS:                 f.casURL,
		MaxUpload:           f.maxUpload,
		MaxUploads:          f.maxUploads,
		MaxUploadsPerClient: f.clientUploads,
		MetricsToken:        metricsToken,

		MaxConns:           f.maxConns,
		MaxConnsPerClient:  f.maxConnsPerClient,
		IdleTimeout:        f.idleTimeout,
		WriteTimeout:       f.writeTimeout,
		MinUploadRate:      minUploadRate,
		MaxSessions:        f.maxSessions,
		WSMaxInFlight:      f.wsMaxInFlight,
		SessionBuffer:      f.sessionBuffer,
		SessionBufferTotal: f.sessionBufferTotal,
		Version:            version,
		Logger:             logger,
		Access:             guard,
		InsecureHTTP:       f.insecureHTTP,

		CurveSecretFile: f.curveSecret,
		CurveAllow:      f.curveAllow,
		InsecureWorkers: f.insecureWorkers,
	}, nil
}

// checkLimits refuses connection and session bounds that cannot work.
func (f *flags) checkLimits() error {
	switch {
	case f.maxConns < 1:
		return fmt.Errorf("--max-conns %d: want at least 1 connection", f.maxConns)
	case f.maxConnsPerClient < -1:
		return fmt.Errorf("--max-conns-per-client %d: want at least 1 connection, 0 for a sixteenth of --max-conns, or -1 for no per-client cap", f.maxConnsPerClient)
	case f.idleTimeout <= 0:
		return fmt.Errorf("--idle-timeout %v: want a positive duration such as 60s", f.idleTimeout)
	case f.writeTimeout <= 0:
		return fmt.Errorf("--write-timeout %v: want a positive duration such as 60s", f.writeTimeout)
	case f.minUploadRate < 0:
		return fmt.Errorf("--min-upload-rate %d: want bytes a second, or 0 to turn the minimum off", f.minUploadRate)
	case f.maxSessions < 1:
		return fmt.Errorf("--max-sessions %d: want at least 1 session", f.maxSessions)
	case f.wsMaxInFlight < 1:
		return fmt.Errorf("--ws-max-in-flight %d: want at least 1 request (%d by default)", f.wsMaxInFlight, mcp.DefaultWebSocketMaxInFlight)
	case f.sessionBuffer < 1:
		return fmt.Errorf("--session-buffer %d: want at least 1 byte (%d by default)", f.sessionBuffer, mcp.DefaultEventBufferBytes)
	case f.sessionBufferTotal < int64(f.sessionBuffer):
		return fmt.Errorf("--session-buffer-total %d is smaller than --session-buffer %d: the total must hold at least one session's buffer", f.sessionBufferTotal, f.sessionBuffer)
	}
	return nil
}

func keygen(args []string) error {
	err := curvekey.Keygen("holler", args, os.Stdout, func(publicPath, secretPath string) string {
		return fmt.Sprintf("Start holler with --curve-secret %s --curve-allow DIR, where DIR holds the workers' .key files;\n"+
			"give %s to each worker (hootenanny --curve-server).", secretPath, publicPath)
	})
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// defaultDataDir is hootenanny's default data directory, so that a gateway and a worker on one
// machine agree without flags: $XDG_STATE_HOME/hootenanny or ~/.local/state/hootenanny.
func defaultDataDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "hootenanny")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "state", "hootenanny")
}

// splitList splits a comma-separated flag value, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// ownWorkerWait bounds how long holler waits for the worker it started before it serves.
const ownWorkerWait = 15 * time.Second

// waitForOwnWorker waits, when holler runs its own worker, until the worker has announced
// itself, so that a client's first tools/list already shows the tools. A worker that does not
// come in time is reported, and holler serves anyway: tools appear as workers arrive, with
// notifications/tools/list_changed.
func waitForOwnWorker(ctx context.Context, g *gateway.Gateway, cfg gateway.Config) {
	if len(cfg.WorkerCommand) == 0 {
		return
	}
	wctx, cancel := context.WithTimeout(ctx, ownWorkerWait)
	defer cancel()
	if !g.WaitForWorker(wctx) && ctx.Err() == nil {
		cfg.Logger.Warn("the worker command has not announced itself yet; serving without tools until it does",
			"command", cfg.WorkerCommand, "waited", ownWorkerWait)
	}
}
