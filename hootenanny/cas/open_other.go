//go:build !unix

package cas

import (
	"io"
	"os"
)

// openReadOnly opens the file at path for reading.
func openReadOnly(path string) (*os.File, error) { return os.Open(path) }

// readSmallFile returns the contents of the file at path, or its first limit+1 bytes when it
// is longer than limit.
func readSmallFile(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(limit)+1))
}
