//! PostgreSQL's version-1 calling convention, as this extension uses it.
//!
//! Every SQL-callable function here is a plain `extern "C-unwind"` function
//! taking `FunctionCallInfo`, declared in SQL by hand next to its code. That
//! keeps the per-call path as short as core's own functions (the generators
//! and text I/O run once per row), and puts each concern's whole SQL surface
//! in one `extension_sql!` block. `pg_function!` adds what
//! `PG_FUNCTION_INFO_V1` adds in C, plus pgrx's guard, which turns a Rust
//! panic into an ordinary ERROR instead of taking the backend down.

use crate::codec::BYTES;
use pgrx::pg_sys::{self, Datum, FunctionCallInfo};

/// Declares SQL-callable functions: for each `fn name(fcinfo) -> Datum`, the
/// guarded function itself and its `pg_finfo_name` record.
macro_rules! pg_function {
    ($($(#[$attr:meta])* fn $name:ident($fcinfo:ident) -> Datum $body:block)+) => {$(
        ::paste::paste! {
            #[unsafe(no_mangle)]
            #[doc(hidden)]
            pub extern "C" fn [<pg_finfo_ $name>]() -> &'static ::pgrx::pg_sys::Pg_finfo_record {
                const V1_API: ::pgrx::pg_sys::Pg_finfo_record =
                    ::pgrx::pg_sys::Pg_finfo_record { api_version: 1 };
                &V1_API
            }
        }

        $(#[$attr])*
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $name(
            $fcinfo: ::pgrx::pg_sys::FunctionCallInfo,
        ) -> ::pgrx::pg_sys::Datum {
            // what #[pg_guard] expands to: a panic or a Rust-raised ERROR
            // unwinds to here and leaves as a PostgreSQL ERROR
            let body = move || $body;
            unsafe { ::pgrx::pg_sys::submodules::panic::pgrx_extern_c_guard(body) }
        }
    )+};
}
pub(crate) use pg_function;

/// The raw datum of argument `n`. The caller knows it exists and, for a
/// STRICT function, that it is not null.
#[inline(always)]
pub unsafe fn arg(fcinfo: FunctionCallInfo, n: usize) -> Datum {
    unsafe { (*fcinfo).args.as_slice(n + 1)[n].value }
}

/// Argument `n` as a ulid: a pointer to 16 bytes, as for `uuid`.
#[inline(always)]
pub unsafe fn arg_ulid<'a>(fcinfo: FunctionCallInfo, n: usize) -> &'a [u8; BYTES] {
    unsafe { &*arg(fcinfo, n).cast_mut_ptr::<[u8; BYTES]>() }
}

/// Memory from the current memory context, as C's `palloc`.
///
/// Declared here without pgrx's per-call `sigsetjmp` wrapper: `palloc` only
/// fails on out-of-memory, and every caller has nothing to drop when it does,
/// so PostgreSQL's `longjmp` passes over plain frames only. This is the one
/// C call on the per-row paths.
#[inline(always)]
pub unsafe fn palloc(size: usize) -> *mut u8 {
    unsafe extern "C" {
        #[link_name = "palloc"]
        fn pg_palloc(size: usize) -> *mut core::ffi::c_void;
    }
    unsafe { pg_palloc(size).cast() }
}

/// Returns a ulid: 16 bytes copied into the current memory context.
#[inline(always)]
pub unsafe fn return_ulid(value: &[u8; BYTES]) -> Datum {
    unsafe {
        let out = palloc(BYTES);
        out.copy_from_nonoverlapping(value.as_ptr(), BYTES);
        Datum::from(out)
    }
}

/// Returns a `bytea` holding `bytes`.
pub unsafe fn return_bytea(bytes: &[u8]) -> Datum {
    unsafe {
        let total = pg_sys::VARHDRSZ + bytes.len();
        let out = palloc(total);
        pgrx::set_varsize_4b(out.cast(), total as i32);
        out.add(pg_sys::VARHDRSZ)
            .copy_from_nonoverlapping(bytes.as_ptr(), bytes.len());
        Datum::from(out)
    }
}
