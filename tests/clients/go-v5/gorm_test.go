package clients

import (
	"bytes"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"ulidclients/ulidgorm"
)

// The README's GORM model.
type Order struct {
	ID     ulidgorm.ULID `gorm:"primaryKey;default:gen_monotonic_ulid()"`
	Note   string
	Ref    ulidgorm.ULID  // set by the application, zero included
	Parent *ulidgorm.ULID // nullable
	Tags   ulidgorm.ULIDs // ulid[]
}

// openGorm opens GORM's postgres driver, as GORM documents it, on the
// database the environment names, with the orders table migrated and empty.
func openGorm(t *testing.T) *gorm.DB {
	t.Helper()
	db, err := gorm.Open(postgres.Open(""), &gorm.Config{Logger: logger.Default.LogMode(logger.Silent)})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlDB.Close() })
	if err := db.AutoMigrate(&Order{}); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(`TRUNCATE orders`).Error; err != nil {
		t.Fatal(err)
	}
	return db
}

// AutoMigrate creates ulid and ulid[] columns, the primary key with its
// server default, and runs again on the table it made without changing it.
func TestGormAutoMigrate(t *testing.T) {
	db := openGorm(t)
	describe := func() map[string]string {
		rows, err := db.Raw(`SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
			       coalesce(pg_get_expr(d.adbin, d.adrelid), '')
			FROM pg_attribute a LEFT JOIN pg_attrdef d ON (d.adrelid, d.adnum) = (a.attrelid, a.attnum)
			WHERE a.attrelid = 'orders'::regclass AND a.attnum > 0 AND NOT a.attisdropped`).Rows()
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		columns := map[string]string{}
		for rows.Next() {
			var name, typ, def string
			var notNull bool
			if err := rows.Scan(&name, &typ, &notNull, &def); err != nil {
				t.Fatal(err)
			}
			desc := typ
			if notNull {
				desc += " not null"
			}
			if def != "" {
				desc += " default " + def
			}
			columns[name] = desc
		}
		return columns
	}
	want := map[string]string{
		"id":     "ulid not null default gen_monotonic_ulid()",
		"note":   "text",
		"ref":    "ulid",
		"parent": "ulid",
		"tags":   "ulid[]",
	}
	got := describe()
	for name, desc := range want {
		if got[name] != desc {
			t.Errorf("column %s: %q, want %q", name, got[name], desc)
		}
	}
	if len(got) != len(want) {
		t.Errorf("columns %v, want %v", got, want)
	}
	var primaryKey string
	if err := db.Raw(`SELECT string_agg(a.attname, ',') FROM pg_index i
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
		WHERE i.indrelid = 'orders'::regclass AND i.indisprimary`).Scan(&primaryKey).Error; err != nil || primaryKey != "id" {
		t.Errorf("primary key %q, want id (%v)", primaryKey, err)
	}

	if err := db.AutoMigrate(&Order{}); err != nil {
		t.Fatalf("a second AutoMigrate: %v", err)
	}
	if again := describe(); len(again) != len(got) {
		t.Errorf("a second AutoMigrate changed the table: %v, then %v", got, again)
	} else {
		for name, desc := range got {
			if again[name] != desc {
				t.Errorf("a second AutoMigrate changed %s: %q to %q", name, desc, again[name])
			}
		}
	}
}

// Create leaves the id to gen_monotonic_ulid() and reads it back; First
// finds each order by its id.
func TestGormCreateFillsID(t *testing.T) {
	db := openGorm(t)
	one := Order{Note: "one"}
	if err := db.Create(&one).Error; err != nil {
		t.Fatal(err)
	}
	if one.ID == (ulidgorm.ULID{}) {
		t.Fatal("Create left the id zero")
	}
	recent(t, one.ID.ULID)

	batch := make([]Order, 30)
	for i := range batch {
		batch[i].Note = strings.Repeat("x", i)
	}
	if err := db.Create(&batch).Error; err != nil {
		t.Fatal(err)
	}
	for i, o := range batch {
		if o.ID == (ulidgorm.ULID{}) {
			t.Fatalf("batch row %d: id left zero", i)
		}
		if i > 0 && o.ID.Compare(batch[i-1].ID.ULID) <= 0 {
			t.Errorf("batch row %d: %s does not follow %s", i, o.ID, batch[i-1].ID)
		}
	}

	for _, o := range append(batch, one) {
		var found Order
		if err := db.First(&found, "id = ?", o.ID).Error; err != nil {
			t.Fatalf("First id = %s: %v", o.ID, err)
		}
		if found.ID != o.ID || found.Note != o.Note {
			t.Errorf("First id = %s found %s %q, want %q", o.ID, found.ID, found.Note, o.Note)
		}
		var byStruct Order
		if err := db.Where(&Order{ID: o.ID}).First(&byStruct).Error; err != nil || byStruct.ID != o.ID {
			t.Errorf("Where(&Order{ID: %s}): found %s, %v", o.ID, byStruct.ID, err)
		}
	}
	var count int64
	if err := db.Model(&Order{}).Count(&count).Error; err != nil || count != int64(len(batch)+1) {
		t.Errorf("%d orders (%v), want %d", count, err, len(batch)+1)
	}
}

