//! The SQL type `ulid`: its declaration and its text and binary I/O.
//!
//! The type is declared by hand rather than with pgrx's derive, which always
//! makes a varlena: `ulid` has the exact physical shape of core `uuid`
//! (16 bytes, by reference, char alignment, plain storage), so it costs what
//! `uuid` costs and a `uuid` column converts to it without a rewrite.
//! Comparison, hashing and indexing live in `operators.rs`; conversions in
//! `casts.rs`.

use crate::fmgr::{arg, arg_ulid, palloc, pg_function, return_bytea, return_ulid};
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::pg_sys::{self, Datum};
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use std::ffi::CStr;
use ulid_core::codec::{self, DecodeError, BYTES, TEXT_LEN};

extension_sql!(
    r#"
-- A shell type first: the I/O functions need to name it.
CREATE TYPE @extschema@.ulid;

CREATE FUNCTION @extschema@.ulid_in(pg_catalog.cstring) RETURNS @extschema@.ulid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_in';
CREATE FUNCTION @extschema@.ulid_out(@extschema@.ulid) RETURNS pg_catalog.cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_out';
CREATE FUNCTION @extschema@.ulid_recv(pg_catalog.internal) RETURNS @extschema@.ulid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_recv';
CREATE FUNCTION @extschema@.ulid_send(@extschema@.ulid) RETURNS pg_catalog.bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_send';

-- The same physical shape as pg_catalog.uuid.
CREATE TYPE @extschema@.ulid (
    INPUT = @extschema@.ulid_in,
    OUTPUT = @extschema@.ulid_out,
    RECEIVE = @extschema@.ulid_recv,
    SEND = @extschema@.ulid_send,
    INTERNALLENGTH = 16,
    ALIGNMENT = char,
    STORAGE = plain
);
COMMENT ON TYPE @extschema@.ulid IS
    'Universally Unique Lexicographically Sortable Identifier: 48-bit millisecond timestamp and 80 random bits';
"#,
    name = "ulid_type",
);

pg_function! {
    /// `ulid_in(cstring)`: 26 Crockford base32 characters, `\x` and 32
    /// hexadecimal digits, or the UUID text (see `codec::parse`).
    fn ulid_in(fcinfo) -> Datum {
        // SAFETY: argument 0 of `ulid_in(cstring)` is a NUL-terminated string
        // that outlives the call, and `report_bad_text` gets this input
        // function's own frame; when `return_ulid` runs this body holds
        // nothing to drop (`text` and `value` are a borrow and an array).
        unsafe {
            let text = CStr::from_ptr(arg(fcinfo, 0).cast_mut_ptr()).to_bytes();
            match codec::parse(text) {
                Ok(value) => return_ulid(&value),
                Err(err) => report_bad_text(fcinfo, text, err),
            }
        }
    }

    /// `ulid_out(ulid)`: the canonical upper-case text.
    fn ulid_out(fcinfo) -> Datum {
        // SAFETY: argument 0 of `ulid_out(ulid)` is a ulid; when `palloc` runs
        // this body holds nothing to drop (`text` is an array), and `out` is
        // 27 fresh bytes, the text and its NUL.
        unsafe {
            let text = codec::encode(arg_ulid(fcinfo, 0));
            let out = palloc(TEXT_LEN + 1);
            out.copy_from_nonoverlapping(text.as_ptr(), TEXT_LEN);
            out.add(TEXT_LEN).write(0);
            Datum::from(out)
        }
    }

    /// `ulid_recv(internal)`: exactly 16 bytes in the specification's order.
    fn ulid_recv(fcinfo) -> Datum {
        // SAFETY: argument 0 of `ulid_recv(internal)` is the message buffer
        // being read (a `StringInfo` whose cursor is within its length); the
        // 16 bytes read are the rest of it, as just checked, and when
        // `return_ulid` runs this body holds nothing to drop (`buf` and
        // `start` are a borrow and a pointer).
        unsafe {
            let buf = &mut *arg(fcinfo, 0).cast_mut_ptr::<pg_sys::StringInfoData>();
            let remaining = (buf.len - buf.cursor) as usize;
            if remaining != BYTES {
                ereport!(
                    ERROR,
                    PgSqlErrorCode::ERRCODE_INVALID_BINARY_REPRESENTATION,
                    format!("invalid binary ulid: expected {BYTES} bytes, received {remaining}")
                );
            }
            let start = buf.data.add(buf.cursor as usize).cast::<[u8; BYTES]>();
            buf.cursor += BYTES as i32;
            return_ulid(&*start)
        }
    }

    /// `ulid_send(ulid)`: the 16 bytes as they are stored.
    fn ulid_send(fcinfo) -> Datum {
        // SAFETY: argument 0 of `ulid_send(ulid)` (and of `ulid_to_bytea`) is a
        // ulid, and this body holds nothing to drop.
        unsafe { return_bytea(arg_ulid(fcinfo, 0)) }
    }
}

