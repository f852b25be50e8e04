// Package ulidgorm gives GORM (gorm.io/gorm with gorm.io/driver/postgres)
// a ULID field type for PostgreSQL ulid columns: ULID for a ulid, ULIDs for
// a ulid[]. AutoMigrate creates those column types, and a primary key
//
//	ID ulidgorm.ULID `gorm:"primaryKey;default:gen_monotonic_ulid()"`
//
// is left to the server on Create and read back from RETURNING.
//
// GORM talks to PostgreSQL through database/sql, where pgx's driver asks for
// the results of types it does not know in text: values go both ways as
// the 26-character text, which the server reads and checks (a bad one is
// the server's error, SQLSTATE 22P02).
//
// Copy this file into your application; it needs GORM and
// github.com/oklog/ulid/v2.
package ulidgorm

import (
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"
	"gorm.io/gorm"
	"gorm.io/gorm/schema"
)

// ULID is a ulid.ULID (its methods, String and Time included, are promoted)
// stored in a ulid column. Its zero value is what GORM leaves out of an
// INSERT for a column with a default. For a nullable column use *ULID: GORM
// does not scan a NULL into a ULID, it leaves the field as it was.
type ULID struct{ ulid.ULID }

// GormDataType is the column type GORM's schema gives the field.
func (ULID) GormDataType() string { return "ulid" }

// GormDBDataType is the column type AutoMigrate creates.
func (ULID) GormDBDataType(db *gorm.DB, field *schema.Field) string { return dbType(db, "ulid") }

// Scan reads the 26-character text, as a string or as []byte.
func (u *ULID) Scan(src any) error {
	switch v := src.(type) {
	case string:
		return u.UnmarshalText([]byte(v))
	case []byte:
		return u.UnmarshalText(v)
	case nil:
		return fmt.Errorf("ulidgorm: cannot scan NULL into a ULID (use *ULID)")
	}
	return fmt.Errorf("ulidgorm: cannot scan %T into a ULID", src)
}

// Value sends the 26-character text.
func (u ULID) Value() (driver.Value, error) {
	return u.String(), nil
}

// ULIDs is a ulid[] column. A nil ULIDs is NULL; a NULL element is an error.
type ULIDs []ULID

func (ULIDs) GormDataType() string { return "ulid[]" }

func (ULIDs) GormDBDataType(db *gorm.DB, field *schema.Field) string { return dbType(db, "ulid[]") }

// Scan reads the array's text form, {A,B,...}.
func (us *ULIDs) Scan(src any) error {
	var text string
	switch v := src.(type) {
	case nil:
		*us = nil
		return nil
	case string:
		text = v
	case []byte:
		text = string(v)
	default:
		return fmt.Errorf("ulidgorm: cannot scan %T into ULIDs", src)
	}
	if len(text) < 2 || text[0] != '{' || text[len(text)-1] != '}' {
		return fmt.Errorf("ulidgorm: %q is not a one-dimensional ulid[]", text)
	}
	out := ULIDs{}
	if body := text[1 : len(text)-1]; body != "" {
		for _, element := range strings.Split(body, ",") {
			var u ULID
			if element == "NULL" {
				return fmt.Errorf("ulidgorm: a NULL element in %q", text)
			}
			if err := u.UnmarshalText([]byte(element)); err != nil {
				return fmt.Errorf("ulidgorm: element %q of a ulid[]: %w", element, err)
			}
			out = append(out, u)
		}
	}
	*us = out
	return nil
}

// Value sends the array's text form; nil is NULL.
func (us ULIDs) Value() (driver.Value, error) {
	if us == nil {
		return nil, nil
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, u := range us {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(u.String())
	}
	b.WriteByte('}')
	return b.String(), nil
}

// dbType is the type on PostgreSQL; other databases get GORM's default.
func dbType(db *gorm.DB, name string) string {
	if db.Dialector.Name() == "postgres" {
		return name
	}
	return ""
}
