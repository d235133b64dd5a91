// Package fleettest gives the tests of the fleet storage (PostgreSQL for artifacts and jobs,
// S3-compatible object storage for the content store) the servers they run against.
//
// tools/testservers.sh starts a throwaway PostgreSQL cluster and a versitygw S3 server on
// 127.0.0.1, exports where they are, runs a command and stops both when it ends; `make test`
// runs the Go tests under it. To run the fleet tests of one package:
//
//	tools/testservers.sh go test ./hootenanny/internal/artifacts
//	tools/testservers.sh go test -run TestStore ./hootenanny/...
//
// or start the servers once with `make testservers` in one terminal, paste the exports it
// prints into another, and run go test there as often as needed.
//
// Without the servers (HOOT_TEST_POSTGRES or HOOT_TEST_S3 unset) a test that asks for one is
// skipped, so that a plain `go test` works anywhere; with HOOT_FLEET_TESTS=required, which the
// script sets, it fails instead, so that `make test` cannot pass with the fleet tests skipped.
//
// The servers are shared by every test of the run, packages included, which go test runs in
// parallel: a test keeps to a database or schema of its own on PostgreSQL (the URL is a
// superuser's) and to its own key prefix in the bucket, which [S3URL] gives it.
//
// The S3 server is reached the way the AWS SDKs read their environment: AWS_ENDPOINT_URL,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION. It serves path-style requests
// (http://127.0.0.1:PORT/bucket/key), not virtual-hosted ones.
package fleettest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The environment tools/testservers.sh sets.
const (
	// EnvPostgres holds a PostgreSQL URL for a superuser, such as
	// postgres://postgres@127.0.0.1:5433/postgres?sslmode=disable.
	EnvPostgres = "HOOT_TEST_POSTGRES"
	// EnvS3 holds the URL of an empty bucket, such as s3://hoot-test.
	EnvS3 = "HOOT_TEST_S3"
	// EnvEndpoint holds the S3 server's URL. Without it an S3 client would go to AWS.
	EnvEndpoint = "AWS_ENDPOINT_URL"
	// EnvRequired, set to "required", makes a test that lacks a server fail instead of skip.
	EnvRequired = "HOOT_FLEET_TESTS"
)

const howToRun = "run the tests under tools/testservers.sh (e.g. tools/testservers.sh go test ./hootenanny/...) or with the exports of make testservers"

// PostgresURL returns the URL of the test PostgreSQL server (HOOT_TEST_POSTGRES). Without one
// it skips the test, or fails it when HOOT_FLEET_TESTS is required.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return lookup(t, EnvPostgres)
}

// S3URL returns s3://BUCKET/PREFIX: the test bucket (HOOT_TEST_S3) and a key prefix that no
// other call returns, made of the test's name and random characters. The test keeps its
// objects under PREFIX/. Without a server it skips the test, or fails it when HOOT_FLEET_TESTS
// is required; it fails the test when HOOT_TEST_S3 is set and AWS_ENDPOINT_URL is not.
func S3URL(t testing.TB) string {
	t.Helper()
	bucket := lookup(t, EnvS3)
	if os.Getenv(EnvEndpoint) == "" {
		t.Fatalf("%s is set but %s is not: the S3 client would go to AWS; %s", EnvS3, EnvEndpoint, howToRun)
	}
	return strings.TrimSuffix(bucket, "/") + "/" + prefix(t.Name())
}

// lookup returns the variable's value, or skips or fails the test when it is empty.
func lookup(t testing.TB, name string) string {
	t.Helper()
	if v := os.Getenv(EnvRequired); v != "" && v != "required" {
		// A misspelt value must not let the tests skip unnoticed.
		t.Fatalf("%s is %q; it is either unset or required", EnvRequired, v)
	}
	value := os.Getenv(name)
	if value == "" {
		Missing(t, name+" is not set")
	}
	return value
}

// Missing ends a test that lacks a server (or a program) it needs, saying what is missing: it
// skips the test, or fails it when HOOT_FLEET_TESTS is required, as make test sets it.
func Missing(t testing.TB, what string) {
	t.Helper()
	switch v := os.Getenv(EnvRequired); v {
	case "":
		t.Skipf("%s: %s", what, howToRun)
	case "required":
		t.Fatalf("%s, and %s=required: %s", what, EnvRequired, howToRun)
	default:
		// A misspelt value must not let the tests skip unnoticed.
		t.Fatalf("%s is %q; it is either unset or required", EnvRequired, v)
	}
}

var unsafeKey = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// prefix turns a test's name into a key prefix of its own: the name, with anything other than
// letters, digits, '.', '_' and '-' replaced, cut to 64 characters, then 12 random hex digits.
func prefix(name string) string {
	name = unsafeKey.ReplaceAllString(name, "-")
	if len(name) > 64 {
		name = name[:64]
	}
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return name + "-" + hex.EncodeToString(b[:])
}
