package database

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// connectTimeout bounds how long opening a connection to PostgreSQL takes when the URL does not
// say (connect_timeout): a server that does not answer is reported unavailable, not waited for.
const connectTimeout = 10 * time.Second

// idleInTransaction is how long PostgreSQL lets a connection of ours sit idle inside an open
// transaction before it ends the session, unless the URL says otherwise. The store's
// transactions run their statements back to back, so a transaction idle that long belongs to a
// process that was frozen (SIGSTOP, a paused VM, a debugger) while it held row locks: ending it
// frees the rows for the rest of the fleet, where waiting would wedge every worker that touches
// them until the frozen one came back.
const idleInTransaction = "10s"

// openPostgres opens a pool of connections to the PostgreSQL database that dsn names. It
// connects only when first used.
func openPostgres(dsn string) (*DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's message may quote the URL with its password; say what is wrong without it.
		return nil, fmt.Errorf("database: the PostgreSQL URL does not parse (%s); give %s", redact(err), Forms)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "hootenanny"
	}
	if _, ok := cfg.RuntimeParams["idle_in_transaction_session_timeout"]; !ok {
		cfg.RuntimeParams["idle_in_transaction_session_timeout"] = idleInTransaction
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(time.Minute)
	return &DB{db: db, engine: Postgres}, nil
}

// redact returns err's message without anything that looks like a URL's password.
func redact(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "://"); i >= 0 {
		if j := strings.IndexByte(msg[i:], '@'); j >= 0 {
			msg = msg[:i+3] + "…" + msg[i+j:]
		}
	}
	return msg
}

// migrationLock is the key of the advisory lock that the migration's transaction holds, so
// that several workers starting at once migrate one after the other.
const migrationLock = 0x686f6f7465 // "hoote"

// postgresKind returns ErrUnavailable for a server that cannot be reached or has ended the
// connection, ErrDuplicate for a unique key's refusal, and nil for other errors.
func postgresKind(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "23505": // unique_violation
			return ErrDuplicate
		case strings.HasPrefix(pe.Code, "08"), // connection exceptions
			pe.Code == "57P01", // admin_shutdown
			pe.Code == "57P02", // crash_shutdown
			pe.Code == "57P03", // cannot_connect_now
			pe.Code == "25P03", // idle_in_transaction_session_timeout: the server ended the session
			pe.Code == "53300": // too_many_connections
			return ErrUnavailable
		}
		return nil
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed), errors.Is(err, pgconn.ErrConnClosed):
		return ErrUnavailable
	}
	return nil
}

// maxAttempts is how many times a write transaction runs before a conflict is given up on.
const maxAttempts = 16

// retrySerialization runs fn until it does not fail for a conflict with a concurrent
// transaction (serialization_failure, deadlock_detected), up to maxAttempts times, waiting a
// little longer, with jitter, after each failure.
func retrySerialization(ctx context.Context, fn func() error) error {
	wait := time.Millisecond
	for attempt := 1; ; attempt++ {
		err := fn()
		var pe *pgconn.PgError
		if err == nil || !errors.As(err, &pe) || (pe.Code != "40001" && pe.Code != "40P01") || attempt == maxAttempts {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait/2 + rand.N(wait)):
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}
