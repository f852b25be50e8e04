//! Conversions between ulid and uuid, timestamptz and bytea, and
//! `ulid_timestamp()`.
//!
//! Which cast has which context, and why:
//! - `uuid <-> ulid` are binary-coercible (the same 16 bytes) and
//!   `AS ASSIGNMENT`, so `ALTER TABLE ... ALTER COLUMN id TYPE ulid` needs no
//!   `USING` and does not rewrite the table. Not `IMPLICIT`: with implicit
//!   casts both ways `ulid = uuid` would be ambiguous between the two types'
//!   operators.
//! - `ulid -> timestamptz` and `timestamptz -> ulid` are explicit: a ULID is
//!   not a time, and an implicit route between them would also make
//!   comparisons ambiguous. There is no cast to `timestamp` without time
//!   zone: its value would depend on the session's TimeZone, and the cast
//!   could not be IMMUTABLE.
//! - `bytea <-> ulid` are explicit; they carry the specification's 16 bytes.
//! - `text <-> ulid` are PostgreSQL's automatic I/O conversions.

use crate::fmgr::{arg, arg_bytes, arg_ulid, pg_function, return_ulid};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::pg_sys::Datum;
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use ulid_core::codec::{self, BYTES};
use ulid_core::time::{timestamptz_from_unix_ms, unix_ms_from_timestamptz, OutOfRange};

extension_sql!(
    r#"
CREATE CAST (pg_catalog.uuid AS @extschema@.ulid) WITHOUT FUNCTION AS ASSIGNMENT;
CREATE CAST (@extschema@.ulid AS pg_catalog.uuid) WITHOUT FUNCTION AS ASSIGNMENT;

CREATE FUNCTION @extschema@.ulid_timestamp(@extschema@.ulid) RETURNS pg_catalog.timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_timestamp';
COMMENT ON FUNCTION @extschema@.ulid_timestamp(@extschema@.ulid) IS
    'the millisecond a ULID was made';
CREATE CAST (@extschema@.ulid AS pg_catalog.timestamptz)
    WITH FUNCTION @extschema@.ulid_timestamp(@extschema@.ulid);

CREATE FUNCTION @extschema@.ulid_from_timestamptz(pg_catalog.timestamptz) RETURNS @extschema@.ulid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_from_timestamptz';
COMMENT ON FUNCTION @extschema@.ulid_from_timestamptz(pg_catalog.timestamptz) IS
    'the smallest ULID of that millisecond (random part zero), for range bounds';
CREATE CAST (pg_catalog.timestamptz AS @extschema@.ulid)
    WITH FUNCTION @extschema@.ulid_from_timestamptz(pg_catalog.timestamptz);

CREATE FUNCTION @extschema@.ulid_to_bytea(@extschema@.ulid) RETURNS pg_catalog.bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_send';
CREATE CAST (@extschema@.ulid AS pg_catalog.bytea)
    WITH FUNCTION @extschema@.ulid_to_bytea(@extschema@.ulid);

CREATE FUNCTION @extschema@.ulid_from_bytea(pg_catalog.bytea) RETURNS @extschema@.ulid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_from_bytea';
CREATE CAST (pg_catalog.bytea AS @extschema@.ulid)
    WITH FUNCTION @extschema@.ulid_from_bytea(pg_catalog.bytea);
"#,
    name = "ulid_casts",
    requires = ["ulid_uuid_comparisons"],
);

/// Raises SQLSTATE 22008 for a timestamp outside what a ULID can hold.
pub fn report_timestamp_out_of_range() -> ! {
    ErrorReport::new(
        PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        OutOfRange.message(),
        "ulid",
    )
    .set_detail(OutOfRange.detail())
    .report(PgLogLevel::ERROR);
    unreachable!("ERROR does not return")
}

pg_function! {
    /// `ulid_timestamp(ulid)`: the exact millisecond in the first 48 bits.
    fn ulid_timestamp(fcinfo) -> Datum {
        // SAFETY: argument 0 of `ulid_timestamp(ulid)`, a STRICT function.
        let ms = codec::timestamp_ms(unsafe { arg_ulid(fcinfo, 0) });
        Datum::from(timestamptz_from_unix_ms(ms))
    }

    /// `timestamptz::ulid`: the smallest ULID of that millisecond.
    fn ulid_from_timestamptz(fcinfo) -> Datum {
        // SAFETY: argument 0 of `ulid_from_timestamptz(timestamptz)`, a
        // STRICT function: an int8 passed by value.
        let us = unsafe { arg(fcinfo, 0) }.value() as i64;
        match unix_ms_from_timestamptz(us) {
            // SAFETY: this body holds nothing to drop (numbers only).
            Ok(ms) => unsafe { return_ulid(&codec::from_parts(ms, &[0; codec::RANDOM_BYTES])) },
            Err(OutOfRange) => report_timestamp_out_of_range(),
        }
    }

    /// `bytea::ulid`: exactly 16 bytes in the specification's order.
    fn ulid_from_bytea(fcinfo) -> Datum {
        // SAFETY: argument 0 of `ulid_from_bytea(bytea)`, a STRICT function;
        // `bytes` is used within the call.
        let bytes = unsafe { arg_bytes(fcinfo, 0) };
        let Ok(value) = <&[u8; BYTES]>::try_from(bytes) else {
            ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_INVALID_BINARY_REPRESENTATION,
                format!("invalid binary ulid: expected {BYTES} bytes, received {}", bytes.len())
            );
        };
        // SAFETY: this body holds nothing to drop (`bytes` and `value` are
        // borrows).
        unsafe { return_ulid(value) }
    }
}
