//! sqlx through examples/rust/ulid_sqlx.rs, with runtime queries only.

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::postgres::{PgArgumentBuffer, PgConnectOptions, PgTypeInfo, Postgres};
use sqlx::{Connection, Encode, PgConnection, Row, Type};
use ulid::Ulid;
use ulid_rust_client_check::ulid_sqlx::PgUlid;

use crate::{conninfo_pairs, scrambled, Result};

/// Sends whatever bytes it holds as a binary `ulid`, to see the server
/// refuse the wrong lengths.
struct RawUlid(Vec<u8>);

impl Type<Postgres> for RawUlid {
    fn type_info() -> PgTypeInfo {
        PgTypeInfo::with_name("ulid")
    }
}

impl Encode<'_, Postgres> for RawUlid {
    fn encode_by_ref(
        &self,
        buf: &mut PgArgumentBuffer,
    ) -> std::result::Result<IsNull, BoxDynError> {
        buf.extend_from_slice(&self.0);
        Ok(IsNull::No)
    }
}

fn options(conninfo: &str) -> Result<PgConnectOptions> {
    let mut options = PgConnectOptions::new_without_pgpass();
    for (key, value) in conninfo_pairs(conninfo) {
        options = match key {
            // a directory is a Unix socket's, as in libpq
            "host" => options.host(value),
            "port" => options.port(value.parse()?),
            "user" => options.username(value),
            "dbname" => options.database(value),
            _ => return Err(format!("unexpected connection parameter {key}").into()),
        };
    }
    Ok(options)
}

