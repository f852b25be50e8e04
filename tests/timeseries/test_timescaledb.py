"""TimescaleDB hypertables keyed by ulid ids, on Debian's TimescaleDB (the
Apache-licensed part: hypertables, drop_chunks, time_bucket) beside
Debian's PostgreSQL 18, both ways a user can go:

- a `ulid` column, partitioned through `partition_func => 'ulid_timestamp'`;
- a `uuid` column fed by the generators under `ulid.layout = uuidv7`, which
  TimescaleDB partitions natively as UUIDv7s.

Which chunks a query reads is read from EXPLAIN, never from timings. The
data is 30 days of one row a minute, up to now.
"""

from __future__ import annotations

import re

import psycopg
import pytest

from harness.clock import clear_of_midnight
from thirty_days import MINUTES, insert_30_days, one, rows_of_the_last_day

pytestmark = pytest.mark.builds("18")

EXPLAIN = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) "


def plan_of(conn, sql: str, analyze: bool = True) -> str:
    prefix = EXPLAIN if analyze else "EXPLAIN (COSTS OFF) "
    return "\n".join(row[0] for row in conn.execute(prefix + sql))


def chunks_read(plan: str) -> set[str]:
    """The chunks a plan scans."""
    return set(re.findall(r"Scan(?: using \S+)? on (_hyper_\d+_\d+_chunk)", plan))


def excluded_at_startup(plan: str) -> int:
    found = re.search(r"Chunks excluded during startup: (\d+)", plan)
    return int(found.group(1)) if found else 0


def first_chunk_check(conn, hypertable: str) -> str:
    """The CHECK constraint of a hypertable's oldest chunk."""
    return one(conn, """
        SELECT pg_get_constraintdef(k.oid) FROM pg_constraint k
        WHERE k.contype = 'c' AND k.conrelid = (SELECT format('%%I.%%I', chunk_schema, chunk_name)::regclass
            FROM timescaledb_information.chunks WHERE hypertable_name = %s ORDER BY range_start LIMIT 1)""",
               hypertable)[0]


@pytest.fixture(scope="module")
def tsdb(timeseries):
    # the module's chunks are days up to now(), read again later
    clear_of_midnight(600)
    name = timeseries.create_database("tsdb")
    with timeseries.connect(name) as conn:
        conn.execute("CREATE EXTENSION timescaledb")
    return name


@pytest.fixture(scope="module")
def ulid_column(timeseries, tsdb):
    """A hypertable on a ulid column, by day of ulid_timestamp(id)."""
    with timeseries.connect(tsdb) as conn:
        conn.execute("CREATE TABLE ev (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), v int)")
        conn.execute("SELECT create_hypertable('ev', by_range('id', INTERVAL '1 day', "
                     "partition_func => 'ulid_timestamp'))")
        insert_30_days(conn, "ev")
        conn.execute("ANALYZE ev")
    return "ev"


def test_a_ulid_column_is_chunked_by_the_day_of_its_timestamp(timeseries, tsdb, ulid_column):
    with timeseries.connect(tsdb) as conn:
        # the interval of a dimension of a type that is not a time is kept as
        # a number, here the microseconds of a day
        assert one(conn, "SELECT column_type::text, coalesce(time_interval::text, integer_interval::text) "
                         "FROM timescaledb_information.dimensions WHERE hypertable_name = 'ev'") in (
            ("ulid", "1 day"), ("ulid", str(24 * 3600 * 10**6)))
        assert one(conn, "SELECT partitioning_func FROM _timescaledb_catalog.dimension "
                         "WHERE column_name = 'id' AND hypertable_id = (SELECT id FROM _timescaledb_catalog.hypertable "
                         "WHERE table_name = 'ev')") == ("ulid_timestamp",)
        (chunks,) = one(conn, "SELECT count(*) FROM show_chunks('ev')")
        (days,) = one(conn, "SELECT count(DISTINCT date_trunc('day', ulid_timestamp(id))) FROM ev")
        assert chunks == days and chunks in (30, 31)
        # every row is in the chunk of its id's day
        misplaced = one(conn, """
            SELECT count(*) FROM ev e
            JOIN timescaledb_information.chunks c
              ON c.hypertable_name = 'ev' AND e.tableoid = format('%I.%I', c.chunk_schema, c.chunk_name)::regclass
            WHERE NOT (ulid_timestamp(e.id) >= c.range_start AND ulid_timestamp(e.id) < c.range_end)""")
        assert misplaced == (0,)
        # a chunk's constraint is on ulid_timestamp(id)
        check = first_chunk_check(conn, "ev")
        assert check.startswith("CHECK (((ulid_timestamp(id) >= '"), check


