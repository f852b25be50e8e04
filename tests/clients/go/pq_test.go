package clients

import (
	"errors"
	"testing"

	"github.com/oklog/ulid/v2"

	"ulidclients/ulidsql"
)

// With binary_parameters=yes lib/pq sends a []byte parameter in the binary
// format, so ulid.ULID's 16-byte Value arrives as itself.
func TestLibPQBinaryParameters(t *testing.T) {
	db := open(t, "postgres", "binary_parameters=yes")
	mustExec(t, db, `CREATE TEMP TABLE t (n int, id ulid)`)
	ids := samples()
	for n, id := range ids {
		mustExec(t, db, `INSERT INTO t VALUES ($1, $2)`, n, id)
	}
	for n, id := range ids {
		var found int
		var text string
		err := db.QueryRowContext(ctx, `SELECT n, id::text FROM t WHERE id = $1`, id).Scan(&found, &text)
		if err != nil || found != n || text != id.String() {
			t.Errorf("WHERE id = %s: got %d %s, %v; want %d", id, found, text, err, n)
		}
	}
}

// Results come back as text, which lib/pq hands over as []byte; ulid.ULID's
// Scan takes any []byte for the 16 binary bytes.
func TestLibPQCannotScanIntoULID(t *testing.T) {
	for _, dsn := range []string{"", "binary_parameters=yes"} {
		db := open(t, "postgres", dsn)
		var id ulid.ULID
		err := db.QueryRowContext(ctx, `SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid`).Scan(&id)
		if !errors.Is(err, ulid.ErrDataSize) {
			t.Errorf("%q: got %s, %v; want %v", dsn, id, err, ulid.ErrDataSize)
		}
	}
}

// In its default mode lib/pq sends a []byte parameter as raw bytes in the
// text format. The server refuses them, never stores something else: 16
// bytes are not UTF-8 (22021) or, when they happen to be, not a ulid's text
// (22P02). id.String() is the workaround.
func TestLibPQDefaultModeRefusesULIDParameter(t *testing.T) {
	db := open(t, "postgres", "")
	mustExec(t, db, `CREATE TEMP TABLE t (id ulid)`)
	var printable ulid.ULID
	copy(printable[:], "ABCDEFGHIJKLMNOP")
	cases := []struct {
		id   ulid.ULID
		code string
	}{
		{known, "22021"}, // byte 0x94 is not UTF-8
		{ulid.ULID{}, "22021"},
		{printable, "22P02"}, // 16 characters of text
	}
	for _, c := range cases {
		_, err := db.ExecContext(ctx, `INSERT INTO t VALUES ($1)`, c.id)
		if code := sqlstate(err); code != c.code {
			t.Errorf("%s: got %v, want SQLSTATE %s", c.id, err, c.code)
		}
	}
	var count int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&count); err != nil || count != 0 {
		t.Fatalf("%d rows stored (%v), want none", count, err)
	}

	for _, c := range cases {
		mustExec(t, db, `INSERT INTO t VALUES ($1)`, c.id.String())
		var text string
		err := db.QueryRowContext(ctx, `SELECT id::text FROM t WHERE id = $1`, c.id.String()).Scan(&text)
		if err != nil || text != c.id.String() {
			t.Errorf("%s as a string: got %q, %v", c.id, text, err)
		}
	}
}

// The adapter works the same with every database/sql driver and mode.
func TestAdapterWithDatabaseSQL(t *testing.T) {
	drivers := []struct{ name, driver, dsn string }{
		{"pgx", "pgx", ""},
		{"pq", "postgres", ""},
		{"pq_binary_parameters", "postgres", "binary_parameters=yes"},
	}
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			db := open(t, d.driver, d.dsn)
			mustExec(t, db, `CREATE TEMP TABLE t (n int, id ulid)`)
			ids := samples()
			for n, id := range ids {
				mustExec(t, db, `INSERT INTO t VALUES ($1, $2)`, n, ulidsql.ULID{ULID: id})
			}
			rows, err := db.QueryContext(ctx, `SELECT n, id, id::text FROM t ORDER BY n`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			seen := 0
			for rows.Next() {
				var n int
				var id ulidsql.ULID
				var text string
				if err := rows.Scan(&n, &id, &text); err != nil {
					t.Fatal(err)
				}
				if id.ULID != ids[n] || text != ids[n].String() {
					t.Errorf("row %d: scanned %s, stored %s, sent %s", n, id, text, ids[n])
				}
				seen++
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if seen != len(ids) {
				t.Fatalf("read %d rows, inserted %d", seen, len(ids))
			}

			for n, id := range ids {
				var found int
				err := db.QueryRowContext(ctx, `SELECT n FROM t WHERE id = $1`, ulidsql.ULID{ULID: id}).Scan(&found)
				if err != nil || found != n {
					t.Errorf("WHERE id = %s: got %d, %v; want %d", id, found, err, n)
				}
			}

			// NULL: an error for *ULID, a nil pointer for **ULID
			var id ulidsql.ULID
			if err := db.QueryRowContext(ctx, `SELECT NULL::ulid`).Scan(&id); err == nil {
				t.Errorf("NULL scanned into a ULID without an error: %s", id)
			}
			nullable := &ulidsql.ULID{ULID: known}
			if err := db.QueryRowContext(ctx, `SELECT NULL::ulid`).Scan(&nullable); err != nil || nullable != nil {
				t.Errorf("NULL into a *ULID: got %v, %v", nullable, err)
			}
			if err := db.QueryRowContext(ctx, `SELECT $1::ulid`, known.String()).Scan(&nullable); err != nil || nullable == nil || nullable.ULID != known {
				t.Errorf("a value into a *ULID: got %v, %v", nullable, err)
			}
		})
	}
}
