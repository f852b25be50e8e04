//! The blocking `postgres` crate through examples/rust/ulid_postgres.rs.

use std::error::Error;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::BytesMut;
use postgres::error::SqlState;
use postgres::types::{to_sql_checked, IsNull, ToSql, Type};
use postgres::{Client, NoTls};
use ulid::Ulid;
use ulid_rust_client_check::ulid_postgres::PgUlid;

use crate::{scrambled, Result};

/// Sends whatever bytes it holds as a binary `ulid`, to see the server
/// refuse the wrong lengths.
#[derive(Debug)]
struct RawUlid(Vec<u8>);

impl ToSql for RawUlid {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn Error + Sync + Send>> {
        out.extend_from_slice(&self.0);
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        ty.name() == "ulid"
    }

    to_sql_checked!();
}

fn millis(time: SystemTime) -> Result<u64> {
    Ok(time.duration_since(UNIX_EPOCH)?.as_millis().try_into()?)
}

pub fn run(conninfo: &str, values: &[Ulid]) -> Result<usize> {
    let mut client = Client::connect(conninfo, NoTls)?;
    let mut checks = 0;
    client.batch_execute(
        "CREATE TABLE postgres_items (n int PRIMARY KEY, id ulid NOT NULL UNIQUE, parent ulid)",
    )?;

    // Values made by the server, read back in binary: generation order is
    // the crate's order, and the bytes encode as the server's text.
    client.execute(
        "INSERT INTO postgres_items (n, id)
         SELECT g, gen_monotonic_ulid() FROM generate_series(1, 1000) g",
        &[],
    )?;
    let mut previous = None;
    for row in client.query("SELECT id, id::text FROM postgres_items ORDER BY n", &[])? {
        let id: Ulid = row.get::<_, PgUlid>(0).into();
        let text: &str = row.get(1);
        ensure!(
            id.to_string() == text,
            "server says {text}, the bytes encode as {id}"
        );
        ensure!(
            previous < Some(id),
            "gen_monotonic_ulid() went backwards at {id}"
        );
        previous = Some(id);
        checks += 1;
    }

    // Values made here, sent in binary through one prepared statement.
    let insert = client.prepare("INSERT INTO postgres_items (n, id) VALUES ($1, $2)")?;
    for i in scrambled(values.len()) {
        client.execute(&insert, &[&(10_000 + i as i32), &PgUlid(values[i])])?;
    }
    for row in client.query(
        "SELECT n, id, id::text FROM postgres_items WHERE n >= 10000",
        &[],
    )? {
        let n: i32 = row.get(0);
        let id: PgUlid = row.get(1);
        let text: &str = row.get(2);
        let sent = values[n as usize - 10_000];
        ensure!(id.0 == sent, "row {n}: sent {sent}, received {}", id.0);
        ensure!(
            sent.to_string() == text,
            "row {n}: sent {sent}, the server has {text}"
        );
        checks += 1;
    }

    // The server's order is the crate's order, for every value here.
    let sorted: Vec<Ulid> = client
        .query("SELECT id FROM postgres_items ORDER BY id", &[])?
        .iter()
        .map(|row| row.get::<_, PgUlid>(0).0)
        .collect();
    let mut expected = sorted.clone();
    expected.sort();
    ensure!(sorted.len() == 1000 + values.len(), "{} rows", sorted.len());
    ensure!(
        sorted == expected,
        "ORDER BY id differs from the ulid crate's order"
    );
    checks += sorted.len();

    // ulid_timestamp() is the crate's timestamp_ms(), to the millisecond.
    for row in client.query("SELECT id, ulid_timestamp(id) FROM postgres_items", &[])? {
        let id: PgUlid = row.get(0);
        let at: SystemTime = row.get(1);
        ensure!(
            at.duration_since(UNIX_EPOCH)? == Duration::from_millis(id.0.timestamp_ms()),
            "{}: ulid_timestamp() is {at:?}",
            id.0
        );
        checks += 1;
    }

    // A binary parameter finds its row.
    let lookup = client.prepare("SELECT n FROM postgres_items WHERE id = $1")?;
    for (i, value) in values.iter().enumerate().step_by(50) {
        let n: i32 = client.query_one(&lookup, &[&PgUlid(*value)])?.get(0);
        ensure!(n == 10_000 + i as i32, "{value} found row {n}");
        checks += 1;
    }

    // Arrays, both ways: ulid[] is Vec<PgUlid> with no more code.
    let edges: Vec<PgUlid> = values[1000..].iter().copied().map(PgUlid).collect();
    let found: Vec<i32> = client
        .query(
            "SELECT n FROM postgres_items WHERE id = ANY($1) ORDER BY n",
            &[&edges],
        )?
        .iter()
        .map(|row| row.get(0))
        .collect();
    ensure!(
        found == (11_000..11_009).collect::<Vec<_>>(),
        "ANY($1) found {found:?}"
    );
    let aggregated: Vec<PgUlid> = client
        .query_one(
            "SELECT array_agg(id ORDER BY id) FROM postgres_items WHERE n >= 10000",
            &[],
        )?
        .get(0);
    let mut expected: Vec<PgUlid> = values.iter().copied().map(PgUlid).collect();
    expected.sort();
    ensure!(aggregated == expected, "array_agg(id ORDER BY id) differs");
    checks += found.len() + aggregated.len();

    // timestamptz::ulid is the smallest ULID of that millisecond.
    let now = SystemTime::now();
    for at in [
        UNIX_EPOCH,
        UNIX_EPOCH + Duration::from_micros(1_704_067_200_123_999),
        now,
    ] {
        let floor: PgUlid = client
            .query_one("SELECT $1::timestamptz::ulid", &[&at])?
            .get(0);
        let expected = Ulid::from_parts(millis(at)?, 0);
        ensure!(
            floor.0 == expected,
            "{at:?}::ulid is {}, not {expected}",
            floor.0
        );
        checks += 1;
    }

    // NULL is None, both ways.
    let some = PgUlid(values[0]);
    client.execute(
        "UPDATE postgres_items SET parent = $1 WHERE n IN (1, 2)",
        &[&some],
    )?;
    client.execute(
        "UPDATE postgres_items SET parent = $1 WHERE n = 2",
        &[&None::<PgUlid>],
    )?;
    let parents: Vec<Option<PgUlid>> = client
        .query(
            "SELECT parent FROM postgres_items WHERE n IN (1, 2, 3) ORDER BY n",
            &[],
        )?
        .iter()
        .map(|row| row.get(0))
        .collect();
    ensure!(parents == [Some(some), None, None], "parents: {parents:?}");
    checks += parents.len();

    // The adapter is for ulid only: a uuid is neither sent nor read as one.
    let err = client
        .query_one("SELECT $1::uuid", &[&some])
        .err()
        .ok_or("a PgUlid was sent as a uuid")?;
    ensure!(
        err.code().is_none(),
        "expected a client-side type error, got {err}"
    );
    let row = client.query_one("SELECT gen_ulid()::uuid", &[])?;
    ensure!(
        row.try_get::<_, PgUlid>(0).is_err(),
        "a uuid was read as a PgUlid"
    );
    checks += 2;

    // A binary ulid of any other length than 16 is refused by the server.
    for len in [0, 15, 17] {
        let err = client
            .execute(
                "INSERT INTO postgres_items (n, id) VALUES (-1, $1)",
                &[&RawUlid(vec![1; len])],
            )
            .err()
            .ok_or(format!("the server took a {len}-byte ulid"))?;
        ensure!(
            err.code() == Some(&SqlState::INVALID_BINARY_REPRESENTATION),
            "{len} bytes: {err}"
        );
        checks += 1;
    }
    let left: i64 = client
        .query_one("SELECT count(*) FROM postgres_items WHERE n = -1", &[])?
        .get(0);
    ensure!(left == 0, "a refused row was stored");

    Ok(checks)
}
