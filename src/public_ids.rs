//! Public ids: `ulid_encrypt(id, key)` and `ulid_decrypt(id, key)`, AES of
//! the 16 bytes under a secret key (`ulid_core::cipher`), so that an id can
//! leave the database without saying when it was made.
//!
//! Expanding an AES key costs more than encrypting a block, and a query
//! passes the same key on every row: each call site (`FmgrInfo`) keeps the
//! last key it was given, expanded, in its `fn_extra`, and expands again
//! only when the key changes. The cached cipher lives in the call site's
//! memory context, and a reset callback drops it, clearing its key and
//! expanded key, when that context is reset or deleted.
//!
//! That clears the cache and nothing else. The cipher is built on this
//! backend's stack and moved into the cache, and the stack keeps those bytes
//! until they are overwritten; a key stored out of line or compressed is
//! detoasted into memory that is freed with the query's, not cleared; and
//! the key itself stays wherever the query took it from (a table's pages, a
//! constant in a plan, a parameter).

use crate::fmgr::{arg_bytes, arg_ulid, guard_callback, palloc, pg_function};
use core::ffi::c_void;
use core::mem::{align_of, size_of, MaybeUninit};
use core::ptr;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::pg_sys::{self, Datum, FunctionCallInfo};
use pgrx::prelude::*;
use pgrx::PgSqlErrorCode;
use ulid_core::cipher::{Cipher, KeyLengthError};
use ulid_core::codec::BYTES;

// The SQL is a file of its own: the update to 0.3.0 creates the same
// functions (sql/updates/ulid--0.2.0--0.3.0.sql).
extension_sql_file!(
    "../sql/shared/public_ids.sql",
    name = "ulid_public_ids",
    requires = ["ulid_shared_places_sql"],
);

/// What a call site keeps in `fn_extra`: the last key it was given,
/// expanded, in memory of the call site's context. The cipher is held in
/// place, so that a call reaches it in one step from `fn_extra`.
#[repr(C)]
struct KeyCache {
    /// Clears the key when the context is reset or deleted.
    callback: pg_sys::MemoryContextCallback,
    filled: bool,
    /// A `Cipher` when `filled`.
    cipher: MaybeUninit<Cipher>,
}

/// The cipher for `key`, from the call site's cache, or expanded now (and
/// cached) when the call site saw another key last or none yet.
///
/// The check inlines into the caller; expanding a key, with the large
/// stack frame a `Cipher` being built needs, is out of line in `fill`, so
/// that a call that finds its key pays for neither.
///
/// # Safety
///
/// `fcinfo` is a call of `ulid_encrypt` or `ulid_decrypt` with a call site
/// (`flinfo` not null), whose `fn_extra` is null or the cache `fill` put
/// there; `'a` ends before the call site's memory context is reset.
#[inline(always)]
unsafe fn cipher_for<'a>(
    fcinfo: FunctionCallInfo,
    key: &[u8],
    function: &'static str,
) -> &'a Cipher {
    // SAFETY: `fn_extra` is null or a cache of `fill`'s (the caller's
    // contract), whose cipher is initialized when `filled` says so.
    unsafe {
        let cache = (*(*fcinfo).flinfo).fn_extra.cast::<KeyCache>();
        if !cache.is_null() && (*cache).filled && (*cache).cipher.assume_init_ref().has_key(key) {
            return (*cache).cipher.assume_init_ref();
        }
        fill(fcinfo, key, function)
    }
}

