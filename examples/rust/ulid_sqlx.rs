//! `ulid` columns with sqlx's `Postgres` driver, as values of the `ulid` crate.
//!
//! Copy this file into your project. It needs:
//!
//! ```toml
//! ulid = "1"
//! sqlx = { version = "0.8", features = ["postgres", "runtime-tokio"] }
//! ```
//!
//! This is how sqlx supports `uuid` itself: the value travels in binary as
//! its 16 bytes, timestamp first. The type is declared by name, and sqlx
//! looks its OID up on the connection (the OID is assigned when the
//! extension is created and differs from one database to the next).
//!
//! ```ignore
//! let id = PgUlid(ulid::Ulid::new());
//! sqlx::query("INSERT INTO orders (id) VALUES ($1)").bind(id).execute(&pool).await?;
//! let back: PgUlid = sqlx::query_scalar("SELECT id FROM orders WHERE id = $1")
//!     .bind(id)
//!     .fetch_one(&pool)
//!     .await?;
//! ```
//!
//! `Option<PgUlid>` maps NULL and `Vec<PgUlid>` maps `ulid[]`. This is for
//! sqlx's runtime functions (`query`, `query_as`, `query_scalar`); the
//! compile-time checked macros (`query!`) are not covered.

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::postgres::{
    PgArgumentBuffer, PgHasArrayType, PgTypeInfo, PgValueFormat, PgValueRef, Postgres,
};
use sqlx::{Decode, Encode, Type};
use ulid::Ulid;

/// A `ulid` value for sqlx.
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

impl Type<Postgres> for PgUlid {
    fn type_info() -> PgTypeInfo {
        PgTypeInfo::with_name("ulid")
    }
}

impl PgHasArrayType for PgUlid {
    fn array_type_info() -> PgTypeInfo {
        PgTypeInfo::array_of("ulid")
    }
}

impl Encode<'_, Postgres> for PgUlid {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        buf.extend_from_slice(&self.0.to_bytes());
        Ok(IsNull::No)
    }

    fn size_hint(&self) -> usize {
        16
    }
}

impl Decode<'_, Postgres> for PgUlid {
    fn decode(value: PgValueRef<'_>) -> Result<Self, BoxDynError> {
        let ulid = match value.format() {
            PgValueFormat::Binary => {
                let raw = value.as_bytes()?;
                let bytes: [u8; 16] = raw
                    .try_into()
                    .map_err(|_| format!("a binary ulid is 16 bytes, received {}", raw.len()))?;
                Ulid::from_bytes(bytes)
            }
            // simple (unprepared) queries return text
            PgValueFormat::Text => Ulid::from_string(value.as_str()?)?,
        };
        Ok(PgUlid(ulid))
    }
}