def test_a_ulid_column_excludes_chunks_for_constant_id_ranges_when_planning(timeseries, tsdb, ulid_column):
    with timeseries.connect(tsdb) as conn:
        # bounds that are constants: two days ago, as ids
        low, high = one(conn, "SELECT (date_trunc('day', now()) - interval '2 days')::ulid::text, "
                              "(date_trunc('day', now()) - interval '1 day')::ulid::text")
        sql = f"SELECT count(*) FROM ev WHERE id >= '{low}' AND id < '{high}'"
        plan = plan_of(conn, sql, analyze=False)
        assert len(chunks_read(plan)) == 1, plan
        assert one(conn, sql) == (24 * 60,)


def test_a_ulid_column_excludes_at_startup_by_ulid_timestamp_only(timeseries, tsdb, ulid_column):
    """The last day: a bound on ulid_timestamp(id) excludes every chunk but
    the two the day spans when the executor starts; the same bound on the
    id itself (id >= (now() - ...)::ulid) reads every chunk."""
    with timeseries.connect(tsdb) as conn:
        (chunks,) = one(conn, "SELECT count(*) FROM show_chunks('ev')")
        by_time = "SELECT count(*) FROM ev WHERE ulid_timestamp(id) >= now() - interval '1 day'"
        plan = plan_of(conn, by_time)
        assert excluded_at_startup(plan) == chunks - 2, plan
        assert len(chunks_read(plan)) == 2, plan
        by_id = "SELECT count(*) FROM ev WHERE id >= (now() - interval '1 day')::ulid"
        plan = plan_of(conn, by_id)
        assert excluded_at_startup(plan) == 0, plan
        assert len(chunks_read(plan)) == chunks, plan
        # both count the same rows: one a minute for a day
        (cutoff,) = one(conn, "SELECT now() - interval '1 day'")
        assert one(conn, "SELECT count(*) FROM ev WHERE ulid_timestamp(id) >= %s", cutoff) == \
            one(conn, "SELECT count(*) FROM ev WHERE id >= %s::timestamptz::ulid", cutoff)
        with conn.transaction():
            assert one(conn, by_time)[0] == rows_of_the_last_day(conn, "ev")
        # a generic plan of a prepared statement: the same
        conn.execute("SET plan_cache_mode = force_generic_plan")
        conn.execute("PREPARE by_time(timestamptz) AS SELECT count(*) FROM ev WHERE ulid_timestamp(id) >= $1")
        conn.execute("PREPARE by_id(ulid) AS SELECT count(*) FROM ev WHERE id >= $1")
        plan = plan_of(conn, "EXECUTE by_time(now() - interval '1 day')")
        assert excluded_at_startup(plan) == chunks - 2, plan
        plan = plan_of(conn, "EXECUTE by_id((now() - interval '1 day')::ulid)")
        assert excluded_at_startup(plan) == 0, plan