/// What is wrong with a text that is not a ULID, in PostgreSQL's words.
pub struct BadText {
    pub message: String,
    pub detail: String,
    pub hint: Option<&'static str>,
}

impl BadText {
    /// The message, DETAIL and HINT for `text`: the words are ulid-core's,
    /// which the command-line tool prints too.
    pub fn new(text: &[u8], err: DecodeError) -> Self {
        BadText {
            message: DecodeError::message(text),
            detail: err.detail(text),
            hint: err.hint(),
        }
    }
}

/// Raises the error for a bad text, or, when the caller asked for soft
/// errors (`pg_input_is_valid`, PostgreSQL 16 and later), records it in the
/// caller's `ErrorSaveContext` and returns.
///
/// # Safety
///
/// `fcinfo` is the frame of the input function's call (`ulid_in`), whose
/// `context` is null or a node.
unsafe fn report_bad_text(
    fcinfo: pg_sys::FunctionCallInfo,
    text: &[u8],
    err: DecodeError,
) -> Datum {
    let bad = BadText::new(text, err);
    soft_error::save!(
        fcinfo,
        PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
        &bad
    );
    let mut report = ErrorReport::new(
        PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
        bad.message,
        "ulid_in",
    )
    .set_detail(bad.detail);
    if let Some(hint) = bad.hint {
        report = report.set_hint(hint);
    }
    report.report(PgLogLevel::ERROR);
    unreachable!("ERROR does not return")
}

/// Soft errors: PostgreSQL 16 lets an input function report a problem into
/// an `ErrorSaveContext` passed as `fcinfo->context` instead of throwing.
pub mod soft_error {
    #[cfg(not(any(feature = "pg13", feature = "pg14", feature = "pg15")))]
    use {super::BadText, pgrx::pg_sys, pgrx::PgSqlErrorCode};

    /// When `fcinfo` carries an `ErrorSaveContext`, saves the error in it and
    /// returns from the calling input function with a null result; otherwise
    /// does nothing and the caller raises the error as usual.
    ///
    /// # Safety
    ///
    /// `$fcinfo` is the frame of the calling input function's call, as
    /// `record`, which it calls, asks.
    #[cfg(not(any(feature = "pg13", feature = "pg14", feature = "pg15")))]
    macro_rules! save {
        ($fcinfo:expr, $code:expr, $bad:expr) => {
            // SAFETY: `$fcinfo` is the calling input function's frame
            // (`save!`'s contract, which is `record`'s).
            if unsafe { $crate::type_io::soft_error::record($fcinfo, $code, $bad) } {
                return pg_sys::Datum::from(0);
            }
        };
    }

    /// Before PostgreSQL 16 there are no soft errors: always raise.
    #[cfg(any(feature = "pg13", feature = "pg14", feature = "pg15"))]
    macro_rules! save {
        ($fcinfo:expr, $code:expr, $bad:expr) => {
            let _ = ($fcinfo, $code, $bad);
        };
    }
    pub(crate) use save;

