//! `ulid`: a native ULID type for PostgreSQL.
//!
//! Pure logic, no PostgreSQL, tested with plain `cargo test`:
//! - `codec`: the 16-byte value and its Crockford base32 text form;
//! - `generator`: the monotonic state machine and the per-process CSPRNG.
//!
//! The SQL layer, each module with its own SQL next to its code:
//! - `fmgr`: helpers for PostgreSQL's version-1 calling convention;
//! - `datum`: the `ulid` type and its text and binary I/O;
//! - `ops`: operators, btree/hash/BRIN operator classes, `min`/`max`;
//! - `casts`: conversions to and from uuid, timestamptz and bytea;
//! - `gen`: the generators and their per-session or shared state.

mod casts;
mod codec;
mod datum;
mod fmgr;
mod gen;
mod generator;
mod ops;

pgrx::pg_module_magic!(name, version);

/// Runs when the library is loaded: at server start when it is in
/// `shared_preload_libraries`, otherwise on first use in a session.
#[pgrx::pg_guard]
pub extern "C-unwind" fn _PG_init() {
    gen::init();
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
