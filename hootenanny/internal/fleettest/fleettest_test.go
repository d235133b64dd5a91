package fleettest

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakeTB records whether a call skipped or failed the test, and ends the call's goroutine
// there, as testing.T does.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// call runs get with a fakeTB on a goroutine of its own and returns what it returned.
func call(t *testing.T, get func(testing.TB) string) (got string, f *fakeTB) {
	f = &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = get(f)
	}()
	<-done
	return got, f
}

func TestPostgresURL(t *testing.T) {
	const url = "postgres://postgres@127.0.0.1:5433/postgres?sslmode=disable"
	testCases := []struct {
		name, value, required string
		want                  string
		skip, fail            bool
	}{
		{name: "set", value: url, want: url},
		{name: "set and required", value: url, required: "required", want: url},
		{name: "unset", skip: true},
		{name: "unset and required", required: "required", fail: true},
		{name: "misspelt required", value: url, required: "requird", fail: true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvPostgres, tc.value)
			t.Setenv(EnvRequired, tc.required)
			got, f := call(t, PostgresURL)
			if (f.skipped != "") != tc.skip || (f.failed != "") != tc.fail || got != tc.want {
				t.Errorf("PostgresURL = %q, skipped %q, failed %q; want %q, skip %v, fail %v", got, f.skipped, f.failed, tc.want, tc.skip, tc.fail)
			}
			if msg := f.skipped + f.failed; tc.value == "" && !strings.Contains(msg, "tools/testservers.sh") {
				t.Errorf("message %q does not say how to run the tests", msg)
			}
		})
	}
}

func TestS3URL(t *testing.T) {
	testCases := []struct {
		name, value, endpoint, required string
		skip, fail                      bool
	}{
		{name: "set", value: "s3://hoot-test", endpoint: "http://127.0.0.1:7070"},
		{name: "set with a slash", value: "s3://hoot-test/", endpoint: "http://127.0.0.1:7070"},
		{name: "unset", skip: true},
		{name: "unset and required", required: "required", fail: true},
		{name: "no endpoint", value: "s3://hoot-test", fail: true},
	}
	want := regexp.MustCompile(`^s3://hoot-test/TestS3URL-[A-Za-z0-9._-]+-[0-9a-f]{12}$`)
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvS3, tc.value)
			t.Setenv(EnvEndpoint, tc.endpoint)
			t.Setenv(EnvRequired, tc.required)
			got, f := call(t, S3URL)
			if (f.skipped != "") != tc.skip || (f.failed != "") != tc.fail {
				t.Fatalf("S3URL = %q, skipped %q, failed %q; want skip %v, fail %v", got, f.skipped, f.failed, tc.skip, tc.fail)
			}
			if tc.skip || tc.fail {
				return
			}
			if !want.MatchString(got) {
				t.Errorf("S3URL = %q, want it to match %s", got, want)
			}
			if again, _ := call(t, S3URL); again == got {
				t.Errorf("S3URL returned %q twice", got)
			}
		})
	}
}

func TestPrefix(t *testing.T) {
	got := prefix("TestX/sub test/ü" + strings.Repeat("a", 100))
	if !regexp.MustCompile(`^TestX-sub-test-a{49}-[0-9a-f]{12}$`).MatchString(got) {
		t.Errorf("prefix = %q", got)
	}
}

// TestServers checks that the servers the environment names answer: under
// tools/testservers.sh it fails when the script's exports are wrong.
func TestServers(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		u, err := url.Parse(PostgresURL(t))
		if err != nil {
			t.Fatal(err)
		}
		conn, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", EnvPostgres, err)
		}
		conn.Close()
	})
	t.Run("s3", func(t *testing.T) {
		S3URL(t)
		// An unsigned request: any HTTP answer, even a refusal, shows that the server is there.
		client := &http.Client{Timeout: 5 * time.Second}
		resp, err := client.Get(os.Getenv(EnvEndpoint))
		if err != nil {
			t.Fatalf("%s: %v", EnvEndpoint, err)
		}
		resp.Body.Close()
	})
}
