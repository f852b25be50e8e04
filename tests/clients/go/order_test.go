package clients

import (
	"crypto/rand"
	"math/big"
	mrand "math/rand"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v4"
	"github.com/oklog/ulid/v2"
)

// Values from a Monotonic entropy source, many within one millisecond, come
// back from ORDER BY id in the order they were made, whatever the order of
// insertion.
func TestMonotonicValuesKeepTheirOrder(t *testing.T) {
	conn := connect(t)
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE t (n int, id ulid)`); err != nil {
		t.Fatal(err)
	}
	entropy := ulid.Monotonic(rand.Reader, 0)
	start := ulid.Now()
	ids := make([]ulid.ULID, 1000)
	for i := range ids {
		ids[i] = ulid.MustNew(start+uint64(i/100), entropy) // 100 per millisecond
		if i > 0 && ids[i].Compare(ids[i-1]) <= 0 {
			t.Fatalf("oklog made %s after %s", ids[i], ids[i-1])
		}
	}

	batch := &pgx.Batch{}
	for _, n := range mrand.Perm(len(ids)) {
		batch.Queue(`INSERT INTO t VALUES ($1, $2)`, n, ids[n])
	}
	if err := conn.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}

	rows, err := conn.Query(ctx, `SELECT n, id, ulid_timestamp(id) FROM t ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for rows.Next() {
		var n int
		var id ulid.ULID
		var ts time.Time
		if err := rows.Scan(&n, &id, &ts); err != nil {
			t.Fatal(err)
		}
		if n != i || id != ids[i] {
			t.Fatalf("position %d: row %d (%s), want row %d (%s)", i, n, id, i, ids[i])
		}
		if !ts.Equal(ulid.Time(id.Time())) {
			t.Errorf("%s: ulid_timestamp %v, oklog %v", id, ts, ulid.Time(id.Time()))
		}
		i++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(ids) {
		t.Fatalf("read %d rows, inserted %d", i, len(ids))
	}
}

// Over the whole range of times, ORDER BY id, min and max agree with
// oklog's Compare, and ulid_timestamp with oklog's Time.
func TestOrderAndTimeAgreeWithOklog(t *testing.T) {
	conn := connect(t)
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE t (id ulid)`); err != nil {
		t.Fatal(err)
	}
	ids := samples()
	limit := new(big.Int).SetUint64(ulid.MaxTime() + 1)
	for i := 0; i < 500; i++ {
		ms, err := rand.Int(rand.Reader, limit)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ulid.MustNew(ms.Uint64(), rand.Reader))
	}
	// the same millisecond twice, differing only in the random part
	ids = append(ids, ulid.MustNew(known.Time(), rand.Reader), ulid.MustNew(known.Time(), rand.Reader))
	batch := &pgx.Batch{}
	for _, id := range ids {
		batch.Queue(`INSERT INTO t VALUES ($1)`, id)
	}
	if err := conn.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].Compare(ids[j]) < 0 })

	rows, err := conn.Query(ctx, `SELECT id, ulid_timestamp(id) FROM t ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for rows.Next() {
		var id ulid.ULID
		var ts time.Time
		if err := rows.Scan(&id, &ts); err != nil {
			t.Fatal(err)
		}
		if id != ids[i] {
			t.Fatalf("position %d: server has %s, oklog %s", i, id, ids[i])
		}
		if !ts.Equal(ulid.Time(id.Time())) {
			t.Errorf("%s: ulid_timestamp %v, oklog %v", id, ts, ulid.Time(id.Time()))
		}
		i++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(ids) {
		t.Fatalf("read %d rows, inserted %d", i, len(ids))
	}

	var lo, hi ulid.ULID
	if err := conn.QueryRow(ctx, `SELECT min(id), max(id) FROM t`).Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	if lo != (ulid.ULID{}) || hi != largest {
		t.Errorf("min %s, max %s", lo, hi)
	}
	var last time.Time
	if err := conn.QueryRow(ctx, `SELECT ulid_timestamp($1)`, largest).Scan(&last); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(10889, 8, 2, 5, 31, 50, 655e6, time.UTC); !last.Equal(want) || !ulid.Time(largest.Time()).Equal(want) {
		t.Errorf("largest ULID's time: server %v, oklog %v, want %v", last, ulid.Time(largest.Time()), want)
	}
}
