"""What the TimescaleDB and pg_partman tests share: a month of rows, one a
minute, and a one-row query."""

from __future__ import annotations

MINUTES = 30 * 24 * 60


def insert_30_days(conn, table: str) -> None:
    """One row a minute for the last 30 days, each with an id of its time
    (in the layout the session's ulid.layout says)."""
    conn.execute(f"INSERT INTO {table} SELECT gen_ulid(now() - g * interval '1 minute'), g "
                 f"FROM generate_series(0, {MINUTES - 1}) g")


def one(conn, sql: str, *params):
    return conn.execute(sql, params or None).fetchone()


def rows_of_the_last_day(conn, table: str) -> int:
    """How many of insert_30_days' rows (one a minute back from the moment
    they were made) have a time within the last day of the transaction's
    now(): 1,441 at that moment, one fewer for each minute since. Called in
    the transaction of the count it checks, so that both see one now()."""
    return one(conn, f"""
        SELECT floor(extract(epoch FROM ulid_timestamp(id::ulid) - (now() - interval '1 day')) / 60)::int + 1
        FROM {table} WHERE v = 0""")[0]