    /// Records the error if `fcinfo->context` is an `ErrorSaveContext`.
    ///
    /// # Safety
    ///
    /// `fcinfo` points to the frame of an input function's call, whose
    /// `context` is null or a node (PostgreSQL's fmgr.h).
    #[cfg(not(any(feature = "pg13", feature = "pg14", feature = "pg15")))]
    pub unsafe fn record(
        fcinfo: pg_sys::FunctionCallInfo,
        code: PgSqlErrorCode,
        bad: &BadText,
    ) -> bool {
        use std::ffi::{c_char, c_int, CStr, CString};

        // pgrx keeps the variadic err* functions to itself; these are the
        // plain C ones from elog.h.
        unsafe extern "C" {
            fn errcode(sqlerrcode: c_int) -> c_int;
            fn errmsg(fmt: *const c_char, ...) -> c_int;
            fn errdetail(fmt: *const c_char, ...) -> c_int;
            fn errhint(fmt: *const c_char, ...) -> c_int;
        }

        // SAFETY: `context` is null or a node (the caller's contract), and it
        // is an `ErrorSaveContext` when its tag says so. `errsave_start` and
        // `errsave_finish` are pgrx's, guarded; the `err*` calls between them
        // run in a boundary of pgrx's (below), each passed the format "%s"
        // and one C string that this frame keeps alive past the call.
        unsafe {
            let context = (*fcinfo).context;
            if context.is_null() || (*context).type_ != pg_sys::NodeTag::T_ErrorSaveContext {
                return false;
            }
            // errsave_start() only returns true when the caller wants the
            // details (pg_input_error_info); otherwise it just flags the error.
            if pg_sys::errsave_start(context, std::ptr::null()) {
                let to_c = |s: &str| CString::new(s.replace('\0', "")).unwrap_or_default();
                let message = to_c(&bad.message);
                let detail = to_c(&bad.detail);
                let hint = bad.hint.map(to_c);
                let (message_ptr, detail_ptr) = (message.as_ptr(), detail.as_ptr());
                let hint_ptr = hint.as_deref().map(CStr::as_ptr);
                // The err* calls are not guarded as pgrx's are: an ERROR
                // among them (out of memory) would longjmp past this frame
                // and its caller's, which own strings. In a boundary of
                // pgrx's, it unwinds as a panic instead; the closure holds
                // only pointers.
                pg_sys::ffi::pg_guard_ffi_boundary(move || {
                    errcode(code as c_int);
                    errmsg(c"%s".as_ptr(), message_ptr);
                    errdetail(c"%s".as_ptr(), detail_ptr);
                    if let Some(hint) = hint_ptr {
                        errhint(c"%s".as_ptr(), hint);
                    }
                });
                pg_sys::errsave_finish(
                    context,
                    concat!(file!(), "\0").as_ptr().cast(),
                    line!() as c_int,
                    c"ulid_in".as_ptr(),
                );
            }
            true
        }
    }
}

#[cfg(any(test, feature = "pg_test"))]
#[pgrx::pg_schema]
mod tests {
    use super::*;

    /// Calls `ulid_recv` on a message buffer holding `bytes`, as COPY BINARY
    /// and the extended protocol do.
    fn recv(bytes: &[u8]) -> [u8; BYTES] {
        /// # Safety
        ///
        /// As `ulid_recv`: `fcinfo` is a call with one `internal` argument,
        /// a message buffer.
        unsafe fn call_recv(fcinfo: pg_sys::FunctionCallInfo) -> Datum {
            // SAFETY: this function's contract is `ulid_recv`'s.
            unsafe { ulid_recv(fcinfo) }
        }
        // SAFETY: a test's transaction; the buffer is a `StringInfo` made
        // here, passed as `ulid_recv`'s one argument, and the datum it
        // returns points to 16 bytes of the current memory context.
        unsafe {
            let buf = pg_sys::makeStringInfo();
            pg_sys::appendBinaryStringInfo(buf, bytes.as_ptr().cast(), bytes.len() as i32);
            let datum = pgrx::direct_function_call_as_datum(call_recv, &[Some(Datum::from(buf))])
                .expect("ulid_recv returned NULL");
            assert_eq!((*buf).cursor, (*buf).len, "the whole message is consumed");
            *datum.cast_mut_ptr::<[u8; BYTES]>()
        }
    }