/// Expands `key` into the call site's cache, making the cache first if the
/// call site has none, and returns the cached cipher.
///
/// # Safety
///
/// As `cipher_for`: a call with a call site whose `fn_extra` is null or a
/// cache of this function's, and `'a` ends before its context is reset.
#[cold]
#[inline(never)]
unsafe fn fill<'a>(fcinfo: FunctionCallInfo, key: &[u8], function: &'static str) -> &'a Cipher {
    // SAFETY: the caller's contract. A new cache is made in the call site's
    // context, aligned by hand, its callback and flag written before the
    // callback is registered; `forget_key` (which cannot fail) empties the
    // cache before the new cipher is written into it. The pgrx calls are
    // guarded: an ERROR unwinds as a panic and drops `cipher`.
    unsafe {
        let flinfo = (*fcinfo).flinfo;
        let mut cache = (*flinfo).fn_extra.cast::<KeyCache>();
        let cipher = new_cipher(key, function);
        if cache.is_null() {
            let context = (*flinfo).fn_mcxt;
            // palloc aligns to 8 bytes; the expanded key may want 16
            let room =
                pg_sys::MemoryContextAlloc(context, size_of::<KeyCache>() + align_of::<KeyCache>())
                    .cast::<u8>();
            cache = room.add(room.align_offset(align_of::<KeyCache>())).cast();
            (&raw mut (*cache).callback).write(pg_sys::MemoryContextCallback {
                func: Some(forget_key),
                arg: cache.cast(),
                next: ptr::null_mut(),
            });
            (&raw mut (*cache).filled).write(false);
            pg_sys::MemoryContextRegisterResetCallback(context, &raw mut (*cache).callback);
            (*flinfo).fn_extra = cache.cast();
        }
        forget_key(cache.cast());
        (*cache).cipher.write(cipher);
        (*cache).filled = true;
        (*cache).cipher.assume_init_ref()
    }
}

/// Drops the cached cipher, which clears the key.
///
/// # Safety
///
/// `arg` points to a cache `fill` made: PostgreSQL passes it when the call
/// site's context is reset or deleted (the callback `fill` registered), and
/// `fill` before it fills the cache again.
unsafe extern "C-unwind" fn forget_key(arg: *mut c_void) {
    // SAFETY: the whole body of a callback, whose frame holds nothing; the
    // cache is `fill`'s (this function's contract), its cipher initialized
    // when `filled` says so, and dropped once: the flag goes first.
    unsafe {
        guard_callback(|| {
            let cache = arg.cast::<KeyCache>();
            if (*cache).filled {
                (*cache).filled = false;
                (*cache).cipher.assume_init_drop();
            }
        })
    }
}

/// The key expanded, or SQLSTATE 22023 for a key AES does not take.
fn new_cipher(key: &[u8], function: &'static str) -> Cipher {
    match Cipher::new(key) {
        Ok(cipher) => cipher,
        Err(err) => report_key_length(err, function),
    }
}

/// Raises SQLSTATE 22023 for a key AES does not take.
fn report_key_length(err: KeyLengthError, function: &'static str) -> ! {
    ErrorReport::new(
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        err.message(),
        function,
    )
    .set_detail(err.detail())
    .report(PgLogLevel::ERROR);
    unreachable!("ERROR does not return")
}

/// Applies the call's cipher to its ulid argument, writing the result
/// straight into the 16 bytes returned: encryption when `ENCRYPT`,
/// decryption otherwise.
///
/// # Safety
///
/// `fcinfo` is a call of `ulid_encrypt(ulid, bytea)` or
/// `ulid_decrypt(ulid, bytea)`, both STRICT, whose call site (if it has
/// one) keeps nothing in `fn_extra` but this module's cache; and, as for
/// `palloc`, which it calls, the caller holds nothing to drop.
#[inline(always)]
unsafe fn apply<const ENCRYPT: bool>(fcinfo: FunctionCallInfo, function: &'static str) -> Datum {
    // SAFETY: the arguments are a ulid and a bytea, used within the call;
    // when `palloc` runs, this frame holds only borrows and the caller
    // nothing (the contract), and `out` is 16 fresh bytes. A call site's
    // `fn_extra` is this module's (the contract), as `cipher_for` asks.
    unsafe {
        let (value, key) = (arg_ulid(fcinfo, 0), arg_bytes(fcinfo, 1));
        let out = &mut *palloc(BYTES).cast::<[u8; BYTES]>();
        if (*fcinfo).flinfo.is_null() {
            // called directly, with no call site to cache in
            uncached::<ENCRYPT>(key, value, out, function);
        } else {
            run::<ENCRYPT>(cipher_for(fcinfo, key, function), value, out);
        }
        Datum::from(out.as_mut_ptr())
    }
}

