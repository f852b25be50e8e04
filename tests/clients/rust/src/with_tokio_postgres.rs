//! `tokio-postgres` through the same adapter as the blocking crate: the
//! prepared statements, ordering, NULLs and arrays, asynchronously.

use tokio_postgres::error::SqlState;
use tokio_postgres::NoTls;
use ulid::Ulid;
use ulid_rust_client_check::ulid_postgres::PgUlid;

use crate::{scrambled, Result};

pub async fn run(conninfo: &str, values: &[Ulid]) -> Result<usize> {
    let (client, connection) = tokio_postgres::connect(conninfo, NoTls).await?;
    let connection = tokio::spawn(connection);
    let mut checks = 0;
    client
        .batch_execute("CREATE TABLE tokio_postgres_items (n int PRIMARY KEY, id ulid)")
        .await?;

    let insert = client
        .prepare("INSERT INTO tokio_postgres_items VALUES ($1, $2)")
        .await?;
    for i in scrambled(values.len()) {
        client
            .execute(&insert, &[&(i as i32), &PgUlid(values[i])])
            .await?;
    }
    client
        .execute(
            "INSERT INTO tokio_postgres_items VALUES (-1, $1)",
            &[&None::<PgUlid>],
        )
        .await?;

    // Each value as sent, in the crate's order, with the crate's timestamp.
    let rows = client
        .query(
            "SELECT n, id, (extract(epoch FROM ulid_timestamp(id)) * 1000)::int8
             FROM tokio_postgres_items WHERE id IS NOT NULL ORDER BY id",
            &[],
        )
        .await?;
    let mut expected = values.to_vec();
    expected.sort();
    ensure!(rows.len() == expected.len(), "{} rows", rows.len());
    for (row, want) in rows.iter().zip(&expected) {
        let n: i32 = row.get(0);
        let id: Ulid = row.get::<_, PgUlid>(1).into();
        let ms: i64 = row.get(2);
        ensure!(
            id == *want,
            "ORDER BY id has {id} where the crate has {want}"
        );
        ensure!(
            id == values[n as usize],
            "row {n}: sent {}, received {id}",
            values[n as usize]
        );
        ensure!(
            ms as u64 == id.timestamp_ms(),
            "{id}: ulid_timestamp() is {ms} ms"
        );
        checks += 1;
    }

    let null: Option<PgUlid> = client
        .query_one("SELECT id FROM tokio_postgres_items WHERE n = -1", &[])
        .await?
        .get(0);
    ensure!(null.is_none(), "NULL read as {null:?}");
    let by_key: Vec<PgUlid> = client
        .query_one(
            "SELECT array_agg(id ORDER BY n) FROM tokio_postgres_items WHERE id = ANY($1)",
            &[&vec![PgUlid(values[7]), PgUlid(values[3])]],
        )
        .await?
        .get(0);
    ensure!(
        by_key == [PgUlid(values[3]), PgUlid(values[7])],
        "ANY($1): {by_key:?}"
    );
    checks += 2;

    // The adapter refuses other types rather than pass its bytes off as one.
    let err = client
        .query_one("SELECT $1::uuid", &[&PgUlid(values[0])])
        .await
        .err()
        .ok_or("a PgUlid was sent as a uuid")?;
    ensure!(
        err.code().is_none(),
        "expected a client-side type error, got {err}"
    );
    // A bytea of the wrong length is refused like a binary value of one.
    let err = client
        .query_one("SELECT '\\x00'::bytea::ulid", &[])
        .await
        .err()
        .ok_or("a 1-byte bytea became a ulid")?;
    ensure!(
        err.code() == Some(&SqlState::INVALID_BINARY_REPRESENTATION),
        "bytea of 1 byte: {err}"
    );
    checks += 2;

    drop(client);
    connection.await??;
    Ok(checks)
}
