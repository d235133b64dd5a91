package main

import (
	"io"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hooteproto/envflag"
)

func TestLimitFlags(t *testing.T) {
	f := newFlags(io.Discard)
	t.Setenv("HOLLER_MAX_CONNS_PER_CLIENT", "40")
	t.Setenv("HOLLER_SESSION_BUFFER_TOTAL", "1000000")
	if err := envflag.Parse(f.fs, "HOLLER_", []string{"--max-conns", "500", "--idle-timeout", "30s", "--write-timeout", "45s",
		"--min-upload-rate", "0", "--max-sessions", "77", "--session-buffer", "1000"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxConns != 500 || cfg.MaxConnsPerClient != 40 || cfg.IdleTimeout != 30*time.Second || cfg.WriteTimeout != 45*time.Second ||
		cfg.MinUploadRate >= 0 || cfg.MaxSessions != 77 || cfg.SessionBuffer != 1000 || cfg.SessionBufferTotal != 1000000 {
		t.Fatalf("config from the flags and environment: %+v", cfg)
	}

	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--max-conns", "0"}, "--max-conns 0"},
		{[]string{"--max-conns-per-client", "-2"}, "-1 for no per-client cap"},
		{[]string{"--idle-timeout", "0s"}, "--idle-timeout"},
		{[]string{"--write-timeout", "-1s"}, "--write-timeout"},
		{[]string{"--min-upload-rate", "-5"}, "0 to turn the minimum off"},
		{[]string{"--max-sessions", "0"}, "--max-sessions"},
		{[]string{"--session-buffer", "0"}, "--session-buffer"},
		{[]string{"--session-buffer", "2000", "--session-buffer-total", "1000"}, "must hold at least one session's buffer"},
	} {
		configOf(t, tc.args, tc.wantErr)
	}
}
