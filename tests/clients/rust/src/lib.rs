//! The adapters from examples/rust/, compiled exactly as users copy them.

#[path = "../../../../examples/rust/ulid_postgres.rs"]
pub mod ulid_postgres;

#[path = "../../../../examples/rust/ulid_sqlx.rs"]
pub mod ulid_sqlx;