// oklog ULIDs go in and come out byte for byte, the zero ULID included.
func TestGormRoundTripsOklogULIDs(t *testing.T) {
	db := openGorm(t)
	ids := samples()
	orders := make([]Order, len(ids))
	for i, id := range ids {
		orders[i] = Order{Note: id.String(), Ref: ulidgorm.ULID{ULID: id}}
	}
	if err := db.Create(&orders).Error; err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		var found Order
		if err := db.First(&found, "ref = ?", ulidgorm.ULID{ULID: id}).Error; err != nil {
			t.Fatalf("ref = %s: %v", id, err)
		}
		if found.Ref.ULID != id || found.ID != orders[i].ID {
			t.Errorf("ref %s read back as %s (id %s, want %s)", id, found.Ref, found.ID, orders[i].ID)
		}
		var raw []byte
		if err := db.Raw(`SELECT ref::bytea FROM orders WHERE id = ?`, found.ID).Row().Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(raw, id[:]) {
			t.Errorf("ref %s stored as %x, want %x", id, raw, id[:])
		}
	}
}

// Range queries on the time in the id, with timestamptz::ulid bounds.
func TestGormTimeRange(t *testing.T) {
	db := openGorm(t)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var orders []Order
	for hour := 0; hour < 24; hour++ {
		for _, offset := range []time.Duration{0, time.Minute, time.Hour - time.Millisecond} {
			at := base.Add(time.Duration(hour)*time.Hour + offset)
			orders = append(orders, Order{
				ID:   ulidgorm.ULID{ULID: ulid.MustNew(ulid.Timestamp(at), rand.Reader)},
				Note: at.Format(time.RFC3339Nano),
			})
		}
	}
	if err := db.Create(&orders).Error; err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to, want int }{{0, 24, 72}, {2, 3, 3}, {10, 14, 12}, {5, 5, 0}} {
		start := base.Add(time.Duration(tc.from) * time.Hour)
		end := base.Add(time.Duration(tc.to) * time.Hour)
		var found []Order
		err := db.Where("id >= ?::timestamptz::ulid AND id < ?::timestamptz::ulid", start, end).Order("id").Find(&found).Error
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != tc.want {
			t.Errorf("[%d h, %d h): %d orders, want %d", tc.from, tc.to, len(found), tc.want)
		}
		for _, o := range found {
			if at := ulid.Time(o.ID.Time()); at.Before(start) || !at.Before(end) {
				t.Errorf("[%d h, %d h): %s at %v", tc.from, tc.to, o.ID, at)
			}
		}
	}
}

