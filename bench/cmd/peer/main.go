// Command peer serves the same echo tool as holler, over MCP Streamable HTTP on loopback, with
// one of two other Go MCP libraries, so that `make bench` can compare holler against them in
// the same run:
//
//	peer --impl mcp-go --addr 127.0.0.1:0
//	peer --impl go-sdk --addr 127.0.0.1:0
//
// Once it listens it prints one line, "ready http://ADDR/mcp", on standard output.
//
// Both serve the tool with holler's input and output JSON Schemas (message: a required string
// of 1 to 65536 characters, no other properties) and answer like holler does: structured
// content {message, worker} and one text block holding that same JSON. Settings, chosen to be
// each library's documented default where one exists and otherwise to match holler:
//
//   - mcp-go: server.NewStreamableHTTPServer with its default session handling (session ids
//     are issued by initialize and sent back by the client; the server keeps no session table
//     unless --mcpgo-stateful), JSON answers (its default for a request without
//     notifications), input validation against the schema switched on
//     (server.WithInputSchemaValidation), as holler and go-sdk always validate.
//   - go-sdk: mcp.NewStreamableHTTPHandler with stateful sessions (its default) and
//     JSONResponse: true, so that it answers application/json like the other two rather than
//     an event stream; input validation is always on in go-sdk's typed AddTool.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The schemas of holler's echo tool, as its generated tool table publishes them.
const (
	inputSchema  = `{"type":"object","properties":{"message":{"type":"string","description":"The text to send back.","minLength":1,"maxLength":65536}},"required":["message"],"additionalProperties":false}`
	outputSchema = `{"type":"object","properties":{"message":{"type":"string","description":"The message, exactly as it was sent."},"worker":{"type":"string","description":"The worker that answered."}},"additionalProperties":false}`
	description  = "Send a message through the server and get it back unchanged."
)

type echoArgs struct {
	Message string `json:"message"`
}

type echoResult struct {
	Message string `json:"message"`
	Worker  string `json:"worker"`
}

func main() {
	impl := flag.String("impl", "", "the library: mcp-go, go-sdk, or mcp-go+zeromq (mcp-go with a ZeroMQ round trip to an echo process in each call)")
	addr := flag.String("addr", "127.0.0.1:0", "loopback `address` to listen on")
	mcpgoStateful := flag.Bool("mcpgo-stateful", false, "mcp-go only: keep a session table (server.WithStateful) instead of its default")
	echo := flag.String(hopEchoFlag, "", "run as the echo process of mcp-go+zeromq, bound to this ZeroMQ `endpoint`")
	flag.Parse()

	if *echo != "" {
		if err := runHopEcho(*echo); err != nil {
			fmt.Fprintln(os.Stderr, "peer: echo:", err)
			os.Exit(1)
		}
		return
	}
	var h http.Handler
	switch *impl {
	case "mcp-go":
		h = newMCPGo(*mcpgoStateful, nil)
	case "mcp-go+zeromq":
		hp, err := startHop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "peer:", err)
			os.Exit(1)
		}
		defer hp.stop()
		h = newMCPGo(*mcpgoStateful, hp)
	case "go-sdk":
		h = newGoSDK()
	default:
		fmt.Fprintln(os.Stderr, "peer: --impl must be mcp-go, go-sdk or mcp-go+zeromq")
		os.Exit(2)
	}
	if err := serve(*addr, h); err != nil {
		fmt.Fprintln(os.Stderr, "peer:", err)
		os.Exit(1) // the echo process ends with its standard input
	}
}

// newMCPGo serves echo with github.com/mark3labs/mcp-go; with a hop, each call's message makes
// a round trip over it.
func newMCPGo(stateful bool, hp *hop) http.Handler {
	s := mcpgoserver.NewMCPServer("mcp-go-echo", "1",
		mcpgoserver.WithToolCapabilities(false),
		mcpgoserver.WithInputSchemaValidation(),
		mcpgoserver.WithRecovery(),
	)
	tool := mcpgo.NewTool("echo",
		mcpgo.WithDescription(description),
		mcpgo.WithRawInputSchema(json.RawMessage(inputSchema)),
		mcpgo.WithRawOutputSchema(json.RawMessage(outputSchema)),
	)
	s.AddTool(tool, mcpgo.NewStructuredToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, a echoArgs) (echoResult, error) {
		if hp == nil {
			return echoResult{Message: a.Message, Worker: "mcp-go"}, nil
		}
		msg, err := hp.roundTrip(a.Message)
		return echoResult{Message: msg, Worker: "mcp-go+zeromq"}, err
	}))
	var opts []mcpgoserver.StreamableHTTPOption
	if stateful {
		opts = append(opts, mcpgoserver.WithStateful(true))
	}
	opts = append(opts, mcpgoserver.WithStreamableHTTPLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	return mcpgoserver.NewStreamableHTTPServer(s, opts...)
}

// newGoSDK serves echo with github.com/modelcontextprotocol/go-sdk.
func newGoSDK() http.Handler {
	s := sdk.NewServer(&sdk.Implementation{Name: "go-sdk-echo", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{
		Name:         "echo",
		Description:  description,
		InputSchema:  json.RawMessage(inputSchema),
		OutputSchema: json.RawMessage(outputSchema),
	}, func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, echoResult, error) {
		// A nil result lets the SDK fill in the text block with the output's JSON.
		return nil, echoResult{Message: a.Message, Worker: "go-sdk"}, nil
	})
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
		&sdk.StreamableHTTPOptions{JSONResponse: true})
}

// serve listens on addr, says so, and serves h at /mcp until SIGINT or SIGTERM.
func serve(addr string, h http.Handler) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	fmt.Fprintf(os.Stdout, "ready http://%s/mcp\n", l.Addr())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
