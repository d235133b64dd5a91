package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/gateway"
)

// hollerCLI runs the holler binary's command line against url and returns its exit status and
// output.
func hollerCLI(t *testing.T, url string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin(t, "holler"), append(args, "--url", url)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errorsAs(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("holler %v: %v", args, err)
	}
	return code, out.String(), errb.String()
}

func errorsAs(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*target = e
	}
	return ok
}

// TestCommandLine drives holler call, tools and jobs as a person would, against the whole stack.
func TestCommandLine(t *testing.T) {
	t.Parallel()
	url := startStackWith(t, func(cfg *gateway.Config) { cfg.MaxTier = hootv1.Tier_TIER_ADMIN })
	dir := t.TempDir()
	tune := "X:1\nT:Scale\nM:4/4\nL:1/4\nK:G\nGABc|defg|]\n"

	t.Run("call with a file argument saves the MIDI", func(t *testing.T) {
		path := filepath.Join(dir, "scale.abc")
		if err := os.WriteFile(path, []byte(tune), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		code, stdout, stderr := hollerCLI(t, url, "", "call", "abc_to_midi", "abc=@"+path, "tags=scale", "tags=test", "--out", out)
		if code != 0 || !strings.Contains(stdout, `"mime_type": "audio/midi"`) || !strings.Contains(stdout, `"scale"`) {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(out, "art_*.mid"))
		if len(files) != 1 {
			t.Fatalf("saved %v, want one artifact's MIDI; stderr:\n%s", files, stderr)
		}
		b, err := os.ReadFile(files[0])
		if err != nil || !bytes.HasPrefix(b, []byte("MThd")) {
			t.Errorf("the saved file is not MIDI: %q %v", b[:min(len(b), 8)], err)
		}
	})

	t.Run("standard input and --json", func(t *testing.T) {
		code, stdout, stderr := hollerCLI(t, url, tune, "call", "abc_parse", "abc=@-", "--json")
		if code != 0 || !strings.HasPrefix(strings.TrimSpace(stdout), "{") || !strings.Contains(stdout, "Scale") {
			t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
		}
	})

	t.Run("a mistyped argument prints the gateway's guidance", func(t *testing.T) {
		code, _, stderr := hollerCLI(t, url, "", "call", "echo", "mesage=hi")
		if code != 1 || !strings.Contains(stderr, "did you mean: message") {
			t.Errorf("exit %d\n%s", code, stderr)
		}
	})

	t.Run("a value of the wrong type is caught before the call", func(t *testing.T) {
		code, _, stderr := hollerCLI(t, url, "", "call", "abc_to_midi", "abc=x", "x=first")
		if code != 2 || !strings.Contains(stderr, "x takes a whole number") || !strings.Contains(stderr, "usage:") {
			t.Errorf("exit %d\n%s", code, stderr)
		}
	})

	t.Run("an unknown tool", func(t *testing.T) {
		code, _, stderr := hollerCLI(t, url, "", "call", "abc_to_mid")
		if code != 2 || !strings.Contains(stderr, "abc_to_midi") {
			t.Errorf("exit %d\n%s", code, stderr)
		}
	})

	t.Run("tools", func(t *testing.T) {
		code, stdout, _ := hollerCLI(t, url, "", "tools")
		if code != 0 || !regexp.MustCompile(`(?m)^abc_to_midi\s+Convert`).MatchString(stdout) {
			t.Errorf("exit %d\n%s", code, stdout)
		}
		code, stdout, _ = hollerCLI(t, url, "", "tools", "job_await")
		if code != 0 || !strings.Contains(stdout, "Example: holler call job_await ids=job_") || !strings.Contains(stdout, "string (repeat the key)") {
			t.Errorf("exit %d\n%s", code, stdout)
		}
	})

	var book strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&book, "X:%d\nT:Tune %d\nM:6/8\nL:1/8\nK:D\n|:DFA dAF|GBd gdB|AFA dAF|GEC D3:|\n\n", i, i)
	}
	bookPath := filepath.Join(dir, "book.abc")
	if err := os.WriteFile(bookPath, []byte(book.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("a job is followed to its end", func(t *testing.T) {
		code, stdout, stderr := hollerCLI(t, url, "", "call", "abc_book_to_midi", "abc=@"+bookPath)
		if code != 0 || strings.Count(stdout, `"artifact_id": "art_`) != 2000 {
			t.Fatalf("exit %d, %d tunes\n%s", code, strings.Count(stdout, `"artifact_id"`), stderr)
		}
		// Not a terminal: progress is plain lines on stderr.
		if !regexp.MustCompile(`abc_book_to_midi job_\w+: \d+%`).MatchString(stderr) {
			t.Errorf("no progress lines:\n%s", stderr)
		}
		code, stdout, _ = hollerCLI(t, url, "", "jobs")
		if code != 0 || !regexp.MustCompile(`job_\w+\s+abc_book_to_midi\s+succeeded\s+100%`).MatchString(stdout) {
			t.Errorf("holler jobs: exit %d\n%s", code, stdout)
		}
	})

	t.Run("Ctrl-C cancels the job", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin(t, "holler"), "call", "abc_book_to_midi", "abc=@"+bookPath, "--url", url)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stderr)
		job := ""
		for lines.Scan() && job == "" {
			job = regexp.MustCompile(`job_[0-9a-z]{26}`).FindString(lines.Text())
		}
		if job == "" {
			t.Fatal("no job was reported")
		}
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		var rest strings.Builder
		for lines.Scan() {
			rest.WriteString(lines.Text() + "\n")
		}
		err = cmd.Wait()
		if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 130 || !strings.Contains(rest.String(), "cancelled "+job) {
			t.Fatalf("after Ctrl-C: %v\n%s", err, rest.String())
		}
		code, stdout, _ := hollerCLI(t, url, "", "call", "job_status", "id="+job)
		if code != 0 || !strings.Contains(stdout, "JOB_STATUS_CANCELLED") {
			t.Errorf("the job after Ctrl-C: exit %d\n%s", code, stdout)
		}
	})

	t.Run("a call that needs a person's confirmation", func(t *testing.T) {
		// No terminal to ask on: declined, and the way to confirm is named.
		code, _, stderr := hollerCLI(t, url, "", "call", "storage_gc", "dry_run=true")
		if code != 1 || !strings.Contains(stderr, "--yes") || !strings.Contains(stderr, "declined") {
			t.Errorf("without --yes: exit %d\n%s", code, stderr)
		}
		code, stdout, stderr := hollerCLI(t, url, "", "call", "storage_gc", "dry_run=true", "--yes")
		if code != 0 || !strings.Contains(stdout, `"dry_run": true`) {
			t.Errorf("with --yes: exit %d\n%s\n%s", code, stdout, stderr)
		}
	})

	t.Run("no gateway", func(t *testing.T) {
		code, _, stderr := hollerCLI(t, "http://127.0.0.1:1/mcp", "", "tools")
		if code != 1 || !strings.Contains(stderr, "make run") {
			t.Errorf("exit %d\n%s", code, stderr)
		}
	})
}

