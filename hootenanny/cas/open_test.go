package cas

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSmallFile checks the reader of sidecars: a whole short file, the first limit+1 bytes
// of a longer one (so that the caller sees it is too long), and a missing file as
// fs.ErrNotExist with its path.
func TestReadSmallFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		limit         int
		want          string
	}{
		{"empty", "", 10, ""},
		{"short", "hoot-cas-meta 1\n", 100, "hoot-cas-meta 1\n"},
		{"at the limit", "0123456789", 10, "0123456789"},
		{"longer", strings.Repeat("x", 5000), 1024, strings.Repeat("x", 1025)},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o444); err != nil {
			t.Fatal(err)
		}
		got, err := readSmallFile(path, tc.limit)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: readSmallFile = %d bytes, %v; want %d bytes", tc.name, len(got), err, len(tc.want))
		}
	}
	missing := filepath.Join(dir, "missing")
	if _, err := readSmallFile(missing, 10); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("readSmallFile of a missing file: %v, want fs.ErrNotExist naming it", err)
	}
	if _, err := openReadOnly(missing); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("openReadOnly of a missing file: %v, want fs.ErrNotExist naming it", err)
	}
	f, err := openReadOnly(filepath.Join(dir, "short"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, err := io.ReadAll(f); err != nil || string(b) != "hoot-cas-meta 1\n" {
		t.Errorf("reading a file from openReadOnly: %q, %v", b, err)
	}
	if _, err := f.Write([]byte("x")); err == nil {
		t.Error("a file from openReadOnly takes writes")
	}
}
