package envflag

import (
	"flag"
	"io"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Setenv("HOOTTEST_DATA_DIR", "/from/env")
	t.Setenv("HOOTTEST_CAPACITY", "7")
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	dir := fs.String("data-dir", "default", "")
	capacity := fs.Int("capacity", 1, "")
	name := fs.String("name", "n", "")
	if err := Parse(fs, "HOOTTEST_", []string{"-capacity", "9"}); err != nil {
		t.Fatal(err)
	}
	if *dir != "/from/env" || *capacity != 9 || *name != "n" {
		t.Fatalf("got dir=%q capacity=%d name=%q; want env for dir, command line for capacity, default for name", *dir, *capacity, *name)
	}
}

func TestParseBadEnvironmentValue(t *testing.T) {
	t.Setenv("HOOTTEST_CAPACITY", "lots")
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int("capacity", 1, "")
	err := Parse(fs, "HOOTTEST_", nil)
	if err == nil || !strings.Contains(err.Error(), "HOOTTEST_CAPACITY") {
		t.Fatalf("err = %v, want one naming HOOTTEST_CAPACITY", err)
	}
}