// TestCommandLineLocal runs holler call --local, which starts a gateway and worker of its own.
func TestCommandLineLocal(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin(t, "holler"), "call", "--local", "echo", "message=hello from local")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"message": "hello from local"`) {
		t.Errorf("%v\n%s", err, out)
	}
}

// TestCommandLineToken calls a gateway that wants a bearer token: refused without one, with
// the way to get one; served with --token and with HOLLER_TOKEN.
func TestCommandLineToken(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "tokens")
	token, err := access.AddToken(file, "cli", hootv1.Tier_TIER_STANDARD)
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := access.LoadTokens(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	guard, err := access.NewGuard(access.Config{Tokens: tokens})
	if err != nil {
		t.Fatal(err)
	}
	url := startStackWith(t, func(cfg *gateway.Config) { cfg.Access = guard })

	code, _, stderr := hollerCLI(t, url, "", "tools")
	if code == 0 || !strings.Contains(stderr, "wants a bearer token") || !strings.Contains(stderr, "--token") {
		t.Errorf("without a token: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := hollerCLI(t, url, "", "call", "echo", "message=with a token", "--token", token)
	if code != 0 || !strings.Contains(stdout, "with a token") {
		t.Errorf("--token: exit %d\n%s\n%s", code, stdout, stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin(t, "holler"), "tools", "--url", url)
	cmd.Env = append(os.Environ(), "HOLLER_TOKEN="+token)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "abc_to_midi") {
		t.Errorf("HOLLER_TOKEN: %v\n%s", err, out)
	}
}