// A nil *ULID is NULL and NULL comes back nil; a nil ULIDs is NULL, an
// empty one '{}'; ulid[] round-trips; a NULL element of ulid[] is an error;
// a NULL read into a plain ULID leaves the field as it was.
func TestGormArraysAndNulls(t *testing.T) {
	db := openGorm(t)
	ids := samples()
	tags := make(ulidgorm.ULIDs, len(ids))
	for i, id := range ids {
		tags[i] = ulidgorm.ULID{ULID: id}
	}
	parent := ulidgorm.ULID{ULID: known}
	full := Order{Note: "full", Parent: &parent, Tags: tags}
	bare := Order{Note: "bare"}
	empty := Order{Note: "empty", Tags: ulidgorm.ULIDs{}}
	if err := db.Create([]*Order{&full, &bare, &empty}).Error; err != nil {
		t.Fatal(err)
	}

	var got Order
	if err := db.First(&got, "id = ?", full.ID).Error; err != nil {
		t.Fatal(err)
	}
	if got.Parent == nil || *got.Parent != parent || len(got.Tags) != len(tags) {
		t.Fatalf("read back parent %v and %d tags, want %s and %d", got.Parent, len(got.Tags), parent, len(tags))
	}
	for i := range tags {
		if got.Tags[i] != tags[i] {
			t.Errorf("tag %d: %s, want %s", i, got.Tags[i], tags[i])
		}
	}
	var stored string
	if err := db.Raw(`SELECT tags::text FROM orders WHERE id = ?`, full.ID).Scan(&stored).Error; err != nil {
		t.Fatal(err)
	}
	if want, _ := tags.Value(); stored != want {
		t.Errorf("tags stored as %s, want %s", stored, want)
	}

	var nulls struct{ Parent, Tags bool }
	if err := db.Raw(`SELECT parent IS NULL AS parent, tags IS NULL AS tags FROM orders WHERE id = ?`, bare.ID).Scan(&nulls).Error; err != nil {
		t.Fatal(err)
	}
	if !nulls.Parent || !nulls.Tags {
		t.Errorf("a nil parent and nil tags stored as NULL: %+v", nulls)
	}
	var gotBare, gotEmpty Order
	if err := db.First(&gotBare, "id = ?", bare.ID).Error; err != nil || gotBare.Parent != nil || gotBare.Tags != nil {
		t.Errorf("NULLs read back as %v and %#v (%v)", gotBare.Parent, gotBare.Tags, err)
	}
	if err := db.First(&gotEmpty, "id = ?", empty.ID).Error; err != nil || gotEmpty.Tags == nil || len(gotEmpty.Tags) != 0 {
		t.Errorf("'{}' read back as %#v (%v)", gotEmpty.Tags, err)
	}

	// a parent found by a subquery on tags
	var children []Order
	if err := db.Where("? = ANY(tags)", ulidgorm.ULID{ULID: ids[5]}).Find(&children).Error; err != nil || len(children) != 1 || children[0].ID != full.ID {
		t.Errorf("? = ANY(tags): %v, %v", children, err)
	}

	// A NULL element is an error. GORM never hands NULL to a field's Scan:
	// a NULL in a plain ULID field leaves the field as it was, as the
	// README warns (nullable columns are *ULID).
	if err := db.Exec(`UPDATE orders SET tags = ARRAY[NULL]::ulid[] WHERE id = ?`, bare.ID).Error; err != nil {
		t.Fatal(err)
	}
	var broken Order
	err := db.First(&broken, "id = ?", bare.ID).Error
	if err == nil || !strings.Contains(err.Error(), "ulidgorm") {
		t.Errorf("a NULL element: %v, want ulidgorm's error", err)
	}
	if err := db.Exec(`UPDATE orders SET ref = NULL, tags = NULL WHERE id = ?`, bare.ID).Error; err != nil {
		t.Fatal(err)
	}
	stale := Order{Ref: ulidgorm.ULID{ULID: known}}
	if err := db.First(&stale, "id = ?", bare.ID).Error; err != nil || stale.Ref.ULID != known {
		t.Errorf("a NULL ref read into a ULID holding %s: %s, %v", known, stale.Ref, err)
	}
}

// Bad text reaches the application as GORM's error: pgx's *pgconn.PgError
// with SQLSTATE 22P02, from the server.
func TestGormBadInput(t *testing.T) {
	db := openGorm(t)
	for _, bad := range badText {
		var found Order
		err := db.First(&found, "id = ?", bad).Error
		if code := sqlstate(err); code != "22P02" {
			t.Errorf("First id = %q: %v, want SQLSTATE 22P02", bad, err)
		}
		err = db.Exec(`INSERT INTO orders (id, note) VALUES (?, 'bad')`, bad).Error
		if code := sqlstate(err); code != "22P02" || !strings.Contains(err.Error(), "invalid input syntax for type ulid") {
			t.Errorf("INSERT %q: %v, want SQLSTATE 22P02", bad, err)
		}
	}
	var count int64
	if err := db.Model(&Order{}).Count(&count).Error; err != nil || count != 0 {
		t.Errorf("%d orders after bad inserts (%v)", count, err)
	}
}
