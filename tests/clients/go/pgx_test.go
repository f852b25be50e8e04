package clients

import (
	"bytes"
	"testing"
	"time"

	"github.com/jackc/pgx/v4"
	"github.com/oklog/ulid/v2"

	"ulidclients/ulidsql"
)

// pgx sends a ulid.ULID through its driver.Valuer, as a bytea's text
// (`\x` and 32 hex digits), which the server reads as those 16 bytes; the
// 36-character UUID form is read the same way.
func TestServerReadsByteaAndUUIDText(t *testing.T) {
	conn := connect(t)
	var fromHex, fromUUID string
	err := conn.QueryRow(ctx, `SELECT $1::ulid::text, $2::ulid::text`,
		knownHex, "01941f29-7c00-ec5e-7700-529006a71347").Scan(&fromHex, &fromUUID)
	if err != nil {
		t.Fatal(err)
	}
	if fromHex != known.String() || fromUUID != known.String() {
		t.Fatalf("got %s and %s, want %s", fromHex, fromUUID, known)
	}
	for _, bad := range []string{
		`\x01941f297c00ec5e7700529006a7134`,    // 31 digits
		`\x01941f297c00ec5e7700529006a7134700`, // 34 digits
		`\x01941f297c00ec5e7700529006a7134g`,   // not hex
		"01JGFJJZ00XHF7E02JJ03AE4TU",           // U is not Crockford base32
		"80000000000000000000000000",           // above 128 bits
		"01JGFJJZ00XHF7E02JJ03AE4T",            // 25 characters
	} {
		var s string
		err := conn.QueryRow(ctx, `SELECT $1::ulid::text`, bad).Scan(&s)
		if code := sqlstate(err); code != "22P02" {
			t.Errorf("%q: got %q (%v), want SQLSTATE 22P02", bad, s, err)
		}
	}
}

func TestPgxULIDParameter(t *testing.T) {
	conn := connect(t)
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE t (n int, id ulid)`); err != nil {
		t.Fatal(err)
	}
	ids := samples()
	for n, id := range ids {
		if _, err := conn.Exec(ctx, `INSERT INTO t VALUES ($1, $2)`, n, id); err != nil {
			t.Fatalf("insert %s: %v", id, err)
		}
	}

	rows, err := conn.Query(ctx, `SELECT n, id::text, id::bytea, ulid_timestamp(id) FROM t ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for rows.Next() {
		var n int
		var text string
		var raw []byte
		var ts time.Time
		if err := rows.Scan(&n, &text, &raw, &ts); err != nil {
			t.Fatal(err)
		}
		id := ids[n]
		if text != id.String() || !bytes.Equal(raw, id[:]) {
			t.Errorf("row %d: stored %s %x, sent %s", n, text, raw, id)
		}
		if !ts.Equal(ulid.Time(id.Time())) {
			t.Errorf("row %d: ulid_timestamp %v, oklog %v", n, ts, ulid.Time(id.Time()))
		}
		seen++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if seen != len(ids) {
		t.Fatalf("read %d rows, inserted %d", seen, len(ids))
	}

	// a ulid.ULID compares as a ulid in a WHERE clause
	for n, id := range ids {
		var found int
		if err := conn.QueryRow(ctx, `SELECT n FROM t WHERE id = $1`, id).Scan(&found); err != nil || found != n {
			t.Errorf("WHERE id = %s: got %d, %v; want %d", id, found, err, n)
		}
	}
}

// pgx hands a sql.Scanner the text as a string and the binary value as its
// 16 bytes: ulid.ULID and the adapter take both.
func TestPgxScansTextAndBinaryResults(t *testing.T) {
	conn := connect(t)
	ids := samples()
	texts := make([]string, len(ids))
	for i, id := range ids {
		texts[i] = id.String()
	}
	query := `SELECT v::ulid, v::ulid FROM unnest($1::text[]) WITH ORDINALITY AS u (v, n) ORDER BY n`
	formats := map[string]pgx.QueryResultFormats{
		"text":   {pgx.TextFormatCode, pgx.TextFormatCode},
		"binary": {pgx.BinaryFormatCode, pgx.BinaryFormatCode},
	}
	for name, format := range formats {
		t.Run(name, func(t *testing.T) {
			rows, err := conn.Query(ctx, query, format, texts)
			if err != nil {
				t.Fatal(err)
			}
			i := 0
			for rows.Next() {
				var plain ulid.ULID
				var wrapped ulidsql.ULID
				if err := rows.Scan(&plain, &wrapped); err != nil {
					t.Fatal(err)
				}
				if rows.FieldDescriptions()[0].Format != format[0] {
					t.Fatalf("result format %d, asked for %d", rows.FieldDescriptions()[0].Format, format[0])
				}
				if plain != ids[i] || wrapped.ULID != ids[i] {
					t.Errorf("row %d: scanned %s and %s, want %s", i, plain, wrapped, ids[i])
				}
				i++
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if i != len(ids) {
				t.Fatalf("read %d rows, want %d", i, len(ids))
			}
		})
	}
}

// pgx's database/sql driver: ulid.ULID works both ways, as with native pgx.
func TestPgxDatabaseSQL(t *testing.T) {
	db := open(t, "pgx", "")
	mustExec(t, db, `CREATE TEMP TABLE t (n int, id ulid)`)
	ids := samples()
	for n, id := range ids {
		mustExec(t, db, `INSERT INTO t VALUES ($1, $2)`, n, id)
	}
	rows, err := db.QueryContext(ctx, `SELECT n, id, id::text FROM t ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var n int
		var id ulid.ULID
		var text string
		if err := rows.Scan(&n, &id, &text); err != nil {
			t.Fatal(err)
		}
		if id != ids[n] || text != ids[n].String() {
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
}
