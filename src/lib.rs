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
//! - `casts`: conversions to and from uuid, timestamptz and bytea.

mod casts;
mod codec;
mod datum;
mod fmgr;
mod generator;
mod ops;

pgrx::pg_module_magic!(name, version);

#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    #[must_use]
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec![]
    }
}
