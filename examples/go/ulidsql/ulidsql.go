// Package ulidsql lets an oklog/ulid ULID be a parameter and a scan target
// for a PostgreSQL ulid column with any database/sql driver.
//
// ulid.ULID alone works with pgx, but not with lib/pq: lib/pq returns the
// column's text as []byte, which ulid.ULID.Scan takes for the 16 binary bytes
// ("ulid: bad data size when unmarshaling"), and sends ulid.ULID's 16-byte
// Value as raw text, which the server rejects. ULID accepts both the text and
// the binary form and is sent as text, which every driver passes through.
//
// Copy this file into your application; it needs only
// github.com/oklog/ulid/v2.
package ulidsql

import (
	"database/sql/driver"
	"fmt"

	"github.com/oklog/ulid/v2"
)

// ULID is a ulid.ULID (its methods, String and Time included, are promoted)
// that scans from and is sent as a PostgreSQL ulid. Scan a nullable column
// into a **ULID: a NULL scanned into a *ULID is an error, not a zero ULID.
type ULID struct{ ulid.ULID }

// Scan accepts the 26-character text (string or []byte) and the 16 bytes of
// the binary format.
func (u *ULID) Scan(src any) error {
	switch v := src.(type) {
	case string:
		return u.UnmarshalText([]byte(v))
	case []byte:
		if len(v) == len(u.ULID) {
			return u.UnmarshalBinary(v)
		}
		return u.UnmarshalText(v)
	}
	return fmt.Errorf("ulidsql: cannot scan %T into a ULID", src)
}

// Value sends the canonical text, which the server reads as a ulid wherever
// one is expected.
func (u ULID) Value() (driver.Value, error) {
	return u.String(), nil
}
