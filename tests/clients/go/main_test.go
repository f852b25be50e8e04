// Go clients against a server with the ulid extension: pgx v4 (native and
// database/sql), lib/pq, and oklog/ulid v2 as the application's ULID type,
// plus the adapter in examples/go/ulidsql.
//
// ../test_client_go.py builds these in GOPATH mode (no module proxy is
// needed), with this directory and examples/go/ulidsql linked into one
// package tree, and runs them against a fresh database given by the usual
// PGHOST, PGPORT, PGUSER and PGDATABASE variables.
package clients

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgx/v4"
	_ "github.com/jackc/pgx/v4/stdlib" // database/sql driver "pgx"
	"github.com/lib/pq"                // database/sql driver "postgres"
	"github.com/oklog/ulid/v2"
)

var ctx = context.Background()

// The README's example: 2025-01-01 00:00:00 UTC, and its 16 bytes as pgx
// sends them (a bytea's text form).
var (
	known    = ulid.MustParse("01JGFJJZ00XHF7E02JJ03AE4T7")
	knownHex = `\x01941f297c00ec5e7700529006a71347`
	largest  = ulid.MustParse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ")
)

func TestMain(m *testing.M) {
	// Refuse to guess a database: the tests create tables.
	if os.Getenv("PGDATABASE") == "" {
		fmt.Fprintln(os.Stderr, "set PGHOST, PGPORT, PGUSER and PGDATABASE to a database with the ulid extension")
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// samples returns the smallest and the largest ULID, the README's, and
// fresh ones from oklog/ulid.
func samples() []ulid.ULID {
	ids := []ulid.ULID{{}, largest, known}
	for i := 0; i < 50; i++ {
		ids = append(ids, ulid.MustNew(ulid.Now(), rand.Reader))
	}
	return ids
}

func connect(t *testing.T) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// open returns a database/sql handle holding one connection, so that
// temporary tables outlive a statement.
func open(t *testing.T, driverName, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

func mustExec(t *testing.T, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, query string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(ctx, query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// sqlstate returns the SQLSTATE of an error from either driver, or "".
func sqlstate(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		return string(pqErr.Code)
	}
	return ""
}
