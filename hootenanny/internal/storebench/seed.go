package storebench

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// chunk is how many rows are made and written at a time.
const chunk = 50_000

// A table is one table's rows of a chunk, in the order of its columns.
type table struct {
	name string
	cols []string
	rows [][]any
}

var (
	artifactCols = []string{"id", "hash", "size", "mime_type", "creator", "created_at", "metadata", "variation_set", "variation_index"}
	tagCols      = []string{"artifact_id", "tag"}
	parentCols   = []string{"child_id", "parent_id", "position"}
	jobCols      = []string{"id", "tool", "status", "progress", "total", "message", "owner", "created_at", "started_at", "finished_at", "lease_until", "attempts"}
)

// tables returns the rows of artifacts, tags, parents and jobs for rows, in the order their
// foreign keys need.
func tables(s *Shape, rows []Row, jobs []JobRow) []table {
	t := []table{{name: "artifacts", cols: artifactCols}, {name: "artifact_tags", cols: tagCols},
		{name: "artifact_parents", cols: parentCols}, {name: "jobs", cols: jobCols}}
	for _, r := range rows {
		t[0].rows = append(t[0].rows, []any{r.ID, r.Hash, r.Size, r.MimeType, r.Creator, r.CreatedAt, nil, r.VariationSet, int64(r.VariationIndex)})
		for _, tag := range r.Tags {
			t[1].rows = append(t[1].rows, []any{r.ID, tag})
		}
		for pos, p := range r.Parents {
			t[2].rows = append(t[2].rows, []any{r.ID, s.ArtifactID(p), int64(pos)})
		}
	}
	for _, j := range jobs {
		t[3].rows = append(t[3].rows, []any{j.ID, j.Tool, int32(j.Status), 1.0, 1.0, "", "seed/0/0", j.CreatedAt, j.CreatedAt, j.FinishedAt, int64(0), int32(1)})
	}
	return t
}

// Grow adds the shape's next rows to db until it has made to rows, in one transaction, by the
// fastest path of db's engine: multi-row INSERTs on SQLite, COPY on PostgreSQL, with foreign
// keys unchecked (the shape makes parents before their children) and the secondary indexes
// dropped and made again from their own definitions afterwards, inside the same transaction
// (sorting once is much faster than inserting a million random keys). Afterwards the store is
// brought to the state a worker's store is in after a quiet moment: checkpointed, and on
// PostgreSQL vacuumed and analyzed, as autovacuum would. SQLite is not analyzed, since a
// worker never does it.
func Grow(ctx context.Context, db *database.DB, s *Shape, to int) error {
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	switch db.Engine() {
	case database.SQLite:
		err = growSQLite(ctx, conn, s, to)
	case database.Postgres:
		err = growPostgres(ctx, conn, s, to)
	default:
		err = fmt.Errorf("storebench: no seeding for engine %v", db.Engine())
	}
	if err != nil {
		return err
	}
	switch db.Engine() {
	case database.SQLite:
		_, err = conn.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	case database.Postgres:
		if _, err = conn.ExecContext(ctx, `VACUUM ANALYZE`); err == nil {
			_, err = conn.ExecContext(ctx, `CHECKPOINT`)
		}
	}
	return err
}

// next makes up to n more rows, stopping at to.
func next(s *Shape, to, n int) ([]Row, []JobRow) {
	var rows []Row
	var jobs []JobRow
	for s.Made() < to && len(rows) < n {
		r, j := s.Next()
		rows = append(rows, r)
		if j != nil {
			jobs = append(jobs, *j)
		}
	}
	return rows, jobs
}

// sqliteBatch is how many rows one INSERT carries, within SQLite's limit of variables.
const sqliteBatch = 200

