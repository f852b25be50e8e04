"""Tables distributed by a ulid column on Citus: the extension reaches the
workers; distributed, co-located and reference tables; router queries,
co-located joins, time ranges and min/max across shards; COPY; rows stored
in the shard Citus computes for them, with ulid hashed exactly like uuid."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from ulid import ULID

from citus_cluster import BASE, ORDERS, SHARDS, explain, placements, routed_locations, stored_locations

# wherever Citus is installed into the build (Citus's own packages): none
# of the registries this project uses carries it
pytestmark = pytest.mark.extensions("citus")


# ---------------------------------------------------------------------------
# the extension and distributed tables


def test_create_extension_reaches_every_worker(citus):
    def versions():
        out = {}
        for node in citus.workers:
            with node.connect() as conn:
                row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone()
                out[node.port] = row and row[0]
        return out

    with citus.coordinator.connect() as conn:
        conn.execute("DROP EXTENSION ulid")
        assert set(versions().values()) == {None}
        conn.execute("CREATE EXTENSION ulid")
        (version,) = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone()
    assert versions() == {w.port: version for w in citus.workers}
    for node in citus.workers:
        with node.connect() as conn:
            assert conn.execute("SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::uuid::text").fetchone() == (
                "01941f29-7c00-ec5e-7700-529006a71347",
            )


def test_distributed_colocated_and_reference_tables(citus, shop):
    with citus.coordinator.connect() as conn:
        tables = {
            r[0]: r[1:]
            for r in conn.execute(
                "SELECT table_name::text, citus_table_type, distribution_column, colocation_id, shard_count "
                "FROM citus_tables"
            )
        }
        assert tables["orders"][:2] == ("distributed", "id")
        assert tables["order_lines"][:2] == ("distributed", "order_id")
        assert tables["orders"][2] == tables["order_lines"][2], "not co-located"
        assert tables["orders"][3] == tables["order_lines"][3] == SHARDS
        assert tables["currencies"][0] == "reference"
        # the shards spread over both workers, and every shard's column is a ulid
        assert set(placements(conn, "orders").values()) == {w.port for w in citus.workers}
        types = conn.execute(
            "SELECT DISTINCT result FROM run_command_on_shards('orders', "
            "$$SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '%s'::regclass "
            "AND attname = 'id'$$)"
        ).fetchall()
        assert types == [("ulid",)]
        ref_nodes = {r[0] for r in conn.execute(
            "SELECT nodeport FROM citus_shards WHERE table_name = 'currencies'::regclass")}
        assert {w.port for w in citus.workers} <= ref_nodes


# ---------------------------------------------------------------------------
# queries


def test_router_query_by_ulid_key(citus, shop):
    some_id = shop["ids"][1234]
    with citus.coordinator.connect() as conn:
        shard = conn.execute("SELECT get_shard_id_for_distribution_column('orders', %s::ulid)", [some_id]).fetchone()[0]
        port = placements(conn, "orders")[shard]
        plan = explain(conn, f"SELECT * FROM orders WHERE id = '{some_id}'")
        assert "Task Count: 1" in plan, plan
        assert f"port={port} " in plan, plan
        assert f"Index Scan using orders_pkey_{shard} on orders_{shard}" in plan, plan

        join = (
            f"SELECT o.total, l.line FROM orders o JOIN order_lines l ON l.order_id = o.id "
            f"WHERE o.id = '{some_id}' ORDER BY l.line"
        )
        line_shard = conn.execute(
            "SELECT get_shard_id_for_distribution_column('order_lines', %s::ulid)", [some_id]).fetchone()[0]
        plan = explain(conn, join)
        assert "Task Count: 1" in plan, plan
        assert f"on order_lines_{line_shard} l" in plan, plan
        assert [r[1] for r in conn.execute(join)] == [1, 2]


def test_colocated_joins_are_pushed_down(citus, shop):
    query = (
        "SELECT c.name, count(*) FROM orders o JOIN order_lines l ON l.order_id = o.id "
        "JOIN currencies c ON c.code = o.currency GROUP BY c.name ORDER BY c.name"
    )
    with citus.coordinator.connect() as conn:
        plan = explain(conn, query)
        # one task per shard pair, each joining on its worker; nothing
        # repartitioned or pulled to the coordinator
        assert f"Task Count: {SHARDS}" in plan, plan
        assert re.search(r"on orders_\d+ o", plan), plan
        assert re.search(r"on order_lines_\d+", plan), plan
        assert re.search(r"on currencies_\d+", plan), plan
        assert "repartition" not in plan.lower() and "MapMergeJob" not in plan, plan
        assert conn.execute(query).fetchall() == [("dollar", 4000), ("euro", 4000), ("yen", 4000)]


TIME_RANGES = [
    (datetime(2025, 1, 1, tzinfo=timezone.utc), datetime(2025, 2, 1, tzinfo=timezone.utc)),
    (datetime(2025, 2, 1, tzinfo=timezone.utc), datetime(2025, 3, 1, tzinfo=timezone.utc)),
    (datetime(2025, 1, 15, 12, 34, tzinfo=timezone.utc), datetime(2025, 2, 3, 8, 0, tzinfo=timezone.utc)),
    (datetime(2025, 3, 12, tzinfo=timezone.utc), datetime(2026, 1, 1, tzinfo=timezone.utc)),
]


@pytest.mark.parametrize("lo,hi", TIME_RANGES, ids=lambda d: d.strftime("%m-%d"))
def test_time_ranges_across_shards(citus, shop, lo, hi):
    expected = sum(1 for t in shop["times"] if lo <= t < hi)
    where = "id >= %s::timestamptz::ulid AND id < %s::timestamptz::ulid"
    with citus.coordinator.connect() as conn:
        assert conn.execute(f"SELECT count(*) FROM orders WHERE {where}", [lo, hi]).fetchone() == (expected,)
        if expected > 400:  # (enough rows to land in every shard)
            spread = conn.execute(
                f"SELECT count(DISTINCT get_shard_id_for_distribution_column('orders', id)) "
                f"FROM orders WHERE {where}", [lo, hi]
            ).fetchone()[0]
            assert spread == SHARDS
        # a range on a hash-distributed key asks every shard
        plan = explain(conn, f"SELECT count(*) FROM orders WHERE id >= '{lo.isoformat()}'::timestamptz::ulid")
        assert f"Task Count: {SHARDS}" in plan, plan


def test_min_and_max(citus, shop):
    with citus.coordinator.connect() as conn:
        assert conn.execute("SELECT min(id)::text, max(id)::text FROM orders").fetchone() == (
            min(shop["ids"]), max(shop["ids"]))
        # each shard computes its own min and max, the coordinator combines them
        plan = explain(conn, "SELECT min(id), max(id) FROM orders", "VERBOSE")
        # (Citus ships an extension's aggregate as worker_partial_agg, which
        # runs min(ulid)'s own transition and combine functions)
        assert re.search(
            r"Query: SELECT worker_partial_agg\('public\.min\(public\.ulid\)'::regprocedure, id\) AS min, "
            r"worker_partial_agg\('public\.max\(public\.ulid\)'::regprocedure, id\) AS max "
            r"FROM public\.orders_\d+", plan), plan
        february = conn.execute(
            "SELECT min(id), max(id) FROM orders WHERE id >= '2025-02-01'::timestamptz::ulid "
            "AND id < '2025-03-01'::timestamptz::ulid"
        ).fetchone()
        in_february = sorted(i for i, t in zip(shop["ids"], shop["times"]) if t.month == 2)
        assert february == (in_february[0], in_february[-1])


def test_copy_into_distributed_table(citus):
    rows = [(str(ULID.from_datetime(BASE + timedelta(seconds=i))), f"row {i}") for i in range(3000)]
    with citus.coordinator.connect() as conn:
        conn.execute("CREATE TABLE imported (id ulid PRIMARY KEY, note text)")
        conn.execute(f"SELECT create_distributed_table('imported', 'id', shard_count => {SHARDS})")
        with conn.cursor().copy("COPY imported (id, note) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        assert sorted(conn.execute("SELECT id::text, note FROM imported").fetchall()) == sorted(rows)
        routed = routed_locations(conn, "imported")
    stored = stored_locations(citus, "imported")
    assert stored == routed
    assert len({shard for shard, _ in stored.values()}) == SHARDS


def test_rows_are_in_the_shard_citus_computes(citus, shop):
    with citus.coordinator.connect() as conn:
        routed = routed_locations(conn, "orders")
        ranges = {
            r[0]: (int(r[1]), int(r[2]))
            for r in conn.execute(
                "SELECT shardid, shardminvalue, shardmaxvalue FROM pg_dist_shard WHERE logicalrelid = 'orders'::regclass"
            )
        }
        hashes = dict(conn.execute("SELECT id::text, worker_hash(id) FROM orders").fetchall())
    assert routed == stored_locations(citus, "orders")
    assert len(routed) == ORDERS
    # and each shard's hash range holds the hashes of its values
    for value, (shard, _) in routed.items():
        lo, hi = ranges[shard]
        assert lo <= hashes[value] <= hi, value


def test_worker_hash_of_ulid_is_that_of_the_same_uuid(citus, shop):
    with citus.coordinator.connect() as conn:
        assert conn.execute(
            "SELECT worker_hash('01JGFJJZ00XHF7E02JJ03AE4T7'::ulid), "
            "worker_hash('01941f29-7c00-ec5e-7700-529006a71347'::uuid)"
        ).fetchone() == (-73645536, -73645536)
        ulid_hashes = conn.execute("SELECT id::text, worker_hash(id) FROM orders ORDER BY id").fetchall()
        uuid_hashes = conn.execute("SELECT id::text, worker_hash(id::uuid) FROM orders ORDER BY id").fetchall()
    assert ulid_hashes == uuid_hashes
    assert len({h for _, h in ulid_hashes}) > ORDERS * 0.99  # and it does hash
