//! `ulid`: a native ULID type for PostgreSQL. This crate is the SQL layer;
//! the value, its texts, the monotonic state machine and the time
//! arithmetic are the pure crate `ulid-core` (`crates/ulid-core`).
//!
//! Each module has its own SQL next to its code:
//! - `fmgr`: helpers for PostgreSQL's version-1 calling convention;
//! - `backend_local`: state owned by one backend;
//! - `type_io`: the `ulid` type and its text and binary I/O;
//! - `operators`: operators, btree/hash/BRIN operator classes, `min`/`max`;
//! - `casts`: conversions to and from uuid, timestamptz and bytea;
//! - `generators`: `gen_ulid()` and `gen_monotonic_ulid()`;
//! - `settings`: the generators' settings, `ulid.monotonic_step` and
//!   `ulid.layout`;
//! - `shmem`: each database's monotonic state in a table in shared memory
//!   (reserved at start when preloaded, else, on 17 and later, in the
//!   dynamic shared memory registry), and `spinlock`, the lock of that
//!   table and of each of its places;
//! - `public_ids`: `ulid_encrypt` and `ulid_decrypt`, with a key cache per
//!   call site.
//!
//! Unsafe code says why it is sound where it is: every `unsafe fn` has a
//! `# Safety` section (what its caller must guarantee) and every `unsafe`
//! block a `// SAFETY:` comment (why the guarantee holds there); clippy
//! refuses one without it (`clippy.toml` extends `missing_safety_doc` to
//! private functions). `fmgr` states the rule for the unguarded C calls.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

mod backend_local;
mod casts;
mod fmgr;
mod generators;
mod operators;
mod public_ids;
mod settings;
mod shmem;
mod spinlock;
mod type_io;

pgrx::pg_module_magic!(name, version);

/// Runs when the library is loaded: at server start when it is in
/// `shared_preload_libraries`, otherwise on first use in a session.
#[pgrx::pg_guard]
pub extern "C-unwind" fn _PG_init() {
    settings::define();
    shmem::init();
}

#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    /// The in-server tests run with the library preloaded, so they see the
    /// shared-memory generator; the client-side tests cover both setups.
    #[must_use]
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec!["shared_preload_libraries = 'ulid'"]
    }
}
