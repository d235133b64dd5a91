package cas

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestWalkStatsVerify(t *testing.T) {
	t.Parallel()
	s, err := OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var stored []Hash
	for _, c := range []string{"one", "two", "three"} {
		obj, _, err := s.Put(ctx, strings.NewReader(c), "text/plain")
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, obj.Hash)
	}
	n, bytes, err := s.Stats(ctx)
	if err != nil || n != 3 || bytes != 11 {
		t.Errorf("Stats = %d, %d, %v; want 3, 11", n, bytes, err)
	}
	var walked int
	if err := s.Walk(ctx, func(Hash) error { walked++; return nil }); err != nil || walked != 3 {
		t.Errorf("Walk saw %d objects, %v", walked, err)
	}
	for _, h := range stored {
		if _, err := s.Verify(ctx, h); err != nil {
			t.Errorf("Verify(%s) = %v", h, err)
		}
	}
	// Corrupt one object behind the store's back.
	path := s.objectPath(stored[0])
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("ONE"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ce *CorruptError
	if _, err := s.Verify(ctx, stored[0]); !errors.As(err, &ce) || ce.Got != Sum([]byte("ONE")) {
		t.Errorf("Verify(corrupt) = %v", err)
	}
	if _, err := s.Verify(ctx, Sum([]byte("absent"))); !errors.Is(err, ErrNotFound) {
		t.Errorf("Verify(absent) = %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Verify(cancelled, stored[1]); !errors.Is(err, context.Canceled) {
		t.Errorf("Verify(cancelled) = %v", err)
	}
}
