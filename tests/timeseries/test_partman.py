"""pg_partman partition sets keyed by ulid ids, on Debian's pg_partman
beside Debian's PostgreSQL 18.

pg_partman refuses a `ulid` control column by its type's name; a `uuid`
column holding ULIDs laid out as UUIDv7s (they convert to and from `ulid`
without a rewrite) takes pg_partman's own UUIDv7 encoder and decoder, and
its partitions are bounded exactly where `timestamptz::ulid` puts a day's
first id. The data is 30 days of one row a minute, up to now.
"""

from __future__ import annotations

import datetime
import re

import psycopg
import pytest

from harness.clock import clear_of_midnight
from thirty_days import MINUTES, insert_30_days, one, rows_of_the_last_day

pytestmark = pytest.mark.builds("18")

UTC = datetime.timezone.utc


def partitions(conn, parent: str) -> dict[str, tuple[str, str]]:
    """Each partition's name and bounds (FROM, TO), the default's None."""
    out = {}
    for name, bound in conn.execute("""
            SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i
            JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = %s::regclass""", [parent]):
        found = re.fullmatch(r"FOR VALUES FROM \('([^']+)'\) TO \('([^']+)'\)", bound)
        out[name] = found.groups() if found else None
    return out


def day_of(name: str) -> datetime.date:
    return datetime.datetime.strptime(name.rsplit("_p", 1)[1], "%Y%m%d").date()


@pytest.fixture(scope="module")
def partmandb(timeseries):
    # the module's partitions are days from today's date, read again later
    clear_of_midnight(600)
    name = timeseries.create_database("partmandb")
    with timeseries.connect(name) as conn:
        conn.execute("CREATE SCHEMA partman")
        conn.execute("CREATE EXTENSION pg_partman SCHEMA partman")
        conn.execute("ALTER DATABASE partmandb SET ulid.layout = uuidv7")
        conn.execute("ALTER DATABASE partmandb SET TimeZone = 'UTC'")
    return name


@pytest.fixture(scope="module")
def daily(timeseries, partmandb):
    """A daily partition set on a uuid column of ULIDs in the UUIDv7 layout,
    from 30 days ago, three days made ahead."""
    with timeseries.connect(partmandb) as conn:
        conn.execute("CREATE TABLE ev (id uuid NOT NULL DEFAULT gen_monotonic_ulid(), v int) PARTITION BY RANGE (id)")
        conn.execute("CREATE INDEX ON ev (id)")
        conn.execute("""
            SELECT partman.create_parent(
                p_parent_table := 'public.ev', p_control := 'id', p_interval := '1 day', p_premake := 3,
                p_start_partition := (date_trunc('day', now()) - interval '30 days')::text,
                p_time_encoder := 'partman.uuid7_time_encoder', p_time_decoder := 'partman.uuid7_time_decoder')""")
        insert_30_days(conn, "ev")
        conn.execute("ANALYZE ev")
    return "public.ev"


def test_pg_partman_refuses_a_ulid_column(timeseries, partmandb):
    with timeseries.connect(partmandb) as conn:
        conn.execute("CREATE TABLE refused (id ulid NOT NULL, v int) PARTITION BY RANGE (id)")
        with pytest.raises(psycopg.Error, match="Supplied column is of type ulid") as raised:
            conn.execute("""SELECT partman.create_parent(p_parent_table := 'public.refused', p_control := 'id',
                p_interval := '1 day', p_time_encoder := 'partman.uuid7_time_encoder',
                p_time_decoder := 'partman.uuid7_time_decoder')""")
        assert "pg_partman only supports partitioning of data types that are integer, numeric, date/timestamp " \
               "or specially encoded text" in str(raised.value)


def test_partitions_begin_where_timestamptz_ulid_puts_a_day(timeseries, partmandb, daily):
    with timeseries.connect(partmandb) as conn:
        parts = partitions(conn, daily)
        assert parts.pop("ev_default") is None
        assert len(parts) == 31 + 3  # 30 days ago to today, and three ahead
        for name, (start, end) in parts.items():
            day = datetime.datetime.combine(day_of(name), datetime.time(), UTC)
            assert one(conn, "SELECT %s::timestamptz::ulid::uuid::text, (%s::timestamptz + interval '1 day')::ulid::uuid::text",
                       day, day) == (start, end), name


