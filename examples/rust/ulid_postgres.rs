//! `ulid` columns with the `postgres` and `tokio-postgres` crates, as values
//! of the `ulid` crate.
//!
//! Copy this file into your project. It needs:
//!
//! ```toml
//! ulid = "1"
//! postgres-types = "0.2"   # what postgres::types and tokio_postgres::types re-export
//! bytes = "1"
//! ```
//!
//! Both crates always exchange values in binary, where a `ulid` is its 16
//! bytes, timestamp first, so nothing is parsed or formatted on either side.
//! The type is recognised by its name: its OID is assigned when the extension
//! is created and differs from one database to the next. (The `ulid` crate's
//! own `postgres` feature only accepts the `uuid` type.)
//!
//! ```ignore
//! let id = PgUlid(ulid::Ulid::new());
//! client.execute("INSERT INTO orders (id) VALUES ($1)", &[&id])?;
//! let row = client.query_one("SELECT id FROM orders WHERE id = $1", &[&id])?;
//! let back: ulid::Ulid = row.get::<_, PgUlid>(0).into();
//! ```
//!
//! `Option<PgUlid>` maps NULL and `Vec<PgUlid>` maps `ulid[]`, as for any
//! other type.

use std::error::Error;

use bytes::BytesMut;
use postgres_types::{to_sql_checked, FromSql, IsNull, ToSql, Type};
use ulid::Ulid;

/// A `ulid` value for the `postgres` and `tokio-postgres` crates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct PgUlid(pub Ulid);

impl From<Ulid> for PgUlid {
    fn from(ulid: Ulid) -> Self {
        PgUlid(ulid)
    }
}

impl From<PgUlid> for Ulid {
    fn from(value: PgUlid) -> Self {
        value.0
    }
}

impl<'a> FromSql<'a> for PgUlid {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn Error + Sync + Send>> {
        let bytes: [u8; 16] = raw
            .try_into()
            .map_err(|_| format!("a binary ulid is 16 bytes, received {}", raw.len()))?;
        Ok(PgUlid(Ulid::from_bytes(bytes)))
    }

    fn accepts(ty: &Type) -> bool {
        ty.name() == "ulid"
    }
}

impl ToSql for PgUlid {
    fn to_sql(&self, _: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        out.extend_from_slice(&self.0.to_bytes());
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        ty.name() == "ulid"
    }

    to_sql_checked!();
}
