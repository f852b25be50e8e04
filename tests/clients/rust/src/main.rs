//! A client on PostgreSQL's binary protocol: inserts ULIDs as 16-byte
//! binary parameters, reads them back as 16-byte binary results, and checks
//! them against the server's own text form and an independent encoder.
//!
//! Usage: ulid-rust-client-check "host=... port=... user=... dbname=..."

use postgres::types::{to_sql_checked, FromSql, IsNull, ToSql, Type};
use postgres::{Client, NoTls};
use std::error::Error;

/// A ulid column as the binary protocol carries it: 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ulid([u8; 16]);

impl<'a> FromSql<'a> for Ulid {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn Error + Sync + Send>> {
        let bytes: [u8; 16] = raw.try_into().map_err(|_| format!("{} bytes, not 16", raw.len()))?;
        Ok(Ulid(bytes))
    }

    fn accepts(ty: &Type) -> bool {
        ty.name() == "ulid"
    }
}

impl ToSql for Ulid {
    fn to_sql(&self, _: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        out.extend_from_slice(&self.0);
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        ty.name() == "ulid"
    }

    to_sql_checked!();
}

fn main() -> Result<(), Box<dyn Error>> {
    let conninfo = std::env::args().nth(1).ok_or("usage: ulid-rust-client-check CONNINFO")?;
    let mut client = Client::connect(&conninfo, NoTls)?;
    client.batch_execute("CREATE TABLE rust_client (n int PRIMARY KEY, id ulid)")?;

    // values made by the server, read back in binary
    client.execute(
        "INSERT INTO rust_client SELECT g, gen_monotonic_ulid() FROM generate_series(1, 1000) g",
        &[],
    )?;
    // values made here, sent in binary, including both ends of the range
    let mine = [[0u8; 16], [0xFF; 16], *b"\x01\x94\x1f\x29\x7c\x00\xec\x5e\x77\x00\x52\x90\x06\xa7\x13\x47"];
    let insert = client.prepare("INSERT INTO rust_client VALUES ($1, $2)")?;
    for (i, bytes) in mine.iter().enumerate() {
        client.execute(&insert, &[&(2000 + i as i32), &Ulid(*bytes)])?;
    }

    let mut checked = 0;
    for row in client.query("SELECT n, id, id::text AS text FROM rust_client ORDER BY rust_client.id", &[])? {
        let n: i32 = row.get(0);
        let id: Ulid = row.get(1);
        let server_text: String = row.get(2);
        let client_text = ulid::Ulid(u128::from_be_bytes(id.0)).to_string();
        if client_text != server_text {
            return Err(format!("row {n}: server says {server_text}, bytes encode as {client_text}").into());
        }
        if n >= 2000 && id.0 != mine[(n - 2000) as usize] {
            return Err(format!("row {n}: sent {:?}, got {:?}", mine[(n - 2000) as usize], id.0).into());
        }
        checked += 1;
    }
    // a binary parameter in a WHERE clause finds its row
    let found: i32 = client.query_one("SELECT n FROM rust_client WHERE id = $1", &[&Ulid(mine[2])])?.get(0);
    if found != 2002 {
        return Err(format!("lookup by binary parameter found row {found}").into());
    }
    println!("rows checked: {checked}");
    Ok(())
}