def test_every_row_lands_in_the_partition_of_its_day(timeseries, partmandb, daily):
    with timeseries.connect(partmandb) as conn:
        assert one(conn, "SELECT count(*) FROM ev_default") == (0,)
        rows = conn.execute("""SELECT tableoid::regclass::text, date_trunc('day', ulid_timestamp(id::ulid))::date, count(*)
                               FROM ev GROUP BY 1, 2""").fetchall()
        assert sum(n for _, _, n in rows) == MINUTES
        for name, day, _ in rows:
            assert day_of(name) == day, (name, day)
        # every value the generators made is a UUIDv7 whose time is the ULID's
        assert one(conn, """SELECT count(*) FILTER (WHERE uuid_extract_version(id) = 7
                                                  AND uuid_extract_timestamp(id) = ulid_timestamp(id::ulid))
                            FROM ev""") == (MINUTES,)


def test_the_last_day_reads_only_its_partitions(timeseries, partmandb, daily):
    """`id >= (now() - interval '1 day')::ulid::uuid` is pruned when the
    executor starts: the two partitions the day spans, the days made ahead
    (above the bound, empty) and the default."""
    with timeseries.connect(partmandb) as conn:
        sql = "SELECT count(*) FROM ev WHERE id >= (now() - interval '1 day')::ulid::uuid"
        plan = "\n".join(r[0] for r in conn.execute(
            "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) " + sql))
        read = set(re.findall(r"Scan(?: using \S+)? on (ev_\w+)", plan))
        today = one(conn, "SELECT current_date")[0]
        expected = {f"ev_p{(today + datetime.timedelta(days=d)).strftime('%Y%m%d')}" for d in range(-1, 4)}
        assert read == expected | {"ev_default"}, plan
        assert re.search(r"Subplans Removed: 29\b", plan), plan
        with conn.transaction():
            assert one(conn, sql)[0] == rows_of_the_last_day(conn, "ev")
        # a whole day, as a generic plan: that day's partition alone
        conn.execute("SET plan_cache_mode = force_generic_plan")
        conn.execute("PREPARE a_day(timestamptz) AS SELECT count(*) FROM ev "
                     "WHERE id >= $1::ulid::uuid AND id < ($1 + interval '1 day')::ulid::uuid")
        plan = "\n".join(r[0] for r in conn.execute(
            "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) "
            "EXECUTE a_day(current_date - 2)"))
        day = (today - datetime.timedelta(days=2)).strftime("%Y%m%d")
        assert set(re.findall(r"Scan(?: using \S+)? on (ev_\w+)", plan)) == {f"ev_p{day}"}, plan
        assert one(conn, "EXECUTE a_day(current_date - 2)") == (24 * 60,)


def test_maintenance_makes_days_ahead_and_drops_old_ones(timeseries, partmandb, daily):
    with timeseries.connect(partmandb) as conn:
        today = one(conn, "SELECT current_date")[0]
        conn.execute("UPDATE partman.part_config SET premake = 5, retention = '7 days', "
                     "retention_keep_table = false WHERE parent_table = %s", [daily])
        conn.execute("CALL partman.run_maintenance_proc()")
        days = sorted(day_of(name) for name in partitions(conn, daily) if name != "ev_default")
        assert days[-1] == today + datetime.timedelta(days=5)
        assert days[0] == today - datetime.timedelta(days=7)
        assert days == [days[0] + datetime.timedelta(days=d) for d in range(len(days))]
        # the rows of the dropped days are gone, the rest are all there
        assert one(conn, "SELECT min(ulid_timestamp(id::ulid))::date FROM ev") == (days[0],)
        assert one(conn, "SELECT count(*) FROM ev_default") == (0,)


def test_partition_data_moves_rows_out_of_the_default(timeseries, partmandb, daily):
    """Rows older than any partition go to the default partition; pg_partman's
    partition_data_time makes their partitions and moves them there.
    (partition_data_proc, the procedure that commits between batches, looks
    for a partition_data_uuid that pg_partman 5.5 does not have, for any
    uuid control column.)"""
    with timeseries.connect(partmandb) as conn:
        conn.execute("INSERT INTO ev SELECT gen_ulid(current_date - 60 + g * interval '1 hour'), g "
                     "FROM generate_series(0, 47) g")
        assert one(conn, "SELECT count(*) FROM ev_default") == (48,)
        (moved,) = one(conn, "SELECT partman.partition_data_time('public.ev', p_batch_count := 10)")
        assert moved == 48
        assert one(conn, "SELECT count(*) FROM ev_default") == (0,)
        rows = conn.execute("""SELECT tableoid::regclass::text, count(*) FROM ev
                               WHERE ulid_timestamp(id::ulid) < current_date - 50 GROUP BY 1 ORDER BY 1""").fetchall()
        today = one(conn, "SELECT current_date")[0]
        assert rows == [(f"ev_p{(today - datetime.timedelta(days=d)).strftime('%Y%m%d')}", 24) for d in (60, 59)]
