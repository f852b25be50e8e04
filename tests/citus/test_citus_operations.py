"""Operations on a Citus cluster with ulid columns: a distributed table
range-partitioned by time; changing a uuid column to ulid; adding a worker,
rebalancing and a logical shard move."""

from __future__ import annotations

import re
import threading
from datetime import datetime, timedelta, timezone

import psycopg
import pytest

from citus_cluster import BASE, ORDERS, explain, placements, routed_locations, stored_locations

# wherever Citus is installed into the build (Citus's own packages): none
# of the registries this project uses carries it
pytestmark = pytest.mark.extensions("citus")


# ---------------------------------------------------------------------------
# time partitions under distribution


def partitions_scanned(plan: str) -> set[str]:
    return set(re.findall(r" on (events_\d{4}_\d{2})_\d+", plan))


def test_distributed_table_partitioned_by_time(citus):
    hours = [BASE + timedelta(hours=h) for h in range(90 * 24)]  # January to March
    with citus.coordinator.connect() as conn:
        conn.execute("CREATE TABLE events (id ulid PRIMARY KEY, body text) PARTITION BY RANGE (id)")
        for month in (1, 2, 3):
            conn.execute(
                f"CREATE TABLE events_2025_0{month} PARTITION OF events FOR VALUES "
                f"FROM ('2025-0{month}-01'::timestamptz::ulid) TO ('2025-0{month + 1}-01'::timestamptz::ulid)"
            )
        conn.execute("SELECT create_distributed_table('events', 'id', shard_count => 4)")
        conn.execute("INSERT INTO events SELECT gen_ulid(t), t::text FROM unnest(%s::timestamptz[]) t", [hours])
        # every partition is distributed like its parent, shard for shard
        colocated = conn.execute(
            "SELECT count(DISTINCT colocation_id), count(*) FROM citus_tables WHERE table_name::text LIKE 'events%'"
        ).fetchone()
        assert colocated == (1, 4)

        conn.execute("SET citus.explain_all_tasks = on")
        cases = [
            (datetime(2025, 2, 1, tzinfo=timezone.utc), datetime(2025, 2, 15, tzinfo=timezone.utc), {"events_2025_02"}),
            (datetime(2025, 1, 20, tzinfo=timezone.utc), datetime(2025, 2, 10, tzinfo=timezone.utc),
             {"events_2025_01", "events_2025_02"}),
            (BASE, datetime(2025, 4, 1, tzinfo=timezone.utc), {"events_2025_01", "events_2025_02", "events_2025_03"}),
        ]
        for lo, hi, expected in cases:
            query = (
                f"SELECT count(*) FROM events WHERE id >= '{lo.isoformat()}'::timestamptz::ulid "
                f"AND id < '{hi.isoformat()}'::timestamptz::ulid"
            )
            plan = explain(conn, query)
            assert "Task Count: 4" in plan and plan.count("->  Task") == 4, plan
            assert partitions_scanned(plan) == expected, plan
            assert conn.execute(query).fetchone() == (sum(1 for t in hours if lo <= t < hi),)

        with pytest.raises(psycopg.errors.CheckViolation, match="no partition"):
            conn.execute("INSERT INTO events VALUES (gen_ulid('2025-06-01'), 'june')")


# ---------------------------------------------------------------------------
# uuid to ulid


def filenodes(conn, table: str) -> dict[tuple[int, int], str]:
    rows = conn.execute(
        f"SELECT shardid, nodeport, result FROM run_command_on_placements('{table}', "
        "$$SELECT pg_relation_filenode('%s')$$)"
    ).fetchall()
    assert rows
    return {(shard, port): node for shard, port, node in rows}


def shard_column(conn, table: str, sql: str) -> set[str]:
    """The distinct answers of every shard of table to a query about itself (%s)."""
    rows = conn.execute(f"SELECT success, result FROM run_command_on_shards('{table}', $${sql}$$)").fetchall()
    assert all(ok for ok, _ in rows), rows
    return {result for _, result in rows}


COLUMN_TYPE = (
    "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = '{}'"
)
INDEX_OPCLASS = (
    "SELECT opc.opcname FROM pg_index i JOIN pg_opclass opc ON opc.oid = i.indclass[0] "
    "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0] "
    "WHERE i.indrelid = '%s'::regclass AND a.attname = 'ref'"
)


