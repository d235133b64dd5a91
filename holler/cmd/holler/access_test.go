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
			f := newFlags(io.Discard)
			if err := f.fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			cfg, err := f.config()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
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
