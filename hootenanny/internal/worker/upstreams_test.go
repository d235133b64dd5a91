package worker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseUpstreams(t *testing.T) {
	t.Parallel()
	got, err := ParseUpstreams([]string{"eth=http://127.0.0.1:8545"})
	if err != nil || got["eth"] != "http://127.0.0.1:8545" {
		t.Fatalf("%v %v", got, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"eth", "NAME=URL"},
		{"btc=http://x", "no such upstream (known: eth)"},
		{"eth=ftp://user:hunter2@x", "must be http://"},
		{"eth=127.0.0.1:8545", "must be http://"},
	} {
		_, err := ParseUpstreams([]string{tc.in})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
	if _, err := ParseUpstreams([]string{"eth=http://a", "eth=http://b"}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("twice: %v", err)
	}
}

func TestParseUpstreamManifests(t *testing.T) {
	t.Parallel()
	built, err := os.ReadFile("../ethservice/manifest.csv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	off := write("off.csv", strings.Replace(string(built), "eth_sendTransaction,broadcast,true,", "eth_sendTransaction,broadcast,false,", 1))
	ms, err := ParseUpstreamManifests([]string{"eth=" + off})
	if err != nil {
		t.Fatal(err)
	}
	if row, _ := ms["eth"].Row("eth_sendTransaction"); row.Enabled {
		t.Errorf("the copy's row was not read: %+v", row)
	}
	more := write("more.csv", strings.Replace(string(built), "eth_sign,local-sensitive,false,deny,", "eth_sign,local-sensitive,true,proxy,", 1))
	if _, err := ParseUpstreamManifests([]string{"eth=" + more}); err == nil || !strings.Contains(err.Error(), "may only turn methods off") {
		t.Errorf("a copy serving more: %v", err)
	}
	lines := strings.Split(string(built), "\n")
	short := write("short.csv", strings.Join(lines[:len(lines)-3], "\n")+"\n")
	if _, err := ParseUpstreamManifests([]string{"eth=" + short}); err == nil || !strings.Contains(err.Error(), "no row for") {
		t.Errorf("a copy missing rows: %v", err)
	}
	if _, err := ParseUpstreamManifests([]string{"eth=" + filepath.Join(dir, "none.csv")}); err == nil {
		t.Error("a missing file was accepted")
	}
}
