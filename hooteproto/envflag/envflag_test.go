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

func TestList(t *testing.T) {
	for _, tc := range []struct {
		env  string
		args []string
		want string
		err  string
	}{
		{"", nil, "tcp://a:1", ""},
		{"", []string{"--gateway", "tcp://b:1", "--gateway", "tcp://c:1"}, "tcp://b:1,tcp://c:1", ""},
		{"tcp://d:1, tcp://e:1", nil, "tcp://d:1,tcp://e:1", ""},
		{"tcp://d:1,tcp://e:1", []string{"--gateway", "tcp://f:1"}, "tcp://f:1", ""},
		{"", []string{"--gateway", "tcp://b:1,,tcp://c:1"}, "", "empty value"},
	} {
		t.Run(tc.env+strings.Join(tc.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			l := NewList("tcp://a:1")
			fs.Var(l, "gateway", "")
			prefix := "HOOTLIST_UNSET_"
			if tc.env != "" {
				prefix = "HOOTLIST_"
				t.Setenv(prefix+"GATEWAY", tc.env)
			}
			err := Parse(fs, prefix, tc.args)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("err = %v, want %q", err, tc.err)
			case tc.err == "" && (err != nil || l.String() != tc.want):
				t.Errorf("%q, %v; want %q", l.String(), err, tc.want)
			}
		})
	}
}