    #[pg_test]
    fn recv_takes_exactly_sixteen_bytes() {
        let bytes: [u8; BYTES] = core::array::from_fn(|i| i as u8 * 17);
        assert_eq!(recv(&bytes), bytes);
    }

    #[pg_test(error = "invalid binary ulid: expected 16 bytes, received 15")]
    fn recv_rejects_fifteen_bytes() {
        recv(&[0; 15]);
    }

    #[pg_test(error = "invalid binary ulid: expected 16 bytes, received 17")]
    fn recv_rejects_seventeen_bytes() {
        recv(&[0; 17]);
    }

    #[pg_test(error = "invalid binary ulid: expected 16 bytes, received 0")]
    fn recv_rejects_nothing() {
        recv(&[]);
    }

    #[pg_test]
    fn send_is_the_stored_bytes() {
        let sent = Spi::get_one::<Vec<u8>>("SELECT ulid_send('01JGFJJZ00XHF7E02JJ03AE4T7')")
            .unwrap()
            .unwrap();
        assert_eq!(sent, codec::decode(b"01JGFJJZ00XHF7E02JJ03AE4T7").unwrap());
    }

    #[pg_test]
    fn text_round_trip_in_the_server() {
        let out =
            Spi::get_one::<String>("SELECT '01jgfjjz00xhf7e02jj03ae4t7'::ulid::text").unwrap();
        assert_eq!(out.as_deref(), Some("01JGFJJZ00XHF7E02JJ03AE4T7"));
    }

    #[test]
    fn bad_text_messages() {
        let bad = BadText::new(b"01JGFJJZ00XHF7E02JJ03AE4T\n", DecodeError::Character(25));
        assert_eq!(
            bad.message,
            "invalid input syntax for type ulid: \"01JGFJJZ00XHF7E02JJ03AE4T\n\""
        );
        assert_eq!(bad.detail, "Invalid character \"\\n\" at position 26.");
        let bad = BadText::new("x€".as_bytes(), DecodeError::Character(1));
        assert_eq!(bad.detail, "Invalid character \"€\" at position 2.");
        let bad = BadText::new(b"Z0000000000000000000000000", DecodeError::Overflow);
        assert_eq!(
            bad.detail,
            "The first character is \"Z\", above \"7\": the value would not fit in 128 bits."
        );
        let bad = BadText::new(b"", DecodeError::Length(0));
        assert_eq!(bad.detail, "Expected 26 characters, found 0.");
        assert!(bad.hint.unwrap().contains("8-4-4-4-12"));
    }

    #[test]
    fn hex_and_uuid_form_messages() {
        let detail = |text: &[u8]| BadText::new(text, codec::parse(text).unwrap_err()).detail;
        assert_eq!(
            detail(b"\\x01941f297c00ec5e7700529006a7134"),
            "Expected 32 hexadecimal digits after \"\\x\", found 31."
        );
        assert_eq!(
            detail(b"\\x01941f297c00ec5e7700529006a7134z"),
            "Invalid hexadecimal digit \"z\" at position 34."
        );
        assert_eq!(
            detail(b"01941f297-c00-ec5e-7700-529006a71347"),
            "Expected a hyphen at position 9, found \"7\"."
        );
        assert_eq!(
            detail(b"01941f2-97c00-ec5e-7700-529006a71347"),
            "Unexpected hyphen at position 8."
        );
        assert_eq!(
            detail(b"01941f29-7c00-ec5e-7700-529006a7134"),
            "Expected 36 characters in the UUID form, found 35."
        );
    }
}
