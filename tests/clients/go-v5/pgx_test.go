package clients

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/oklog/ulid/v2"

	"ulidclients/ulidpgx5"
)

// newPool returns a pool whose connections register ulid as the README
// says: ulidpgx5.Register in AfterConnect.
func newPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	config, err := pgxpool.ParseConfig("")
	if err != nil {
		t.Fatal(err)
	}
	config.AfterConnect = ulidpgx5.Register
	pool, err := pgxpool.NewWithConfig(ctx, config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func mustExec(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := pool.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// freshTable (re)creates a table for one test.
func freshTable(t *testing.T, pool *pgxpool.Pool, name, columns string) {
	t.Helper()
	mustExec(t, pool, `DROP TABLE IF EXISTS `+name)
	mustExec(t, pool, `CREATE TABLE `+name+` (`+columns+`)`)
}

// Register finds both OIDs by name, as the server assigned them to this
// database, and says what is wrong when the type is not there.
func TestPgxRegisterLooksUpOIDs(t *testing.T) {
	conn, err := pgx.Connect(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	// what the README explains: pgx cannot load a base type by itself
	if _, err := conn.LoadType(ctx, "ulid"); err == nil {
		t.Error("conn.LoadType(ulid) now works: the README's note on Register is out of date")
	}

	if err := ulidpgx5.Register(ctx, conn); err != nil {
		t.Fatal(err)
	}
	var oid, arrayOID uint32
	if err := conn.QueryRow(ctx, `SELECT 'ulid'::regtype::oid, 'ulid[]'::regtype::oid`).Scan(&oid, &arrayOID); err != nil {
		t.Fatal(err)
	}
	m := conn.TypeMap()
	if typ, ok := m.TypeForName("ulid"); !ok || typ.OID != oid {
		t.Errorf("ulid registered as %+v, want OID %d", typ, oid)
	}
	if typ, ok := m.TypeForName("_ulid"); !ok || typ.OID != arrayOID {
		t.Errorf("_ulid registered as %+v, want OID %d", typ, arrayOID)
	}
	// binary both ways: the preferred format, and exactly the 16 bytes
	if f := m.FormatCodeForOID(oid); f != pgtype.BinaryFormatCode {
		t.Errorf("ulid's format code %d, want binary", f)
	}
	encoded, err := m.Encode(oid, pgtype.BinaryFormatCode, known, nil)
	if err != nil || !bytes.Equal(encoded, known[:]) {
		t.Errorf("binary encoding of %s: %x, %v", known, encoded, err)
	}

	if _, err := conn.Exec(ctx, `SET search_path TO pg_catalog`); err != nil {
		t.Fatal(err)
	}
	err = ulidpgx5.Register(ctx, conn)
	if err == nil || !strings.Contains(err.Error(), "CREATE EXTENSION ulid") {
		t.Errorf("Register without ulid on the search_path: %v", err)
	}
}

// What the README says pgx v5 does with no codec registered: a ulid.ULID
// goes as `\x` and hex text and scans from the text result, but ulid[]
// does not scan into a slice.
func TestPgxWithoutRegister(t *testing.T) {
	conn, err := pgx.Connect(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, id := range samples() {
		var back ulid.ULID
		var text string
		if err := conn.QueryRow(ctx, `SELECT $1::ulid, $1::ulid::text`, id).Scan(&back, &text); err != nil {
			t.Fatal(err)
		}
		if back != id || text != id.String() {
			t.Errorf("%s came back as %s and %s", id, back, text)
		}
	}
	var ids []ulid.ULID
	if err := conn.QueryRow(ctx, `SELECT ARRAY[$1::ulid]`, known).Scan(&ids); err == nil {
		t.Errorf("ulid[] scanned into []ulid.ULID without the codec (%v): the README is out of date", ids)
	}
}

// A gen_monotonic_ulid() default primary key comes back filled from
// RETURNING, and each row is found again by its id, whichever Go form the
// id is given in.
func TestPgxDefaultPrimaryKey(t *testing.T) {
	pool := newPool(t)
	freshTable(t, pool, "pgx_orders", `id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), n int NOT NULL`)

	rows, err := pool.Query(ctx, `INSERT INTO pgx_orders (n) SELECT generate_series(0, 49) RETURNING id, n`)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ulid.ULID, error) {
		var id ulid.ULID
		var n int
		err := row.Scan(&id, &n)
		if err == nil && row.FieldDescriptions()[0].Format != pgtype.BinaryFormatCode {
			t.Errorf("the id came back in format %d, not binary", row.FieldDescriptions()[0].Format)
		}
		return id, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 50 {
		t.Fatalf("RETURNING gave %d rows, want 50", len(ids))
	}
	for i, id := range ids {
		if id == (ulid.ULID{}) {
			t.Fatalf("row %d: the id came back zero", i)
		}
		recent(t, id)
		if i > 0 && id.Compare(ids[i-1]) <= 0 {
			t.Errorf("row %d: %s does not follow %s", i, id, ids[i-1])
		}
	}

	for n, id := range ids {
		for form, arg := range map[string]any{
			"ulid.ULID":  id,
			"*ulid.ULID": &id,
			"[16]byte":   [16]byte(id),
			"string":     id.String(),
		} {
			var got int
			if err := pool.QueryRow(ctx, `SELECT n FROM pgx_orders WHERE id = $1`, arg).Scan(&got); err != nil || got != n {
				t.Errorf("WHERE id = %s as %s: got %d, %v; want %d", id, form, got, err, n)
			}
		}
	}
}

// oklog ULIDs go in and come out byte for byte: the server stores the bytes
// sent (id::bytea) and prints oklog's text (id::text); results scan into
// ulid.ULID, [16]byte and string in binary and in text.
func TestPgxRoundTripsOklogULIDs(t *testing.T) {
	pool := newPool(t)
	freshTable(t, pool, "pgx_values", `n int PRIMARY KEY, id ulid NOT NULL`)
	ids := samples()
	batch := &pgx.Batch{}
	for n, id := range ids {
		batch.Queue(`INSERT INTO pgx_values VALUES ($1, $2)`, n, id)
	}
	if err := pool.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}

	for n, id := range ids {
		var raw []byte
		var text string
		if err := pool.QueryRow(ctx, `SELECT id::bytea, id::text FROM pgx_values WHERE n = $1`, n).Scan(&raw, &text); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(raw, id[:]) || text != id.String() {
			t.Errorf("row %d: stored %x %s, sent %x %s", n, raw, text, id[:], id)
		}
	}

	for name, format := range map[string]int16{"binary": pgtype.BinaryFormatCode, "text": pgtype.TextFormatCode} {
		t.Run(name, func(t *testing.T) {
			formats := pgx.QueryResultFormats{format, format, format, format}
			rows, err := pool.Query(ctx, `SELECT n, id, id, id FROM pgx_values ORDER BY n`, formats)
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for rows.Next() {
				var n int
				var id ulid.ULID
				var array [16]byte
				var text string
				if err := rows.Scan(&n, &id, &array, &text); err != nil {
					t.Fatal(err)
				}
				if got := rows.FieldDescriptions()[1].Format; got != format {
					t.Fatalf("result format %d, asked for %d", got, format)
				}
				want := ids[n]
				if id != want || array != [16]byte(want) || text != want.String() {
					t.Errorf("row %d: scanned %s, %x, %q; want %s", n, id, array, text, want)
				}
				seen++
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if seen != len(ids) {
				t.Fatalf("read %d rows, want %d", seen, len(ids))
			}
		})
	}

	// rows.Values() gives ulid.ULID values
	values, err := pool.Query(ctx, `SELECT id FROM pgx_values ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(values, func(row pgx.CollectableRow) (any, error) {
		v, err := row.Values()
		return v[0], err
	})
	if err != nil {
		t.Fatal(err)
	}
	for n, v := range got {
		if id, ok := v.(ulid.ULID); !ok || id != ids[n] {
			t.Errorf("Values() of row %d: %T %v, want %s", n, v, v, ids[n])
		}
	}

	// the simple protocol sends and reads text
	for _, id := range ids {
		var back ulid.ULID
		err := pool.QueryRow(ctx, `SELECT $1::ulid`, pgx.QueryExecModeSimpleProtocol, id).Scan(&back)
		if err != nil || back != id {
			t.Errorf("simple protocol: %s came back as %s, %v", id, back, err)
		}
	}
}

// pgx's CopyFrom sends every column in binary: ulid columns too.
func TestPgxCopyFrom(t *testing.T) {
	pool := newPool(t)
	freshTable(t, pool, "pgx_copied", `n int PRIMARY KEY, id ulid, ids ulid[]`)
	ids := samples()
	rows := make([][]any, len(ids))
	for n, id := range ids {
		rows[n] = []any{n, id, []ulid.ULID{id, known}}
	}
	copied, err := pool.CopyFrom(ctx, pgx.Identifier{"pgx_copied"}, []string{"n", "id", "ids"}, pgx.CopyFromRows(rows))
	if err != nil || copied != int64(len(ids)) {
		t.Fatalf("CopyFrom: %d rows, %v", copied, err)
	}
	for n, id := range ids {
		var text string
		var first ulid.ULID
		if err := pool.QueryRow(ctx, `SELECT id::text, ids[1] FROM pgx_copied WHERE n = $1 AND ids[2] = $2`, n, known).Scan(&text, &first); err != nil {
			t.Fatal(err)
		}
		if text != id.String() || first != id {
			t.Errorf("row %d: copied %s and %s, sent %s", n, text, first, id)
		}
	}
}

// Range queries on the time in the id, with timestamptz::ulid bounds: the
// server's bound is oklog's, and the range is half-open on the millisecond.
func TestPgxTimeRange(t *testing.T) {
	pool := newPool(t)
	freshTable(t, pool, "pgx_events", `id ulid PRIMARY KEY, hour int NOT NULL`)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	// 24 hours, four events each: on the hour, a millisecond before the
	// next, and two between
	mustExec(t, pool, `INSERT INTO pgx_events
		SELECT gen_ulid($1::timestamptz + h * interval '1 hour' + o), h
		FROM generate_series(0, 23) h,
		     unnest(ARRAY[interval '0', interval '1 minute', interval '59 minutes', interval '1 hour' - interval '1 millisecond']) o`, base)

	for _, tc := range []struct{ from, to, want int }{{0, 24, 96}, {3, 4, 4}, {5, 9, 16}, {23, 24, 4}, {7, 7, 0}} {
		start := base.Add(time.Duration(tc.from) * time.Hour)
		end := base.Add(time.Duration(tc.to) * time.Hour)
		var lower ulid.ULID
		if err := pool.QueryRow(ctx, `SELECT $1::timestamptz::ulid`, start).Scan(&lower); err != nil {
			t.Fatal(err)
		}
		if lower != floor(start) {
			t.Errorf("%v::ulid is %s, oklog's bound %s", start, lower, floor(start))
		}

		rows, err := pool.Query(ctx, `SELECT id, hour FROM pgx_events
			WHERE id >= $1::timestamptz::ulid AND id < $2::timestamptz::ulid ORDER BY id`, start, end)
		if err != nil {
			t.Fatal(err)
		}
		count := 0
		for rows.Next() {
			var id ulid.ULID
			var hour int
			if err := rows.Scan(&id, &hour); err != nil {
				t.Fatal(err)
			}
			if at := ulid.Time(id.Time()); hour < tc.from || hour >= tc.to || at.Before(start) || !at.Before(end) {
				t.Errorf("[%d h, %d h): got %s from hour %d at %v", tc.from, tc.to, id, hour, at)
			}
			count++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if count != tc.want {
			t.Errorf("[%d h, %d h): %d rows, want %d", tc.from, tc.to, count, tc.want)
		}

		// the same bounds made by oklog, sent as ulid parameters
		var again int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pgx_events WHERE id >= $1 AND id < $2`,
			floor(start), floor(end)).Scan(&again); err != nil || again != tc.want {
			t.Errorf("[%d h, %d h) with oklog bounds: %d rows, %v; want %d", tc.from, tc.to, again, err, tc.want)
		}
	}
}

// ulid[] to and from []ulid.ULID, []string and []*ulid.ULID (NULL
// elements), in binary and text; ANY($1) with a slice.
func TestPgxArrays(t *testing.T) {
	pool := newPool(t)
	freshTable(t, pool, "pgx_arrays", `n int PRIMARY KEY, ids ulid[]`)
	ids := samples()
	withNull := []*ulid.ULID{&ids[0], nil, &ids[2]}
	mustExec(t, pool, `INSERT INTO pgx_arrays VALUES (1, $1), (2, $2), (3, $3), (4, $4)`,
		ids, []ulid.ULID{}, nil, withNull)

	var stored []string
	if err := pool.QueryRow(ctx, `SELECT ids::text[] FROM pgx_arrays WHERE n = 1`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if stored[i] != id.String() {
			t.Fatalf("element %d: stored %s, sent %s", i, stored[i], id)
		}
	}

	for name, format := range map[string]int16{"binary": pgtype.BinaryFormatCode, "text": pgtype.TextFormatCode} {
		t.Run(name, func(t *testing.T) {
			formats := pgx.QueryResultFormats{format}
			var back []ulid.ULID
			var texts []string
			if err := pool.QueryRow(ctx, `SELECT ids FROM pgx_arrays WHERE n = 1`, formats).Scan(&back); err != nil {
				t.Fatal(err)
			}
			if err := pool.QueryRow(ctx, `SELECT ids FROM pgx_arrays WHERE n = 1`, formats).Scan(&texts); err != nil {
				t.Fatal(err)
			}
			if len(back) != len(ids) || len(texts) != len(ids) {
				t.Fatalf("read %d and %d elements, want %d", len(back), len(texts), len(ids))
			}
			for i, id := range ids {
				if back[i] != id || texts[i] != id.String() {
					t.Errorf("element %d: %s and %s, want %s", i, back[i], texts[i], id)
				}
			}

			var empty, null []ulid.ULID
			if err := pool.QueryRow(ctx, `SELECT (SELECT ids FROM pgx_arrays WHERE n = 2), (SELECT ids FROM pgx_arrays WHERE n = 3)`,
				pgx.QueryResultFormats{format, format}).Scan(&empty, &null); err != nil {
				t.Fatal(err)
			}
			if empty == nil || len(empty) != 0 || null != nil {
				t.Errorf("'{}' scanned as %#v, NULL as %#v", empty, null)
			}

			var pointers []*ulid.ULID
			if err := pool.QueryRow(ctx, `SELECT ids FROM pgx_arrays WHERE n = 4`, formats).Scan(&pointers); err != nil {
				t.Fatal(err)
			}
			if len(pointers) != 3 || pointers[0] == nil || *pointers[0] != ids[0] || pointers[1] != nil || pointers[2] == nil || *pointers[2] != ids[2] {
				t.Errorf("{%s,NULL,%s} scanned as %v", ids[0], ids[2], pointers)
			}
			var noNulls []ulid.ULID
			if err := pool.QueryRow(ctx, `SELECT ids FROM pgx_arrays WHERE n = 4`, formats).Scan(&noNulls); err == nil {
				t.Errorf("a NULL element scanned into a ulid.ULID: %v", noNulls)
			}
		})
	}

	// a slice parameter for = ANY
	var count int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pgx_arrays, unnest(ids) AS u (id) WHERE n = 1 AND id = ANY($1)`,
		ids[:7]).Scan(&count); err != nil || count != 7 {
		t.Errorf("= ANY($1) with 7 ids: %d, %v", count, err)
	}
	// strings in a ulid[] parameter: ULIDs go in binary, other spellings
	// make pgx send the array as text, and bad ones are the server's error
	for _, texts := range [][]string{
		{known.String(), strings.ToLower(largest.String())},
		{known.String(), "ffffffff-ffff-ffff-ffff-ffffffffffff"},
	} {
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM unnest($1::ulid[]) AS u (id) WHERE id IN ($2, $3)`,
			texts, known, largest).Scan(&count); err != nil || count != 2 {
			t.Errorf("%q for ulid[]: %d, %v", texts, count, err)
		}
	}
	_, err := pool.Exec(ctx, `SELECT $1::ulid[]`, []string{known.String(), "01JGFJJZ00XHF7E02JJ03AE4TU"})
	if code := sqlstate(err); code != "22P02" {
		t.Errorf("a bad string in a ulid[] parameter: %v, want SQLSTATE 22P02", err)
	}
}

// NULL comes back as a nil pointer, is an error for a plain ulid.ULID, and
// a nil pointer is sent as NULL.
func TestPgxNulls(t *testing.T) {
	pool := newPool(t)
	freshTable(t, pool, "pgx_nulls", `n int PRIMARY KEY, id ulid`)
	var missing *ulid.ULID
	mustExec(t, pool, `INSERT INTO pgx_nulls VALUES (1, $1), (2, $2)`, missing, &known)

	for name, format := range map[string]int16{"binary": pgtype.BinaryFormatCode, "text": pgtype.TextFormatCode} {
		t.Run(name, func(t *testing.T) {
			formats := pgx.QueryResultFormats{format}
			var null, present *ulid.ULID
			err := pool.QueryRow(ctx, `SELECT (SELECT id FROM pgx_nulls WHERE n = 1), (SELECT id FROM pgx_nulls WHERE n = 2)`,
				pgx.QueryResultFormats{format, format}).Scan(&null, &present)
			if err != nil || null != nil || present == nil || *present != known {
				t.Errorf("NULL and %s scanned as %v and %v (%v)", known, null, present, err)
			}
			var plain ulid.ULID
			if err := pool.QueryRow(ctx, `SELECT id FROM pgx_nulls WHERE n = 1`, formats).Scan(&plain); err == nil {
				t.Errorf("NULL scanned into a ulid.ULID without an error: %s", plain)
			}
			var text *string
			if err := pool.QueryRow(ctx, `SELECT id FROM pgx_nulls WHERE n = 1`, formats).Scan(&text); err != nil || text != nil {
				t.Errorf("NULL scanned into a *string: %v, %v", text, err)
			}
		})
	}
	var isNull bool
	if err := pool.QueryRow(ctx, `SELECT id IS NULL FROM pgx_nulls WHERE n = 1`).Scan(&isNull); err != nil || !isNull {
		t.Errorf("a nil *ulid.ULID was stored as a value (%v)", err)
	}
}

// Bad text reaches the application as a *pgconn.PgError with SQLSTATE
// 22P02, from the server, whether read or stored; the other spellings the
// server reads (UUID text, \x and hex) are accepted.
func TestPgxBadInput(t *testing.T) {
	pool := newPool(t)
	freshTable(t, pool, "pgx_bad", `id ulid PRIMARY KEY`)
	for _, bad := range badText {
		var id ulid.ULID
		err := pool.QueryRow(ctx, `SELECT $1::ulid`, bad).Scan(&id)
		if code := sqlstate(err); code != "22P02" {
			t.Errorf("SELECT %q: %v, want SQLSTATE 22P02", bad, err)
		}
		_, err = pool.Exec(ctx, `INSERT INTO pgx_bad VALUES ($1)`, bad)
		if code := sqlstate(err); code != "22P02" || !strings.Contains(err.Error(), "invalid input syntax for type ulid") {
			t.Errorf("INSERT %q: %v, want SQLSTATE 22P02", bad, err)
		}
	}
	var count int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pgx_bad`).Scan(&count); err != nil || count != 0 {
		t.Errorf("%d rows after bad inserts (%v)", count, err)
	}

	for _, good := range []string{
		"01941f29-7c00-ec5e-7700-529006a71347",
		`\x01941f297c00ec5e7700529006a71347`,
		strings.ToLower(known.String()),
	} {
		var id ulid.ULID
		if err := pool.QueryRow(ctx, `SELECT $1::ulid`, good).Scan(&id); err != nil || id != known {
			t.Errorf("%q read as %s, %v; want %s", good, id, err, known)
		}
	}
}