def test_a_ulid_column_keeps_its_primary_key_and_defaults(timeseries, tsdb, ulid_column):
    with timeseries.connect(tsdb) as conn:
        try:
            (made,) = one(conn, "INSERT INTO ev (v) VALUES (-1) RETURNING id")
            assert one(conn, "SELECT ulid_timestamp(%s::ulid) > now() - interval '1 minute'", made) == (True,)
            with pytest.raises(psycopg.errors.UniqueViolation):
                conn.execute("INSERT INTO ev VALUES (%s, -2)", [made])
            # today's chunk holds only the rows since midnight UTC, few of
            # them early in the day, where a sequential scan costs less than
            # the index: what is asked is that the chunk's copy of the
            # primary key serves the lookup
            conn.execute("SET enable_seqscan = off")
            plan = plan_of(conn, f"SELECT v FROM ev WHERE id = '{made}'", analyze=False)
            assert len(chunks_read(plan)) == 1, plan
            assert re.search(r"Index (Only )?Scan using \S+pkey\S* on _hyper_\d+_\d+_chunk", plan), plan
        finally:
            conn.execute("RESET enable_seqscan")
            conn.execute("DELETE FROM ev WHERE v < 0")


def test_time_bucket_over_ulid_timestamp(timeseries, tsdb, ulid_column):
    with timeseries.connect(tsdb) as conn:
        buckets = conn.execute("""
            SELECT time_bucket('1 day', ulid_timestamp(id)) AS day, count(*) FROM ev
            GROUP BY day ORDER BY day""").fetchall()
        days = conn.execute("""
            SELECT date_trunc('day', ulid_timestamp(id)) AS day, count(*) FROM ev
            GROUP BY day ORDER BY day""").fetchall()
        assert buckets == days
        assert sum(n for _, n in buckets) == MINUTES
        assert all(n == 24 * 60 for _, n in buckets[1:-1])


def test_drop_chunks_keeps_the_last_week(timeseries, tsdb):
    """Retention on the ulid column: drop_chunks(older_than => ...) drops
    whole days, by the time in the ids. On a table of its own."""
    with timeseries.connect(tsdb) as conn:
        conn.execute("SET TimeZone = 'UTC'")  # chunks are whole UTC days
        conn.execute("CREATE TABLE kept (id ulid NOT NULL, v int)")
        conn.execute("SELECT create_hypertable('kept', by_range('id', INTERVAL '1 day', "
                     "partition_func => 'ulid_timestamp'))")
        insert_30_days(conn, "kept")
        (before,) = one(conn, "SELECT count(*) FROM show_chunks('kept')")
        (cutoff,) = one(conn, "SELECT now() - interval '7 days'")
        # what must stay: every row of a day that ends after the cutoff
        (staying,) = one(conn, "SELECT count(*) FROM kept WHERE ulid_timestamp(id) >= date_trunc('day', %s::timestamptz)",
                         cutoff)
        dropped = conn.execute("SELECT drop_chunks('kept', older_than => %s::timestamptz)", [cutoff]).fetchall()
        (after,) = one(conn, "SELECT count(*) FROM show_chunks('kept')")
        assert len(dropped) == before - after > 20
        assert after in (7, 8)
        assert one(conn, "SELECT count(*) FROM kept") == (staying,)
        assert one(conn, "SELECT min(ulid_timestamp(id)) >= date_trunc('day', %s::timestamptz) FROM kept",
                   cutoff) == (True,)


@pytest.fixture(scope="module")
def uuidv7_column(timeseries, tsdb):
    """A hypertable on a uuid column, TimescaleDB's own UUIDv7 partitioning,
    fed with ULIDs laid out as UUIDv7s."""
    with timeseries.connect(tsdb) as conn:
        conn.execute("CREATE TABLE ev7 (id uuid PRIMARY KEY DEFAULT gen_monotonic_ulid(), v int)")
        conn.execute("SELECT create_hypertable('ev7', by_range('id', INTERVAL '1 day'))")
        conn.execute("SET ulid.layout = uuidv7")
        insert_30_days(conn, "ev7")
        conn.execute("ANALYZE ev7")
    return "ev7"


