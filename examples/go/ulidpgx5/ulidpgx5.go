// Package ulidpgx5 teaches pgx v5 the PostgreSQL ulid type: a pgtype.Codec
// that exchanges a ulid as its 16 bytes in binary and as the 26-character
// ULID text in text, registered under the OID the database gives the type,
// with ulid[] beside it.
//
// pgx v5's conn.LoadType cannot load a base type it has no codec for, so
// Register looks the OIDs up itself and registers the codec; call it for
// every new connection, from pgxpool.Config.AfterConnect:
//
//	config.AfterConnect = ulidpgx5.Register
//
// Then oklog's ulid.ULID (and [16]byte) is a parameter and a scan target
// in binary, a *ulid.ULID scans NULL as nil, a *string gets the ULID text,
// and []ulid.ULID, []string and []*ulid.ULID go to and from ulid[].
//
// A string parameter goes as text, for the server to read: any spelling it
// accepts works, and a bad one is the server's error (SQLSTATE 22P02).
// Strings in a []string parameter for ulid[] are parsed here, so that the
// array goes in binary; when one is not a 26-character ULID, pgx sends the
// whole array as text instead, and the server reads (or refuses) it.
//
// Copy this file into your application; it needs pgx v5 and
// github.com/oklog/ulid/v2.
package ulidpgx5

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"
)

// Register looks up the OIDs of ulid and ulid[] (the type as the search_path
// finds it) and registers them in conn's type map. One round trip; the
// signature is pgxpool.Config.AfterConnect's.
func Register(ctx context.Context, conn *pgx.Conn) error {
	var oid, arrayOID uint32
	err := conn.QueryRow(ctx,
		`SELECT t.oid, t.typarray FROM pg_catalog.pg_type t WHERE t.oid = pg_catalog.to_regtype('ulid')`,
	).Scan(&oid, &arrayOID)
	if errors.Is(err, pgx.ErrNoRows) {
		return errors.New("ulidpgx5: no type ulid on the search_path: CREATE EXTENSION ulid, or add its schema to the search_path")
	}
	if err != nil {
		return fmt.Errorf("ulidpgx5: looking up the type ulid: %w", err)
	}
	m := conn.TypeMap()
	element := &pgtype.Type{Name: "ulid", OID: oid, Codec: Codec{}}
	m.RegisterType(element)
	// what conn.LoadType("_ulid") would build, without its three queries
	m.RegisterType(&pgtype.Type{Name: "_ulid", OID: arrayOID, Codec: &pgtype.ArrayCodec{ElementType: element}})
	// where the server names no type (the simple protocol), ULIDs are ulids
	m.RegisterDefaultPgType(ulid.ULID{}, "ulid")
	m.RegisterDefaultPgType([]ulid.ULID{}, "_ulid")
	return nil
}

// Codec is the pgtype.Codec of ulid. Binary is preferred: 16 bytes each way.
type Codec struct{}

func (Codec) FormatSupported(format int16) bool {
	return format == pgtype.BinaryFormatCode || format == pgtype.TextFormatCode
}

func (Codec) PreferredFormat() int16 { return pgtype.BinaryFormatCode }

func (Codec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	// pgx dereferences pointers before it asks, except pointers to a
	// driver.Valuer such as *ulid.ULID: those are ours to send.
	switch value.(type) {
	case ulid.ULID, [16]byte, *ulid.ULID, *[16]byte:
		if format == pgtype.BinaryFormatCode {
			return encodeBinary{}
		}
		return encodeText{}
	case string:
		// Only in binary (elements of an array): pgx sends a string
		// parameter as text itself.
		if format == pgtype.BinaryFormatCode {
			return encodeStringBinary{}
		}
	}
	return nil
}

// bytesOf is the 16 bytes of a value PlanEncode accepted; false for a nil
// pointer, which is NULL.
func bytesOf(value any) (ulid.ULID, bool) {
	switch v := value.(type) {
	case ulid.ULID:
		return v, true
	case [16]byte:
		return v, true
	case *ulid.ULID:
		if v != nil {
			return *v, true
		}
	case *[16]byte:
		if v != nil {
			return *v, true
		}
	}
	return ulid.ULID{}, false
}

type encodeBinary struct{}

func (encodeBinary) Encode(value any, buf []byte) ([]byte, error) {
	id, ok := bytesOf(value)
	if !ok {
		return nil, nil
	}
	return append(buf, id[:]...), nil
}

type encodeText struct{}

func (encodeText) Encode(value any, buf []byte) ([]byte, error) {
	id, ok := bytesOf(value)
	if !ok {
		return nil, nil
	}
	return append(buf, id.String()...), nil
}

type encodeStringBinary struct{}

func (encodeStringBinary) Encode(value any, buf []byte) ([]byte, error) {
	id, err := ulid.ParseStrict(value.(string))
	if err != nil {
		return nil, fmt.Errorf("ulidpgx5: %q is not a 26-character ULID: %w", value, err)
	}
	return append(buf, id[:]...), nil
}

func (Codec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	// **ulid.ULID and the like (NULL as nil) are pgx's, around these.
	switch target.(type) {
	case *ulid.ULID, *[16]byte, *string:
		if format == pgtype.BinaryFormatCode {
			return scanBinary{}
		}
		return scanText{}
	}
	return nil
}

// store puts id into a target PlanScan accepted.
func store(id ulid.ULID, target any) {
	switch t := target.(type) {
	case *ulid.ULID:
		*t = id
	case *[16]byte:
		*t = id
	case *string:
		*t = id.String()
	}
}

type scanBinary struct{}

func (scanBinary) Scan(src []byte, target any) error {
	if src == nil {
		return fmt.Errorf("ulidpgx5: cannot scan NULL into %T (scan into a pointer to it)", target)
	}
	if len(src) != len(ulid.ULID{}) {
		return fmt.Errorf("ulidpgx5: a binary ulid is 16 bytes, got %d", len(src))
	}
	store(ulid.ULID(src), target)
	return nil
}

type scanText struct{}

func (scanText) Scan(src []byte, target any) error {
	if src == nil {
		return fmt.Errorf("ulidpgx5: cannot scan NULL into %T (scan into a pointer to it)", target)
	}
	if s, ok := target.(*string); ok {
		*s = string(src)
		return nil
	}
	id, err := ulid.ParseStrict(string(src))
	if err != nil {
		return fmt.Errorf("ulidpgx5: %q from the server: %w", src, err)
	}
	store(id, target)
	return nil
}

// DecodeDatabaseSQLValue gives database/sql (pgx's stdlib driver) the text,
// which sql.Scanner implementations such as *ulid.ULID read.
func (c Codec) DecodeDatabaseSQLValue(m *pgtype.Map, oid uint32, format int16, src []byte) (driver.Value, error) {
	if src == nil {
		return nil, nil
	}
	var s string
	if err := c.PlanScan(m, oid, format, &s).Scan(src, &s); err != nil {
		return nil, err
	}
	return s, nil
}

// DecodeValue is what rows.Values() gives: a ulid.ULID.
func (c Codec) DecodeValue(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if src == nil {
		return nil, nil
	}
	var id ulid.ULID
	if err := c.PlanScan(m, oid, format, &id).Scan(src, &id); err != nil {
		return nil, err
	}
	return id, nil
}