pub async fn run(conninfo: &str, values: &[Ulid]) -> Result<usize> {
    let mut conn = PgConnection::connect_with(&options(conninfo)?).await?;
    let mut checks = 0;
    sqlx::query("CREATE TABLE sqlx_items (n int PRIMARY KEY, id ulid UNIQUE, parent ulid)")
        .execute(&mut conn)
        .await?;

    // Values made here, sent in binary through one prepared statement
    // (sqlx prepares and caches every query).
    for i in scrambled(values.len()) {
        sqlx::query("INSERT INTO sqlx_items (n, id) VALUES ($1, $2)")
            .bind(i as i32)
            .bind(PgUlid(values[i]))
            .execute(&mut conn)
            .await?;
    }
    let rows: Vec<(i32, PgUlid, String)> = sqlx::query_as("SELECT n, id, id::text FROM sqlx_items")
        .fetch_all(&mut conn)
        .await?;
    ensure!(rows.len() == values.len(), "{} rows", rows.len());
    for (n, id, text) in rows {
        let sent = values[n as usize];
        ensure!(id.0 == sent, "row {n}: sent {sent}, received {}", id.0);
        ensure!(
            sent.to_string() == text,
            "row {n}: sent {sent}, the server has {text}"
        );
        checks += 1;
    }

    // The server's order is the crate's order.
    let sorted: Vec<PgUlid> = sqlx::query_scalar("SELECT id FROM sqlx_items ORDER BY id")
        .fetch_all(&mut conn)
        .await?;
    let mut expected: Vec<PgUlid> = values.iter().copied().map(PgUlid).collect();
    expected.sort();
    ensure!(
        sorted == expected,
        "ORDER BY id differs from the ulid crate's order"
    );
    checks += sorted.len();

    // ulid_timestamp() is the crate's timestamp_ms(), to the millisecond.
    let stamps: Vec<(PgUlid, i64)> = sqlx::query_as(
        "SELECT id, (extract(epoch FROM ulid_timestamp(id)) * 1000)::int8 FROM sqlx_items",
    )
    .fetch_all(&mut conn)
    .await?;
    for (id, ms) in &stamps {
        ensure!(
            *ms as u64 == id.0.timestamp_ms(),
            "{}: ulid_timestamp() is {ms} ms",
            id.0
        );
        checks += 1;
    }

    // timestamptz::ulid is the smallest ULID of that millisecond.
    for (value, text, ms) in [
        (values[0], None, values[0].timestamp_ms()),
        (values[1008], None, (1 << 48) - 1),
        (
            values[0],
            Some("2024-01-01 00:00:00.123999+00"),
            1_704_067_200_123,
        ),
    ] {
        let floor: PgUlid =
            sqlx::query_scalar("SELECT coalesce($2::timestamptz, ulid_timestamp($1))::ulid")
                .bind(PgUlid(value))
                .bind(text)
                .fetch_one(&mut conn)
                .await?;
        ensure!(
            floor.0 == Ulid::from_parts(ms, 0),
            "{value} {text:?}: {}",
            floor.0
        );
        checks += 1;
    }

    // A binary parameter finds its row.
    for (i, value) in values.iter().enumerate().step_by(50) {
        let n: i32 = sqlx::query_scalar("SELECT n FROM sqlx_items WHERE id = $1")
            .bind(PgUlid(*value))
            .fetch_one(&mut conn)
            .await?;
        ensure!(n == i as i32, "{value} found row {n}");
        checks += 1;
    }

    // Arrays, both ways.
    let edges: Vec<PgUlid> = values[1000..].iter().copied().map(PgUlid).collect();
    let found: Vec<i32> =
        sqlx::query_scalar("SELECT n FROM sqlx_items WHERE id = ANY($1) ORDER BY n")
            .bind(&edges)
            .fetch_all(&mut conn)
            .await?;
    ensure!(
        found == (1000..1009).collect::<Vec<_>>(),
        "ANY($1) found {found:?}"
    );
    let aggregated: Vec<PgUlid> =
        sqlx::query_scalar("SELECT array_agg(id ORDER BY id) FROM sqlx_items")
            .fetch_one(&mut conn)
            .await?;
    ensure!(aggregated == expected, "array_agg(id ORDER BY id) differs");
    checks += found.len() + aggregated.len();

    // NULL is None, both ways.
    for (n, parent) in [(1, Some(PgUlid(values[0]))), (2, None)] {
        sqlx::query("UPDATE sqlx_items SET parent = $1 WHERE n = $2")
            .bind(parent)
            .bind(n)
            .execute(&mut conn)
            .await?;
    }
    let parents: Vec<Option<PgUlid>> =
        sqlx::query_scalar("SELECT parent FROM sqlx_items WHERE n IN (1, 2, 3) ORDER BY n")
            .fetch_all(&mut conn)
            .await?;
    ensure!(
        parents == [Some(PgUlid(values[0])), None, None],
        "parents: {parents:?}"
    );
    checks += parents.len();

    // Unprepared queries return text, which the adapter reads too.
    let rows = sqlx::raw_sql("SELECT id FROM sqlx_items ORDER BY id")
        .fetch_all(&mut conn)
        .await?;
    let texts = rows
        .iter()
        .map(|row| row.try_get::<PgUlid, _>(0))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    ensure!(texts == expected, "text results differ from binary ones");
    checks += texts.len();

    // The adapter is for ulid only: a uuid column is not read as one.
    let uuid = sqlx::query_scalar::<_, PgUlid>("SELECT gen_ulid()::uuid")
        .fetch_one(&mut conn)
        .await;
    ensure!(uuid.is_err(), "a uuid was read as a PgUlid");
    checks += 1;

    // A binary ulid of any other length than 16 is refused by the server.
    for len in [0, 15, 17] {
        let err = sqlx::query("INSERT INTO sqlx_items (n, id) VALUES (-1, $1)")
            .bind(RawUlid(vec![1; len]))
            .execute(&mut conn)
            .await
            .err()
            .ok_or(format!("the server took a {len}-byte ulid"))?;
        let code = err.as_database_error().and_then(|e| e.code());
        ensure!(code.as_deref() == Some("22P03"), "{len} bytes: {err}");
        checks += 1;
    }
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM sqlx_items WHERE n = -1")
        .fetch_one(&mut conn)
        .await?;
    ensure!(left == 0, "a refused row was stored");

    conn.close().await?;
    Ok(checks)
}