def test_a_uuid_hypertable_takes_ulids_only_in_the_uuidv7_layout(timeseries, tsdb, uuidv7_column):
    with timeseries.connect(tsdb) as conn:
        assert one(conn, "SHOW ulid.layout") == ("ulid",)
        # the ULID layout's version nibble is random: TimescaleDB refuses it.
        # A session's monotonic ids share their first id's nibble (a 7 one
        # time in 16), so the ids are drawn independently: 64 of them are all
        # 7s once in 16**64.
        with pytest.raises(psycopg.Error, match="is not a version 7 UUID"):
            conn.execute("INSERT INTO ev7 SELECT gen_ulid(), g FROM generate_series(1, 64) g")
        conn.execute("SET ulid.layout = uuidv7")
        rows = conn.execute("INSERT INTO ev7 (v) SELECT g FROM generate_series(-1000, -1) g RETURNING id").fetchall()
        assert len(rows) == 1000
        # core, TimescaleDB and ulid agree on what they are
        assert one(conn, """
            SELECT count(*) FILTER (WHERE uuid_extract_version(id) = 7),
                   count(*) FILTER (WHERE uuid_extract_timestamp(id) = ulid_timestamp(id::ulid)),
                   count(*) FILTER (WHERE uuid_timestamp(id) = ulid_timestamp(id::ulid)),
                   count(*) FILTER (WHERE length(id::ulid::text) = 26)
            FROM ev7""") == (MINUTES + 1000,) * 4
        # the DEFAULT's values are in the order they were made
        assert [v for v, in conn.execute("SELECT v FROM ev7 WHERE v < 0 ORDER BY id")] == list(range(-1000, 0))
        conn.execute("DELETE FROM ev7 WHERE v < 0")


def test_a_uuid_hypertable_excludes_at_startup_for_ulid_bounds(timeseries, tsdb, uuidv7_column):
    with timeseries.connect(tsdb) as conn:
        (chunks,) = one(conn, "SELECT count(*) FROM show_chunks('ev7')")
        check = first_chunk_check(conn, "ev7")
        assert check.startswith("CHECK (((id >= '"), check
        last_day = "SELECT count(*) FROM ev7 WHERE id >= (now() - interval '1 day')::ulid::uuid"
        plan = plan_of(conn, last_day)
        assert excluded_at_startup(plan) == chunks - 2, plan
        assert len(chunks_read(plan)) == 2, plan
        with conn.transaction():
            assert one(conn, last_day)[0] == rows_of_the_last_day(conn, "ev7")
        conn.execute("SET plan_cache_mode = force_generic_plan")
        conn.execute("PREPARE since(timestamptz) AS SELECT count(*) FROM ev7 WHERE id >= $1::ulid::uuid")
        plan = plan_of(conn, "EXECUTE since(now() - interval '1 day')")
        assert excluded_at_startup(plan) == chunks - 2, plan


def test_a_uuid_hypertable_wants_uuidv7_constants(timeseries, tsdb, uuidv7_column):
    """A constant bound must be a UUIDv7 itself: timestamptz::ulid (random
    part zero) is refused as a constant, to_uuidv7_boundary() is taken and
    excludes when planning."""
    with timeseries.connect(tsdb) as conn:
        (day,) = one(conn, "SELECT (date_trunc('day', now()) - interval '2 days')::text")
        with pytest.raises(psycopg.Error, match="is not a version 7 UUID"):
            conn.execute(f"SELECT count(*) FROM ev7 WHERE id >= '{day}'::timestamptz::ulid::uuid")
        sql = (f"SELECT count(*) FROM ev7 WHERE id >= to_uuidv7_boundary('{day}') "
               f"AND id < to_uuidv7_boundary('{day}'::timestamptz + interval '1 day')")
        plan = plan_of(conn, sql, analyze=False)
        # the boundary of the next day is a sliver above that day's first
        # chunk boundary, so its chunk is read too (it holds nothing below it)
        assert 1 <= len(chunks_read(plan)) <= 2, plan
        assert one(conn, sql) == (24 * 60,)
