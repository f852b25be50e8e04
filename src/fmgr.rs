//! PostgreSQL's version-1 calling convention, as this extension uses it.
//!
//! Every SQL-callable function here is a plain `extern "C-unwind"` function
//! taking `FunctionCallInfo`, declared in SQL by hand next to its code. That
//! keeps the per-call path as short as core's own functions (the generators
//! and text I/O run once per row), and puts each concern's whole SQL surface
//! in one `extension_sql!` block. `pg_function!` adds what
//! `PG_FUNCTION_INFO_V1` adds in C, plus pgrx's guard, which turns a Rust
//! panic into an ordinary ERROR instead of taking the backend down.
//!
//! The rule every caller of an unguarded C call here keeps: PostgreSQL
//! raises an ERROR by `siglongjmp` to the nearest error boundary, past
//! every Rust frame between, and runs none of their destructors. Rust
//! allows that only over frames that hold nothing to drop (no `String`,
//! no `Vec`, no lock guard: "plain old frames"). pgrx wraps each function
//! of `pg_sys` in a boundary of its own (a `sigsetjmp` per call) that turns
//! the ERROR into a panic, which unwinds properly. `palloc` below and the
//! core functions `core_function!` hands a call to skip that cost, so
//! every frame from theirs up to the function PostgreSQL called must hold
//! nothing to drop when they run: their `# Safety` sections say so, and
//! each caller's `SAFETY:` line says that it holds nothing.

use pgrx::pg_sys::{self, Datum, FunctionCallInfo};
use ulid_core::codec::BYTES;

/// `PG_FUNCTION_INFO_V1`: the record that tells PostgreSQL to call `$name`
/// with the version-1 convention.
macro_rules! pg_finfo {
    ($name:ident) => {
        ::paste::paste! {
            #[unsafe(no_mangle)]
            #[doc(hidden)]
            pub extern "C" fn [<pg_finfo_ $name>]() -> &'static ::pgrx::pg_sys::Pg_finfo_record {
                const V1_API: ::pgrx::pg_sys::Pg_finfo_record =
                    ::pgrx::pg_sys::Pg_finfo_record { api_version: 1 };
                &V1_API
            }
        }
    };
}
pub(crate) use pg_finfo;