/// Encrypts (`ENCRYPT`) or decrypts `value` into `out`.
#[inline(always)]
fn run<const ENCRYPT: bool>(cipher: &Cipher, value: &[u8; BYTES], out: &mut [u8; BYTES]) {
    if ENCRYPT {
        cipher.encrypt_into(value, out)
    } else {
        cipher.decrypt_into(value, out)
    }
}

/// `apply` for a call with no call site, with a key expanded for it alone.
#[cold]
#[inline(never)]
fn uncached<const ENCRYPT: bool>(
    key: &[u8],
    value: &[u8; BYTES],
    out: &mut [u8; BYTES],
    function: &'static str,
) {
    run::<ENCRYPT>(&new_cipher(key, function), value, out)
}

pg_function! {
    /// `ulid_encrypt(id, key)`
    fn ulid_encrypt(fcinfo) -> Datum {
        // SAFETY: a call of `ulid_encrypt(ulid, bytea)`, whose `fn_extra` no
        // one but this module sets; this body holds nothing to drop.
        unsafe { apply::<true>(fcinfo, "ulid_encrypt") }
    }

    /// `ulid_decrypt(id, key)`
    fn ulid_decrypt(fcinfo) -> Datum {
        // SAFETY: as in `ulid_encrypt`, for `ulid_decrypt(ulid, bytea)`.
        unsafe { apply::<false>(fcinfo, "ulid_decrypt") }
    }
}

#[cfg(any(test, feature = "pg_test"))]
#[pgrx::pg_schema]
mod tests {
    use pgrx::prelude::*;
    use pgrx::PgSqlErrorCode;

    /// One call site, many rows, keys changing between rows: every row gets
    /// its own key's answer, whatever the cache held before.
    #[pg_test]
    fn a_call_site_follows_its_key_from_row_to_row() {
        let sql = "SELECT count(*) FILTER (WHERE ulid_decrypt(ulid_encrypt(id, k), k) = id
                                             AND ulid_encrypt(id, k) <> ulid_encrypt(id, k2))
                   FROM (SELECT gen_ulid() AS id,
                                decode(repeat(to_hex(i % 3 + 16), n), 'hex') AS k,
                                decode(repeat(to_hex(i % 5 + 16), n), 'hex') AS k2,
                                n
                         FROM generate_series(1, 300) i,
                              LATERAL (SELECT (ARRAY[16, 24, 32])[i % 3 + 1] AS n) lens
                         WHERE i % 3 <> i % 5) rows";
        let rows = Spi::get_one::<i64>(sql).unwrap().unwrap();
        let all = Spi::get_one::<i64>(
            "SELECT count(*) FROM generate_series(1, 300) i WHERE i % 3 <> i % 5",
        )
        .unwrap()
        .unwrap();
        assert_eq!(rows, all);
    }

    #[pg_test]
    fn a_bad_key_after_a_good_one_is_an_error_and_the_next_good_one_works() {
        let error = crate::fmgr::tests::error_of(
            "SELECT ulid_encrypt(gen_ulid(), k)
             FROM unnest(ARRAY['\\x00112233445566778899aabbccddeeff'::bytea, '\\x00'::bytea]) k",
        );
        assert_eq!(
            error.map(|(code, _)| code),
            Some(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE)
        );
        let same = Spi::get_one::<bool>(
            "SELECT ulid_decrypt(ulid_encrypt(id, k), k) = id
             FROM (SELECT gen_ulid() id, '\\x00112233445566778899aabbccddeeff'::bytea k) x",
        )
        .unwrap();
        assert_eq!(same, Some(true));
    }
}