def test_uuid_column_to_ulid(citus):
    with citus.coordinator.connect() as conn:
        conn.execute("CREATE TABLE accounts (id uuid PRIMARY KEY, ref uuid, n int)")
        conn.execute("SELECT create_distributed_table('accounts', 'id', shard_count => 4)")
        conn.execute("CREATE INDEX accounts_ref ON accounts (ref)")
        conn.execute(
            "INSERT INTO accounts SELECT gen_random_uuid(), gen_random_uuid(), g FROM generate_series(1, 3000) g"
        )
        checksum = (
            "SELECT count(*), md5(string_agg(id::uuid::text || ref::uuid::text || n, ',' ORDER BY n)) FROM accounts"
        )
        before = conn.execute(checksum).fetchone()
        nodes = filenodes(conn, "accounts")

        # a column other than the distribution column: the change reaches
        # every shard, without rewriting any
        conn.execute("ALTER TABLE accounts ALTER COLUMN ref TYPE ulid")
        assert shard_column(conn, "accounts", COLUMN_TYPE.format("ref")) == {"ulid"}
        on_workers = conn.execute(
            "SELECT result FROM run_command_on_workers($$" + COLUMN_TYPE.format("ref").replace("%s", "accounts") + "$$)"
        ).fetchall()
        assert on_workers == [("ulid",)] * len(citus.workers)
        assert shard_column(conn, "accounts", INDEX_OPCLASS) == {"ulid_ops"}
        assert filenodes(conn, "accounts") == nodes
        assert conn.execute(checksum).fetchone() == before
        # (a change that does rewrite shows up in the same comparison)
        conn.execute("ALTER TABLE accounts ALTER COLUMN n TYPE bigint")
        rewritten = filenodes(conn, "accounts")
        assert rewritten.keys() == nodes.keys() and all(rewritten[k] != nodes[k] for k in nodes)

        # the distribution column's type cannot change in place
        with pytest.raises(psycopg.Error, match="involving partition column"):
            conn.execute("ALTER TABLE accounts ALTER COLUMN id TYPE ulid")

        # ... but via undistribute_table it can, and since ulid hashes like
        # uuid every row goes back into the same hash range
        def hash_ranges():
            ranges = {
                r[0]: (r[1], r[2]) for r in conn.execute(
                    "SELECT shardid, shardminvalue, shardmaxvalue FROM pg_dist_shard "
                    "WHERE logicalrelid = 'accounts'::regclass")
            }
            return {
                value: ranges[shard] for value, shard in conn.execute(
                    "SELECT id::uuid::text, get_shard_id_for_distribution_column('accounts', id) FROM accounts")
            }

        ranges_before = hash_ranges()
        conn.execute("SELECT undistribute_table('accounts')")
        conn.execute("ALTER TABLE accounts ALTER COLUMN id TYPE ulid")
        conn.execute("SELECT create_distributed_table('accounts', 'id', shard_count => 4)")
        conn.execute("SELECT truncate_local_data_after_distributing_table('accounts')")
        assert conn.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'accounts'::regclass "
            "AND attname = 'id'"
        ).fetchone() == ("ulid",)
        assert shard_column(conn, "accounts", COLUMN_TYPE.format("id")) == {"ulid"}
        assert conn.execute(checksum).fetchone() == before
        assert hash_ranges() == ranges_before
        assert stored_locations(citus, "accounts") == routed_locations(conn, "accounts")


# ---------------------------------------------------------------------------
# a third worker (last: the cluster keeps it)

def contents(conn) -> dict[str, tuple]:
    """Row count and a checksum of every row of every distributed table."""
    tables = [r[0] for r in conn.execute(
        "SELECT table_name::text FROM citus_tables WHERE citus_table_type = 'distributed'")]
    return {
        table: conn.execute(f"SELECT count(*), md5(string_agg(t::text, ',' ORDER BY t::text)) FROM {table} t").fetchone()
        for table in tables
    }


def test_rebalance_onto_a_new_worker_and_move_a_shard(citus, shop):
    with citus.coordinator.connect() as conn:
        before = contents(conn)
        assert before["orders"][0] == ORDERS and before["order_lines"][0] == 2 * ORDERS
        new = citus.add_worker()
        with new.connect() as w:
            assert w.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() is not None
        conn.execute("SELECT citus_rebalance_start()")
        conn.execute("SELECT citus_rebalance_wait()")
        (state,) = conn.execute("SELECT state FROM citus_rebalance_status()").fetchone()
        assert state == "finished"
        assert new.port in placements(conn, "orders").values()
        assert contents(conn) == before
        assert routed_locations(conn, "orders") == stored_locations(citus, "orders")

        # a logical move while a client keeps inserting: every row arrives
        # (the workers commit synchronously, see scripts/citus)
        for node in citus.workers:
            with node.connect() as w:
                assert w.execute("SHOW synchronous_commit").fetchone() == ("on",)
        shard, source = next((s, p) for s, p in sorted(placements(conn, "orders").items()) if p != new.port)
        inserted, stop, errors = [], threading.Event(), []

        def insert_while_moving():
            try:
                with citus.coordinator.connect() as c:
                    while not stop.is_set():
                        (value,) = c.execute(
                            "INSERT INTO orders (customer, total, currency) VALUES (1, 1, 'EUR') RETURNING id::text"
                        ).fetchone()
                        inserted.append(value)
            except Exception as exc:  # reported below
                errors.append(exc)

        writer = threading.Thread(target=insert_while_moving)
        writer.start()
        try:
            conn.execute(
                "SELECT citus_move_shard_placement(%s, '127.0.0.1', %s, '127.0.0.1', %s, "
                "shard_transfer_mode => 'force_logical')",
                [shard, source, new.port],
            )
        finally:
            stop.set()
            writer.join()
        assert not errors, errors
        assert inserted, "nothing was written during the move"
        assert placements(conn, "orders")[shard] == new.port
        ids = {r[0] for r in conn.execute("SELECT id::text FROM orders")}
        assert len(set(inserted)) == len(inserted), "a generated id was returned twice"
        lost = [value for value in inserted if value not in ids]
        assert not lost, f"{len(lost)} of {len(inserted)} rows written during the move are gone: {lost[:5]}"
        assert set(shop["ids"]) <= ids
        assert len(ids) == before["orders"][0] + len(inserted)
        stored = stored_locations(citus, "orders")
        assert stored == routed_locations(conn, "orders")
        assert any(stored[value] == (shard, new.port) for value in inserted)
