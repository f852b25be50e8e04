// Go clients on pgx v5 and GORM against a server with the ulid extension,
// through the adapters users copy: examples/go/ulidpgx5 (a pgx v5 codec)
// and examples/go/ulidgorm (a GORM field type), with oklog/ulid v2 as the
// application's ULID.
//
// ../test_client_go_v5.py builds these in module mode from the pinned
// sources scripts/setup-go unpacks (no module proxy), with this directory
// and the adapters linked into one module, and runs them against a fresh
// database given by the usual PGHOST, PGPORT, PGUSER and PGDATABASE.
package clients

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/oklog/ulid/v2"
)

var ctx = context.Background()

// The README's example (2025-01-01 00:00:00 UTC) and the largest ULID.
var (
	known   = ulid.MustParse("01JGFJJZ00XHF7E02JJ03AE4T7")
	largest = ulid.MustParse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ")
)

// Strings the server refuses as a ulid, with SQLSTATE 22P02.
var badText = []string{
	"01JGFJJZ00XHF7E02JJ03AE4TU",          // U is not Crockford base32
	"80000000000000000000000000",          // above 128 bits
	"01JGFJJZ00XHF7E02JJ03AE4T",           // 25 characters
	`\x01941f297c00ec5e7700529006a7134g`,  // not hex
	"01941f29-7c00-ec5e-7700-529006a7134", // a UUID one digit short
	"",
}

func TestMain(m *testing.M) {
	// Refuse to guess a database: the tests create tables.
	if os.Getenv("PGDATABASE") == "" {
		fmt.Fprintln(os.Stderr, "set PGHOST, PGPORT, PGUSER and PGDATABASE to a database with the ulid extension")
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// samples returns the smallest and the largest ULID, the README's, and
// fresh ones from oklog/ulid, a monotonic run among them.
func samples() []ulid.ULID {
	ids := []ulid.ULID{{}, largest, known}
	entropy := ulid.Monotonic(rand.Reader, 0)
	ms := ulid.Now()
	for i := 0; i < 40; i++ {
		ids = append(ids, ulid.MustNew(ms, entropy))
	}
	for i := 0; i < 10; i++ {
		ids = append(ids, ulid.MustNew(ulid.Timestamp(time.Now().Add(-time.Duration(i)*time.Hour)), rand.Reader))
	}
	return ids
}

// floor is the smallest ULID of t's millisecond, made by oklog: what the
// server's t::ulid gives.
func floor(t time.Time) ulid.ULID {
	var id ulid.ULID
	if err := id.SetTime(ulid.Timestamp(t)); err != nil {
		panic(err)
	}
	return id
}

// sqlstate returns the SQLSTATE of the *pgconn.PgError in err's chain, or "".
func sqlstate(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// recent fails unless id's time is within a minute of now (the server runs
// on this machine).
func recent(t *testing.T, id ulid.ULID) {
	t.Helper()
	if d := time.Since(ulid.Time(id.Time())); d < -time.Minute || d > time.Minute {
		t.Errorf("%s is from %v, not now", id, ulid.Time(id.Time()))
	}
}