/// Declares SQL-callable functions: for each `fn name(fcinfo) -> Datum`, the
/// guarded function itself and its `pg_finfo_name` record.
///
/// # Safety
///
/// Each function declared is `unsafe`, for PostgreSQL's function manager
/// alone (or a test calling it as the manager would): `fcinfo` points to
/// the frame of a call of the SQL function that names it in its module's
/// `extension_sql!`, so it holds as many arguments as that declaration
/// takes, of its types, none of them null when it is `STRICT`, and the call
/// runs on the backend's thread with a current memory context that
/// outlives it. The body's `unsafe` blocks rely on exactly that when they
/// read an argument or return a value, and say so.
///
/// The body runs in `guard`: a panic, or an ERROR pgrx turned into one,
/// unwinds to it and leaves as an ERROR. An unguarded C call in the body
/// (`palloc`) is sound only where the body holds nothing to drop; the
/// function's own frame holds only `fcinfo`.
macro_rules! pg_function {
    ($($(#[$attr:meta])* fn $name:ident($fcinfo:ident) -> Datum $body:block)+) => {$(
        $crate::fmgr::pg_finfo!($name);

        $(#[$attr])*
        ///
        /// # Safety
        ///
        /// For PostgreSQL's function manager: `fcinfo` is a call of the SQL
        /// function declared for it (`fmgr::pg_function!`).
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $name(
            $fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
        ) -> ::pgrx::pg_sys::Datum {
            let body = move || $body;
            // SAFETY: this is the whole of a function PostgreSQL calls, and
            // its frame holds nothing to drop: `body` moves into `guard`,
            // `fcinfo` is a pointer.
            unsafe { $crate::fmgr::guard(body) }
        }
    )+};
}
pub(crate) use pg_function;

/// What `#[pg_guard]` gives a function: a panic or a Rust-raised ERROR
/// unwinds to here and leaves as a PostgreSQL ERROR.
///
/// pgrx's own guard runs the body in a function of its own that is never
/// inlined and returns its result through memory, a few dozen instructions
/// on every call. Here the body is caught where it is inlined, which costs
/// nothing until something unwinds; what was caught is then thrown again
/// inside pgrx's guard, which turns it into an ERROR exactly as it would
/// have (the panic hook has already noted where it happened).
///
/// # Safety
///
/// Call it as the whole body of an `extern "C-unwind"` function that
/// PostgreSQL calls, on the backend's thread, from a frame that holds
/// nothing to drop: the ERROR that reports a panic leaves by `siglongjmp`,
/// past this frame and the caller's.
#[inline(always)]
pub unsafe fn guard(body: impl FnOnce() -> Datum) -> Datum {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(datum) => datum,
        // SAFETY: `body` is gone (it unwound) and `caught` moves into
        // `rethrow`, so this frame holds nothing; the caller's holds nothing
        // either (this function's contract).
        Err(caught) => unsafe { rethrow(caught) },
    }
}

/// Throws `caught` again inside pgrx's guard, which reports it.
///
/// # Safety
///
/// As `guard`, from which alone it is called: every frame above it, up to
/// the function PostgreSQL called, holds nothing to drop.
#[cold]
#[inline(never)]
unsafe fn rethrow(caught: Box<dyn core::any::Any + Send>) -> Datum {
    // SAFETY: pgrx's guard asks for plain frames above it (this function's
    // contract); `caught` moves into the closure, so this frame holds nothing.
    unsafe {
        pgrx::pg_sys::submodules::panic::pgrx_extern_c_guard(move || -> Datum {
            std::panic::resume_unwind(caught)
        })
    }
}

/// What `#[pg_guard]` gives a callback PostgreSQL calls (a hook, a memory
/// context's reset callback): a panic in `body`, or an ERROR pgrx turned
/// into one, leaves it as a PostgreSQL ERROR. Written out rather than by
/// the attribute, which wraps a copy of the function that is an `unsafe fn`
/// without the original's documentation, so that its `# Safety` is lost.
///
/// # Safety
///
/// Call it as the whole body of an `extern "C-unwind"` function that
/// PostgreSQL calls, on the process's thread, from a frame that holds
/// nothing to drop: an ERROR leaves by `siglongjmp`, past that frame.
#[inline]
pub unsafe fn guard_callback<R>(body: impl FnOnce() -> R) -> R {
    // SAFETY: every frame above, up to the C that called the callback,
    // holds nothing to drop (this function's contract).
    unsafe { pgrx::pg_sys::submodules::panic::pgrx_extern_c_guard(body) }
}

/// Declares SQL-callable functions that are core's own C functions under
/// our name: `ulid_eq => uuid_eq` exports `ulid_eq`, which hands its call
/// to the server's `uuid_eq`. No Rust runs, so there is nothing to guard.
///
/// Why not `LANGUAGE internal AS 'uuid_eq'`: for a function outside core's
/// own OID range, looking up an internal function searches core's whole
/// function table by name, and the executor does that lookup for every
/// operator of every query it starts, which short primary-key lookups feel
/// (`bench/` measures them). A C function is found through the loader's
/// hash table instead.
///
/// # Safety
///
/// Each function declared is `unsafe`, for PostgreSQL's function manager
/// alone: `fcinfo` is a call of the SQL function that names it, whose
/// arguments are what `$core` reads (a `ulid` is stored as a `uuid` is, so
/// a `ulid` argument is one for core's `uuid` function), and `$core` is a
/// version-1 function of the server, `Datum $core(PG_FUNCTION_ARGS)`, as
/// the declaration in the expansion says. The call is unguarded: an ERROR
/// in core's function longjmps past this frame, which holds only `fcinfo`.
macro_rules! core_function {
    ($($(#[$attr:meta])* $name:ident => $core:ident),+ $(,)?) => {$(
        $crate::fmgr::pg_finfo!($name);

        $(#[$attr])*
        ///
        /// # Safety
        ///
        /// For PostgreSQL's function manager: `fcinfo` is a call of the SQL
        /// function declared for it (`fmgr::core_function!`).
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $name(
            fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
        ) -> ::pgrx::pg_sys::Datum {
            unsafe extern "C-unwind" {
                fn $core(fcinfo: ::pgrx::pg_sys::FunctionCallInfo) -> ::pgrx::pg_sys::Datum;
            }
            // SAFETY: the call's arguments are what core's function reads
            // (this function's contract), and this frame holds nothing to
            // drop (only `fcinfo`) when an ERROR longjmps past it.
            unsafe { $core(fcinfo) }
        }
    )+};
}
pub(crate) use core_function;

/// The raw datum of argument `n` (whether it is null is not looked at).
///
/// # Safety
///
/// `fcinfo` points to a call frame that holds at least `n + 1` arguments.
#[inline(always)]
pub unsafe fn arg(fcinfo: FunctionCallInfo, n: usize) -> Datum {
    // SAFETY: the frame's argument array has `n + 1` entries or more (the
    // caller's contract).
    unsafe { (*fcinfo).args.as_slice(n + 1)[n].value }
}

/// Argument `n` as a ulid: a pointer to 16 bytes, as for `uuid`.
///
/// # Safety
///
/// As `arg`, and argument `n` is a `ulid` (or a `uuid`) that is not null,
/// whose 16 bytes live for `'a`: no longer than the call.
#[inline(always)]
pub unsafe fn arg_ulid<'a>(fcinfo: FunctionCallInfo, n: usize) -> &'a [u8; BYTES] {
    // SAFETY: a non-null ulid's datum points to its 16 bytes, which need
    // no alignment, and the caller keeps to their lifetime.
    unsafe { &*arg(fcinfo, n).cast_mut_ptr::<[u8; BYTES]>() }
}

/// Argument `n`, a `bytea` (or any varlena), as its bytes, detoasted.
///
/// A value stored inline, uncompressed (a short key, say, as a constant or
/// from a table) is read where it is, in a few instructions that inline
/// into the caller; only a compressed or out-of-line one goes through
/// `detoasted`, out of line, whose error boundary (pgrx sets one up around
/// `pg_detoast_datum_packed`) would otherwise cost every call a large stack
/// frame.
///
/// # Safety
///
/// As `arg`, and argument `n` is a `bytea` (any varlena) that is not null;
/// the bytes live for `'a`: no longer than the call, whose memory context
/// holds a detoasted copy.
#[inline(always)]
pub unsafe fn arg_bytes<'a>(fcinfo: FunctionCallInfo, n: usize) -> &'a [u8] {
    // SAFETY: the datum points to a varlena in one of its forms (the
    // caller's contract); each branch reads the header of the form it
    // tested for, and the data of an inline one is `len` bytes after it.
    unsafe {
        let value = arg(fcinfo, n).cast_mut_ptr::<pg_sys::varlena>();
        let (data, len) = if pgrx::varatt_is_1b(value) {
            if pgrx::varatt_is_1b_e(value) {
                return detoasted(value);
            }
            (pgrx::vardata_1b(value), pgrx::varsize_1b(value) - 1)
        } else if pgrx::varatt_is_4b_u(value) {
            (
                pgrx::vardata_4b(value),
                pgrx::varsize_4b(value) - pg_sys::VARHDRSZ,
            )
        } else {
            return detoasted(value);
        };
        core::slice::from_raw_parts(data.cast(), len)
    }
}

/// The bytes of a compressed or out-of-line varlena, detoasted into the
/// current memory context.
///
/// # Safety
///
/// `value` points to a varlena, and `'a` ends with the current memory
/// context.
#[cold]
#[inline(never)]
unsafe fn detoasted<'a>(value: *mut pg_sys::varlena) -> &'a [u8] {
    // SAFETY: pgrx's `pg_detoast_datum_packed` is guarded (an ERROR becomes
    // a panic) and returns a varlena in memory of the current context, whose
    // data is `varsize_any_exhdr` bytes long.
    unsafe {
        let value = pg_sys::pg_detoast_datum_packed(value);
        core::slice::from_raw_parts(
            pgrx::vardata_any(value).cast(),
            pgrx::varsize_any_exhdr(value),
        )
    }
}

/// Memory from the current memory context, as C's `palloc`: `size` bytes,
/// uninitialized, aligned for any type (`MAXALIGN`), until the context is
/// reset.
///
/// Declared here without pgrx's per-call `sigsetjmp` wrapper: `palloc` only
/// fails on out-of-memory (or a size above 1 GB), and then PostgreSQL's
/// `siglongjmp` passes over every Rust frame up to the function PostgreSQL
/// called, dropping nothing. This is the one C call on the per-row paths.
///
/// # Safety
///
/// Call on the backend's thread, with a current memory context, holding
/// nothing to drop, in this frame and every frame above it up to the
/// function PostgreSQL called: no `String`, `Vec` or `Box`, no lock guard,
/// nothing whose destructor must run.
#[inline(always)]
pub unsafe fn palloc(size: usize) -> *mut u8 {
    unsafe extern "C" {
        #[link_name = "palloc"]
        fn pg_palloc(size: usize) -> *mut core::ffi::c_void;
    }
    // SAFETY: the caller holds nothing to drop (this function's contract),
    // and `palloc(Size)` is declared as C declares it.
    unsafe { pg_palloc(size).cast() }
}

/// Returns a ulid: 16 bytes copied into the current memory context.
///
/// # Safety
///
/// As `palloc`, which it calls: the caller, and every frame above it up to
/// the function PostgreSQL called, holds nothing to drop.
#[inline(always)]
pub unsafe fn return_ulid(value: &[u8; BYTES]) -> Datum {
    // SAFETY: the caller holds nothing to drop, and this frame holds only a
    // borrow; `out` is 16 fresh bytes.
    unsafe {
        let out = palloc(BYTES);
        out.copy_from_nonoverlapping(value.as_ptr(), BYTES);
        Datum::from(out)
    }
}

/// Returns a `bytea` holding `bytes`.
///
/// # Safety
///
/// As `palloc`, which it calls: the caller, and every frame above it up to
/// the function PostgreSQL called, holds nothing to drop. `bytes` is
/// shorter than a varlena can be (1 GB less its 4-byte header).
pub unsafe fn return_bytea(bytes: &[u8]) -> Datum {
    // SAFETY: the caller holds nothing to drop, and this frame holds only a
    // borrow; `out` is `total` fresh bytes, a length that fits the header
    // (the caller's contract).
    unsafe {
        let total = pg_sys::VARHDRSZ + bytes.len();
        let out = palloc(total);
        pgrx::set_varsize_4b(out.cast(), total as i32);
        out.add(pg_sys::VARHDRSZ)
            .copy_from_nonoverlapping(bytes.as_ptr(), bytes.len());
        Datum::from(out)
    }
}

#[cfg(any(test, feature = "pg_test"))]
#[pgrx::pg_schema]
pub(crate) mod tests {
    use pgrx::pg_sys::panic::CaughtError;
    use pgrx::prelude::*;
    use pgrx::{PgSqlErrorCode, PgTryBuilder};

    // Only in test builds: a function whose Rust body panics.
    extension_sql!(
        r#"
CREATE FUNCTION @extschema@.ulid_test_panic() RETURNS pg_catalog.void
    LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_test_panic';
"#,
        name = "ulid_test_panic",
        requires = ["ulid_type"],
    );

    super::pg_function! {
        fn ulid_test_panic(fcinfo) -> Datum {
            let _ = fcinfo;
            panic!("a deliberate panic in a test")
        }
    }

    /// Runs `sql` in a subtransaction, as PL/pgSQL's EXCEPTION blocks do,
    /// and returns the SQLSTATE and message of the error it raised.
    pub(crate) fn error_of(sql: &str) -> Option<(PgSqlErrorCode, String)> {
        error_report_of(sql).map(|(code, message, _)| (code, message))
    }

    /// The DETAIL of the error `sql` raises, if it raises one with a DETAIL.
    pub(crate) fn error_detail_of(sql: &str) -> Option<String> {
        error_report_of(sql).and_then(|(_, _, detail)| detail)
    }

    /// The SQLSTATE, message and DETAIL of the error `sql` raises, in a
    /// subtransaction so that the test goes on.
    pub(crate) fn error_report_of(sql: &str) -> Option<(PgSqlErrorCode, String, Option<String>)> {
        // SAFETY: in a test's transaction; the subtransaction begun here is
        // released or rolled back on either path, and the memory context and
        // resource owner are put back after it, as PL/pgSQL does.
        unsafe {
            let context = pg_sys::CurrentMemoryContext;
            let owner = pg_sys::CurrentResourceOwner;
            pg_sys::BeginInternalSubTransaction(std::ptr::null());
            PgTryBuilder::new(|| {
                Spi::run(sql).unwrap();
                pg_sys::ReleaseCurrentSubTransaction();
                pg_sys::MemoryContextSwitchTo(context);
                pg_sys::CurrentResourceOwner = owner;
                None
            })
            .catch_others(|err| {
                pg_sys::RollbackAndReleaseCurrentSubTransaction();
                pg_sys::MemoryContextSwitchTo(context);
                pg_sys::CurrentResourceOwner = owner;
                match err {
                    CaughtError::PostgresError(report)
                    | CaughtError::ErrorReport(report)
                    | CaughtError::RustPanic {
                        ereport: report, ..
                    } => Some((
                        report.sql_error_code(),
                        report.message().to_string(),
                        report.detail().map(str::to_string),
                    )),
                }
            })
            .execute()
        }
    }

    #[pg_test]
    fn a_panic_is_an_error_and_the_backend_goes_on() {
        // SAFETY: set when the backend started, read on its thread.
        let pid = unsafe { pg_sys::MyProcPid };
        for _ in 0..3 {
            let (code, message) = error_of("SELECT ulid_test_panic()").expect("an error");
            assert_eq!(code, PgSqlErrorCode::ERRCODE_INTERNAL_ERROR);
            assert!(
                message.contains("a deliberate panic in a test"),
                "{message}"
            );
            // the same backend keeps answering
            let answer = Spi::get_one::<String>("SELECT gen_ulid()::text")
                .unwrap()
                .unwrap();
            assert_eq!(answer.len(), 26);
            assert_eq!(
                Spi::get_one::<i32>("SELECT pg_backend_pid()").unwrap(),
                Some(pid)
            );
        }
    }

    #[pg_test]
    fn sql_errors_roll_back_cleanly_too() {
        let (code, _) = error_of("SELECT ('8' || repeat('0', 25))::ulid").expect("an error");
        assert_eq!(code, PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION);
        let (code, _) = error_of("SELECT '\\x00'::bytea::ulid").expect("an error");
        assert_eq!(code, PgSqlErrorCode::ERRCODE_INVALID_BINARY_REPRESENTATION);
        assert_eq!(
            error_of("SELECT 'infinity'::timestamptz::ulid").map(|e| e.0),
            Some(PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW)
        );
        assert_eq!(error_of("SELECT gen_ulid()"), None);
    }
}
