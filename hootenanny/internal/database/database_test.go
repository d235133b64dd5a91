package database

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/pgtest"
)

// eachEngine runs fn for each engine, with a target that names a new, empty database.
func eachEngine(t *testing.T, fn func(t *testing.T, target string)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, filepath.Join(t.TempDir(), FileName))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		fn(t, pgtest.Database(t))
	})
}

func TestEngineOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		target string
		want   Engine
		err    string
	}{
		{"hoot.db", SQLite, ""},
		{"/var/lib/hootenanny/hoot.db", SQLite, ""},
		{"postgres://u@127.0.0.1:5432/hoot?sslmode=disable", Postgres, ""},
		{"postgresql://u@db/hoot", Postgres, ""},
		{"POSTGRES://u@db/hoot", Postgres, ""},
		{"", 0, "no database given"},
		{"mysql://u@db/hoot", 0, "mysql:// is not a database"},
		{"postgres:hoot", 0, "starts with postgres://"},
	} {
		got, err := EngineOf(c.target)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "postgres://") || !strings.Contains(err.Error(), "SQLite file path") {
				t.Errorf("EngineOf(%q) = %v, %v; want an error about %q that names the accepted forms", c.target, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("EngineOf(%q) = %v, %v; want %v", c.target, got, err, c.want)
		}
	}
	if _, err := Open(context.Background(), "postgres://u@db/hoot?connect_timeout=oops"); err == nil || !strings.Contains(err.Error(), "does not parse") {
		t.Errorf("Open of a bad PostgreSQL URL = %v", err)
	}
}

func TestRebind(t *testing.T) {
	t.Parallel()
	pg := &DB{engine: Postgres}
	got := pg.rebind(`SELECT '?', "a?" FROM t WHERE a = ? AND b IN (?, ?)`)
	if want := `SELECT '?', "a?" FROM t WHERE a = $1 AND b IN ($2, $3)`; got != want {
		t.Errorf("rebind = %s, want %s", got, want)
	}
	lite := &DB{engine: SQLite}
	if q := `SELECT ? FROM t`; lite.rebind(q) != q {
		t.Errorf("SQLite rebind changed %s", q)
	}
}

func TestMigrationsMatch(t *testing.T) {
	t.Parallel()
	names := map[Engine][]string{}
	for _, e := range []Engine{SQLite, Postgres} {
		ms, err := Migrations(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			names[e] = append(names[e], m.Name)
		}
	}
	if len(names[SQLite]) == 0 || !slices.Equal(names[SQLite], names[Postgres]) {
		t.Errorf("migrations: sqlite %v, postgres %v; want the same steps on both", names[SQLite], names[Postgres])
	}
}

func TestOpenMigrates(t *testing.T) {
	eachEngine(t, func(t *testing.T, target string) {
		ctx := context.Background()
		ms, err := Migrations(SQLite)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // opening again applies nothing
			db, err := Open(ctx, target)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := Version(ctx, db); err != nil || v != len(ms) {
				t.Errorf("version = %d, %v; want %d", v, err, len(ms))
			}
			var n int
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(ms) {
				t.Errorf("schema_migrations has %d rows, %v; want %d", n, err, len(ms))
			}
			if size, err := db.Size(ctx); err != nil || size <= 0 {
				t.Errorf("Size = %d, %v", size, err)
			}
			if db.Engine() == SQLite {
				var mode string
				if err := db.SQL().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
					t.Errorf("journal_mode = %q, %v", mode, err)
				}
				var fk int
				if err := db.SQL().QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
					t.Errorf("foreign_keys = %d, %v", fk, err)
				}
			}
			db.Close()
		}
	})
}

func TestOpenConcurrently(t *testing.T) {
	eachEngine(t, func(t *testing.T, target string) {
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			wg.Go(func() {
				db, err := Open(context.Background(), target)
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
	})
}

func TestRefusesNewerSchema(t *testing.T) {
	eachEngine(t, func(t *testing.T, target string) {
		ctx := context.Background()
		db, err := Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future.sql', 0)`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if _, err := Open(ctx, target); err == nil || !strings.Contains(err.Error(), "newer than this hootenanny knows") {
			t.Errorf("Open of a newer schema = %v", err)
		}
	})
}

func TestDuplicate(t *testing.T) {
	eachEngine(t, func(t *testing.T, target string) {
		ctx := context.Background()
		db, err := Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		_, err = db.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (1, 'again.sql', 0)`)
		if !errors.Is(err, ErrDuplicate) || errors.Is(err, ErrUnavailable) {
			t.Errorf("a second row with the same key: %v; want ErrDuplicate", err)
		}
		err = db.Write(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`, 1000, "a.sql", 0)
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`, 1000, "b.sql", 0)
			return err
		})
		if !errors.Is(err, ErrDuplicate) {
			t.Errorf("a duplicate in a transaction: %v; want ErrDuplicate", err)
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, 1000).Scan(&n); err != nil || n != 0 {
			t.Errorf("rows of the failed transaction: %d, %v; want none (all or nothing)", n, err)
		}
	})
}
