package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/hootenanny/hoot/hooteproto/envflag"
)

func TestTokenAdd(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tokens")
	var out bytes.Buffer
	if err := tokenCommand([]string{"add", "alice", "--tier", "admin", "--file", p}, &out); err != nil {
		t.Fatal(err)
	}
	token, _, _ := strings.Cut(out.String(), "\n")
	if !strings.HasPrefix(token, "hoot_") || !strings.Contains(out.String(), "Authorization: Bearer "+token) {
		t.Fatalf("output %q", out.String())
	}
	toks, err := access.LoadTokens(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := toks.Verify(token); !ok || e.Name != "alice" || e.Tier != hootv1.Tier_TIER_ADMIN {
		t.Fatalf("the printed token does not verify: %+v %v", e, ok)
	}
	for _, args := range [][]string{
		{}, {"list"}, {"add"}, {"add", "bob"}, {"add", "bob", "--file", p, "--tier", "root"},
		{"add", "alice", "--file", p}, {"add", "bob", "extra", "--file", p},
	} {
		if err := tokenCommand(args, io.Discard); err == nil {
			t.Errorf("holler token %q: no error", args)
		}
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tokenCommand([]string{"add", "carol", "--file", p}, io.Discard); err == nil || !strings.Contains(err.Error(), "chmod 600 "+p) {
		t.Fatalf("a readable token file: %v", err)
	}
}

func TestAccessFlags(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tokens")
	if _, err := access.AddToken(p, "alice", hootv1.Tier_TIER_STANDARD); err != nil {
		t.Fatal(err)
	}
	testCases := []struct {
		name    string
		args    []string
		guard   bool
		wantErr string
	}{
		{name: "none", args: nil},
		{name: "tokens", args: []string{"--tokens", p}, guard: true},
		{name: "missing tokens", args: []string{"--tokens", p + ".none"}, wantErr: "holler token add"},
		{name: "oauth", args: []string{"--oauth-issuer", "https://auth.example.com", "--oauth-audience", "https://h.example.com/mcp",
			"--oauth-scope-tier", "hoot=standard", "--oauth-scope-tier", "hoot.admin=admin"}, guard: true},
		{name: "oauth pairs in one value", args: []string{"--oauth-issuer", "https://auth.example.com", "--oauth-audience", "https://h.example.com/mcp",
			"--oauth-scope-tier", "hoot=standard,hoot.admin=admin"}, guard: true},
		{name: "oauth without audience", args: []string{"--oauth-issuer", "https://auth.example.com", "--oauth-scope-tier", "hoot=standard"}, wantErr: "--oauth-audience"},
		{name: "bad scope tier", args: []string{"--oauth-issuer", "https://auth.example.com", "--oauth-audience", "https://h.example.com/mcp",
			"--oauth-scope-tier", "hoot"}, wantErr: "want scope=tier"},
		{name: "http issuer", args: []string{"--oauth-issuer", "http://auth.example.com", "--oauth-audience", "https://h.example.com/mcp",
			"--oauth-scope-tier", "hoot=basic"}, wantErr: "https"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ok := configOf(t, tc.args, tc.wantErr)
			if !ok {
				return
			}
			if (cfg.Access != nil) != tc.guard {
				t.Fatalf("Access = %v, want set %v", cfg.Access, tc.guard)
			}
			if cfg.Access.OAuth() != nil && (len(cfg.AllowedHosts) != 1 || cfg.AllowedHosts[0] != "h.example.com") {
				t.Fatalf("AllowedHosts = %q, want the audience's host", cfg.AllowedHosts)
			}
		})
	}
}

// TestGuardFlags reads --metrics-token-file and the upload limits, and their environment
// variables, and refuses what would guard nothing.
func TestGuardFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("metrics", "0123456789abcdef0123456789abcdef\n")
	for _, tc := range []struct {
		name, wantErr, wantToken string
		args                     []string
		uploads, perClient       int
	}{
		{name: "defaults", uploads: 16, perClient: 4},
		{name: "token", args: []string{"--metrics-token-file", good}, wantToken: "0123456789abcdef0123456789abcdef", uploads: 16, perClient: 4},
		{name: "limits", args: []string{"--max-uploads", "3", "--max-uploads-per-client", "1"}, uploads: 3, perClient: 1},
		{name: "short token", args: []string{"--metrics-token-file", write("short", "secret\n")}, wantErr: "at least 16"},
		{name: "token with spaces", args: []string{"--metrics-token-file", write("spaces", "0123456789 abcdef 0123456789")}, wantErr: "character that a token cannot have"},
		{name: "missing token file", args: []string{"--metrics-token-file", filepath.Join(dir, "none")}, wantErr: "--metrics-token-file"},
		{name: "no uploads", args: []string{"--max-uploads", "0"}, wantErr: "at least 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ok := configOf(t, tc.args, tc.wantErr)
			if !ok {
				return
			}
			if cfg.MetricsToken != tc.wantToken || cfg.MaxUploads != tc.uploads || cfg.MaxUploadsPerClient != tc.perClient {
				t.Fatalf("MetricsToken %q, MaxUploads %d, MaxUploadsPerClient %d", cfg.MetricsToken, cfg.MaxUploads, cfg.MaxUploadsPerClient)
			}
		})
	}
	t.Run("environment", func(t *testing.T) {
		t.Setenv("HOLLER_METRICS_TOKEN_FILE", good)
		t.Setenv("HOLLER_MAX_UPLOADS_PER_CLIENT", "2")
		f := newFlags(io.Discard)
		if err := envflag.Parse(f.fs, "HOLLER_", nil); err != nil {
			t.Fatal(err)
		}
		cfg, err := f.config()
		if err != nil || cfg.MetricsToken == "" || cfg.MaxUploadsPerClient != 2 {
			t.Fatalf("from the environment: %v, token %q, per client %d", err, cfg.MetricsToken, cfg.MaxUploadsPerClient)
		}
	})
}

// configOf parses args as holler serve's flags and returns the gateway's config. With wantErr
// set it checks instead that the config is refused with an error containing it, and returns
// false.
func configOf(t *testing.T, args []string, wantErr string) (gateway.Config, bool) {
	t.Helper()
	f := newFlags(io.Discard)
	if err := f.fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.config()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("%q: err = %v, want one with %q", args, err, wantErr)
		}
		return cfg, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return cfg, true
}
