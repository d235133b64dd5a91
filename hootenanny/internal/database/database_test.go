package database

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestOpenMigrates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // opening again applies nothing
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := Version(ctx, db); err != nil || v != len(ms) {
			t.Errorf("version = %d, %v; want %d", v, err, len(ms))
		}
		var mode string
		if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal_mode = %q, %v", mode, err)
		}
		var fk int
		if err := db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
			t.Errorf("foreign_keys = %d, %v", fk, err)
		}
		db.Close()
	}
}

func TestOpenConcurrently(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			db, err := Open(context.Background(), path)
			if err == nil {
				db.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer than this hootenanny knows") {
		t.Errorf("Open of a newer schema = %v", err)
	}
}