func growSQLite(ctx context.Context, conn *sql.Conn, s *Shape, to int) (err error) {
	// foreign_keys cannot change inside a transaction; it is set back before the connection
	// returns to the pool.
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	defer func() {
		if _, ferr := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`); err == nil {
			err = ferr
		}
	}()
	// A cache that holds the indexes being made; the default is 2 MB.
	var cacheSize int64
	if err := conn.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&cacheSize); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA cache_size = -1048576`); err != nil {
		return err
	}
	defer func() {
		if _, cerr := conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA cache_size = %d`, cacheSize)); err == nil {
			err = cerr
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	indexes, err := namedSQL(ctx, tx, `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
		AND tbl_name IN ('artifacts', 'artifact_tags', 'artifact_parents', 'jobs')`)
	if err != nil {
		return err
	}
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, `DROP INDEX "`+ix[0]+`"`); err != nil {
			return err
		}
	}
	stmts := map[string]*sql.Stmt{}
	for s.Made() < to {
		rows, jobs := next(s, to, chunk)
		for _, t := range tables(s, rows, jobs) {
			for start := 0; start < len(t.rows); start += sqliteBatch {
				batch := t.rows[start:min(start+sqliteBatch, len(t.rows))]
				key := fmt.Sprintf("%s/%d", t.name, len(batch))
				st := stmts[key]
				if st == nil {
					if st, err = tx.PrepareContext(ctx, insertSQL(t.name, t.cols, len(batch))); err != nil {
						return err
					}
					stmts[key] = st
				}
				args := make([]any, 0, len(batch)*len(t.cols))
				for _, r := range batch {
					args = append(args, r...)
				}
				if _, err := st.ExecContext(ctx, args...); err != nil {
					return fmt.Errorf("storebench: seeding %s: %w", t.name, err)
				}
			}
		}
	}
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, ix[1]); err != nil {
			return fmt.Errorf("storebench: making index %s again: %w", ix[0], err)
		}
	}
	return tx.Commit()
}

// namedSQL returns the (name, definition) pairs that q selects.
func namedSQL(ctx context.Context, tx *sql.Tx, q string) ([][2]string, error) {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var p [2]string
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// insertSQL returns an INSERT of n rows into table.
func insertSQL(table string, cols []string, n int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",") + ")"
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " +
		strings.TrimSuffix(strings.Repeat(row+",", n), ",")
}

func growPostgres(ctx context.Context, conn *sql.Conn, s *Shape, to int) error {
	return conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		tx, err := pc.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.WithoutCancel(ctx))
		// Replication role "replica" skips the foreign keys' triggers, for this transaction
		// only; it takes a superuser, which the test server's DSN is.
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return fmt.Errorf("storebench: seeding PostgreSQL takes a superuser: %w", err)
		}
		if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '512MB'`); err != nil {
			return err
		}
		// The secondary indexes, without those of primary keys.
		rows, err := tx.Query(ctx, `SELECT indexname, indexdef FROM pg_indexes
			WHERE schemaname = current_schema() AND tablename = ANY($1)
			AND indexname NOT IN (SELECT conname FROM pg_constraint)`, []string{"artifacts", "artifact_tags", "artifact_parents", "jobs"})
		if err != nil {
			return err
		}
		indexes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
			var p [2]string
			err := r.Scan(&p[0], &p[1])
			return p, err
		})
		if err != nil {
			return err
		}
		for _, ix := range indexes {
			if _, err := tx.Exec(ctx, `DROP INDEX `+pgx.Identifier{ix[0]}.Sanitize()); err != nil {
				return err
			}
		}
		for s.Made() < to {
			rows, jobs := next(s, to, chunk)
			for _, t := range tables(s, rows, jobs) {
				if _, err := tx.CopyFrom(ctx, pgx.Identifier{t.name}, t.cols, pgx.CopyFromRows(t.rows)); err != nil {
					return fmt.Errorf("storebench: seeding %s: %w", t.name, err)
				}
			}
		}
		for _, ix := range indexes {
			if _, err := tx.Exec(ctx, ix[1]); err != nil {
				return fmt.Errorf("storebench: making index %s again: %w", ix[0], err)
			}
		}
		return tx.Commit(ctx)
	})
}
