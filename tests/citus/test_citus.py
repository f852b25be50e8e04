"""ulid on Citus: a coordinator and two workers on local ports, started by
scripts/citus (a third worker joins for the rebalancing test).

Checked on the real cluster: the extension reaches the workers; tables
distributed by a ulid column, co-located and reference tables; router
queries, co-located joins, time ranges and min/max across shards; COPY;
rows stored in the shard Citus computes for them, with ulid hashed exactly
like uuid; where a DEFAULT calling the generators is evaluated and what
order its values have, with and without ulid preloaded; a distributed
table range-partitioned by time; changing a uuid column to ulid; adding a
worker, rebalancing and a logical shard move.

Runs wherever Citus is already installed into the server under test
(citus.so in its pkglibdir, citus.control in its extension directory), as
Citus's own packages install it; elsewhere every test here is skipped, with
that reason (see scripts/citus).
"""

from __future__ import annotations

import re
import subprocess
import threading
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

import psycopg
import pytest
from ulid import ULID

from harness.pgcluster import SCRIPTS, Cluster

NOT_INSTALLED = 3  # scripts/citus check: no Citus in this build
SHARDS = 8

BASE = datetime(2025, 1, 1, tzinfo=timezone.utc)
ORDERS = 6000
ORDER_STEP = timedelta(minutes=17)  # 6000 orders: January 1 to March 12


class Citus:
    """The nodes started by scripts/citus, as pgcluster.Cluster objects."""

    def __init__(self, build: str):
        self.build = build
        self.coordinator = Cluster(build, "citus-coord", slot=20)
        self.workers = [Cluster(build, f"citus-w{i}", slot=20 + i) for i in (1, 2)]

    def script(self, command: str, *settings: str) -> None:
        subprocess.run(["bash", str(SCRIPTS / "citus"), command, self.build, *settings], check=True)

    def node(self, port: int) -> Cluster:
        return next(n for n in [self.coordinator, *self.workers] if n.port == port)

    def restart(self, preload_ulid: bool) -> None:
        self.script("start", *([] if preload_ulid else ["shared_preload_libraries=citus"]))

    def add_worker(self) -> Cluster:
        self.script("add-worker")
        self.workers.append(Cluster(self.build, "citus-w3", slot=23))
        return self.workers[-1]


@pytest.fixture(scope="module")
def citus(pg_build):
    check = subprocess.run(
        ["bash", str(SCRIPTS / "citus"), "check", pg_build], capture_output=True, text=True
    )
    message = re.sub(r"^==> [0-9:]+ ", "", re.sub(r"\x1b\[[0-9;]*m", "", check.stderr.strip().splitlines()[-1]))
    if check.returncode == NOT_INSTALLED:
        pytest.skip(message)
    assert check.returncode == 0, check.stderr
    c = Citus(pg_build)
    c.script("destroy")  # every run starts from empty nodes
    c.script("start")
    yield c
    c.script("stop")


def explain(conn, query: str, *options: str) -> str:
    return "\n".join(r[0] for r in conn.execute(f"EXPLAIN ({', '.join(('COSTS OFF', *options))}) {query}"))


def backwards(ids: list[str]) -> int:
    """How many values are not above the one before (ULID text sorts like the value)."""
    return sum(1 for a, b in zip(ids, ids[1:]) if b <= a)


def placements(conn, table: str) -> dict[int, int]:
    """shard id -> port of the worker holding it."""
    rows = conn.execute(
        "SELECT shardid, nodeport FROM citus_shards WHERE table_name = %s::regclass", [table]
    ).fetchall()
    return dict(rows)


def stored_locations(citus: Citus, table: str) -> dict[str, tuple[int, int]]:
    """Where each row really is: value -> (shard id, port), read from every
    shard table on every worker directly, bypassing Citus's routing."""
    with citus.coordinator.connect() as conn:
        shards = placements(conn, table)
    found: dict[str, tuple[int, int]] = {}
    for shard, port in shards.items():
        with citus.node(port).connect() as conn:
            for (value,) in conn.execute(f"SELECT id::text FROM {table}_{shard}"):
                assert value not in found, f"{value} stored twice"
                found[value] = (shard, port)
    return found


def routed_locations(conn, table: str) -> dict[str, tuple[int, int]]:
    """Where Citus says each row belongs."""
    shards = placements(conn, table)
    rows = conn.execute(
        f"SELECT id::text, get_shard_id_for_distribution_column(%s, id) FROM {table}", [table]
    ).fetchall()
    return {value: (shard, shards[shard]) for value, shard in rows}


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


@pytest.fixture(scope="module")
def shop(citus):
    """orders distributed by a ulid id, order_lines co-located with it,
    currencies a reference table. Order i was made at BASE + i * ORDER_STEP."""
    with citus.coordinator.connect() as conn:
        conn.execute(
            "CREATE TABLE orders (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), "
            "customer int NOT NULL, total numeric NOT NULL, currency text NOT NULL)"
        )
        conn.execute("CREATE TABLE order_lines (order_id ulid, line int, sku text, PRIMARY KEY (order_id, line))")
        conn.execute("CREATE TABLE currencies (code text PRIMARY KEY, name text)")
        conn.execute(f"SELECT create_distributed_table('orders', 'id', shard_count => {SHARDS})")
        conn.execute("SELECT create_distributed_table('order_lines', 'order_id', colocate_with => 'orders')")
        conn.execute("SELECT create_reference_table('currencies')")
        conn.execute("INSERT INTO currencies VALUES ('EUR', 'euro'), ('USD', 'dollar'), ('JPY', 'yen')")
        conn.execute(
            "INSERT INTO orders (id, customer, total, currency) "
            "SELECT gen_ulid(%s + g * %s), mod(g, 100), g, (ARRAY['EUR', 'USD', 'JPY'])[mod(g, 3) + 1] "
            "FROM generate_series(0, %s) g",
            [BASE, ORDER_STEP, ORDERS - 1],
        )
        conn.execute("INSERT INTO order_lines SELECT id, l, 'sku-' || l FROM orders, generate_series(1, 2) l")
        # distinct milliseconds: id order is time order, ids[i] is order i
        ids = [r[0] for r in conn.execute("SELECT id::text FROM orders ORDER BY id")]
    assert len(ids) == ORDERS
    return {"ids": ids, "times": [BASE + i * ORDER_STEP for i in range(ORDERS)]}


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


# ---------------------------------------------------------------------------
# the generators in a cluster
#
# Where a DEFAULT runs is read from the rows: `node` defaults to the port of
# the server evaluating the row's defaults (Citus evaluates a row's
# non-immutable defaults together, in one place), and the shard queries in
# EXPLAIN VERBOSE show either a ready-made value or the call itself.

MADE = """CREATE TABLE {name} (
    id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(),
    rnd ulid NOT NULL DEFAULT gen_ulid(),
    node int NOT NULL DEFAULT current_setting('port')::int,
    form text,
    n int)"""


def make_table(conn, name: str) -> None:
    conn.execute(MADE.format(name=name))
    conn.execute(f"SELECT create_distributed_table('{name}', 'id', shard_count => {SHARDS})")


def test_defaults_of_insert_values_and_copy_run_on_the_coordinator(citus):
    coordinator = citus.coordinator
    with coordinator.connect() as conn:
        make_table(conn, "made")
        # the shard queries carry values the coordinator generated
        for values in ("('probe', 0)", "('probe', 0), ('probe', 0), ('probe', 0)"):
            plan = explain(conn, f"INSERT INTO made (form, n) VALUES {values}", "VERBOSE")
            assert re.search(r"VALUES \('[0-9A-Z]{26}'::public\.ulid, ?'[0-9A-Z]{26}'::public\.ulid", plan), plan
            assert "gen_monotonic_ulid" not in plan and "gen_ulid" not in plan, plan
        plan = explain(conn, "INSERT INTO made (form, n) SELECT 'x', g FROM generate_series(1, 10) g")
        assert "INSERT/SELECT method: pull to coordinator" in plan, plan

        n = 0
        for _ in range(300):
            n += 1
            conn.execute("INSERT INTO made (form, n) VALUES ('single row', %s)", [n])
        values = ", ".join(f"('multi-row', {n + i})" for i in range(1, 3001))
        conn.execute(f"INSERT INTO made (form, n) VALUES {values}")
        n += 3000
        with conn.cursor().copy("COPY made (form, n) FROM STDIN") as copy:
            for i in range(1, 3001):
                copy.write_row(("copy", n + i))
        n += 3000
        conn.execute("INSERT INTO made (form, n) SELECT 'insert select', %s + g FROM generate_series(1, 3000) g", [n])
        n += 3000
        rows = conn.execute(
            "SELECT form, id::text, rnd::text, node, ulid_timestamp(rnd), "
            "get_shard_id_for_distribution_column('made', id) FROM made ORDER BY n"
        ).fetchall()
    assert len(rows) == n
    assert {r[3] for r in rows} == {coordinator.port}
    assert len({r[5] for r in rows}) == SHARDS
    # one session made them all: gen_monotonic_ulid() increases in statement
    # and row order, across every form and every shard
    assert backwards([r[1] for r in rows]) == 0
    # gen_ulid(): unique, in millisecond order, random within a millisecond
    assert len({r[2] for r in rows}) == n
    assert all(a[4] <= b[4] for a, b in zip(rows, rows[1:]))
    assert backwards([r[2] for r in rows if r[0] == "multi-row"]) > 0


def test_defaults_run_on_the_node_the_client_is_connected_to(citus):
    # Citus takes queries on any node with metadata: that node evaluates them
    worker = citus.workers[0]
    with citus.coordinator.connect() as conn:
        make_table(conn, "made_on_worker")
    with worker.connect() as conn:
        plan = explain(conn, "INSERT INTO made_on_worker (form, n) VALUES ('probe', 0)", "VERBOSE")
        assert re.search(r"VALUES \('[0-9A-Z]{26}'::public\.ulid", plan), plan
        conn.execute(
            "INSERT INTO made_on_worker (form, n) VALUES " + ", ".join(f"('worker', {i})" for i in range(1000))
        )
        with conn.cursor().copy("COPY made_on_worker (form, n) FROM STDIN") as copy:
            for i in range(1000, 2000):
                copy.write_row(("worker copy", i))
    with citus.coordinator.connect() as conn:
        rows = conn.execute("SELECT id::text, node FROM made_on_worker ORDER BY n").fetchall()
        spread = conn.execute(
            "SELECT count(DISTINCT get_shard_id_for_distribution_column('made_on_worker', id)) FROM made_on_worker"
        ).fetchone()[0]
    assert len(rows) == 2000 and spread == SHARDS
    assert {node for _, node in rows} == {worker.port}
    assert backwards([i for i, _ in rows]) == 0


@pytest.fixture(scope="module")
def tenants(citus):
    """src: 20000 rows distributed by tenant, each shard's rows stored in
    the order of n."""
    with citus.coordinator.connect() as conn:
        conn.execute("CREATE TABLE src (tenant int, n int, PRIMARY KEY (tenant, n))")
        conn.execute(f"SELECT create_distributed_table('src', 'tenant', shard_count => {SHARDS})")
        conn.execute("INSERT INTO src SELECT g % 50, g FROM generate_series(1, 20000) g")


def made_by_tenant(conn, name: str, default: str = "gen_monotonic_ulid()") -> None:
    conn.execute(
        f"CREATE TABLE {name} (tenant int, id ulid DEFAULT {default}, "
        f"node int DEFAULT current_setting('port')::int, n int, PRIMARY KEY (tenant, id))"
    )
    conn.execute(f"SELECT create_distributed_table('{name}', 'tenant', colocate_with => 'src')")


def check_made_per_source_shard(conn, name: str) -> None:
    """Rows of `name` made by INSERT ... SELECT from src in the workers' shard
    queries: each row was made on the worker holding its source shard, and
    within a source shard (one scan, in one session) ids increase with n."""
    src_nodes = placements(conn, "src")
    rows = conn.execute(
        f"SELECT get_shard_id_for_distribution_column('src', tenant), n, id::text, node FROM {name} ORDER BY 1, 2"
    ).fetchall()
    assert len(rows) == 20000
    assert len({r[2] for r in rows}) == 20000, "duplicate ids"
    assert all(node == src_nodes[shard] for shard, _, _, node in rows)
    by_shard: dict[int, list[str]] = {}
    for shard, _, value, _ in rows:
        by_shard.setdefault(shard, []).append(value)
    assert len(by_shard) == SHARDS
    assert all(backwards(ids) == 0 for ids in by_shard.values())


def test_insert_select_evaluates_defaults_where_its_select_runs(citus, tenants):
    select = "SELECT tenant, n FROM src"
    with citus.coordinator.connect() as conn:
        # without a volatile default the INSERT ... SELECT is pushed down whole
        conn.execute("CREATE TABLE copied (tenant int, id ulid, n int, PRIMARY KEY (tenant, n))")
        conn.execute("SELECT create_distributed_table('copied', 'tenant', colocate_with => 'src')")
        plan = explain(conn, f"INSERT INTO copied (tenant, n) {select}")
        assert "INSERT/SELECT method" not in plan and re.search(r"Insert on copied_\d+", plan), plan

        # A volatile default stops that. Citus adds the default to the
        # SELECT's target list, and the workers evaluate it in their shard
        # queries; the rows are then routed by their distribution column.
        for generator in ("gen_monotonic_ulid()", "gen_ulid()"):
            name = "made_" + generator.split("(")[0]
            made_by_tenant(conn, name, generator)
            plan = explain(conn, f"INSERT INTO {name} (tenant, n) {select}", "VERBOSE")
            assert "INSERT/SELECT method: repartition" in plan, plan
            assert re.search(
                rf"Query: SELECT tenant, public\.{re.escape(generator)} AS id, .* FROM public\.src_\d+", plan
            ), plan
            conn.execute(f"INSERT INTO {name} (tenant, n) {select}")
        check_made_per_source_shard(conn, "made_gen_monotonic_ulid")
        assert conn.execute("SELECT count(*), count(DISTINCT id) FROM made_gen_ulid").fetchone() == (20000, 20000)
        assert {r[0] for r in conn.execute("SELECT DISTINCT node FROM made_gen_ulid")} == {
            w.port for w in citus.workers
        }

        # "pull to coordinator" does not mean the coordinator generates: with
        # ORDER BY ... LIMIT each shard query still evaluates the default for
        # its own candidate rows
        made_by_tenant(conn, "made_limited")
        query = f"INSERT INTO made_limited (tenant, n) {select} ORDER BY n LIMIT 500"
        plan = explain(conn, query, "VERBOSE")
        assert "INSERT/SELECT method: pull to coordinator" in plan, plan
        assert re.search(r"Query: SELECT tenant, public\.gen_monotonic_ulid\(\) AS id, .* LIMIT", plan), plan
        conn.execute(query)
        src_nodes = placements(conn, "src")
        rows = conn.execute(
            "SELECT get_shard_id_for_distribution_column('src', tenant), node FROM made_limited"
        ).fetchall()
        assert len(rows) == 500 and all(node == src_nodes[shard] for shard, node in rows)

        # when the rows must first be gathered (here a UNION ALL with a
        # constant row), the coordinator evaluates the default on the result
        made_by_tenant(conn, "made_gathered")
        query = f"INSERT INTO made_gathered (tenant, n) {select} WHERE n <= 1000 UNION ALL SELECT 0, 0"
        plan = explain(conn, query, "VERBOSE")
        assert "INSERT/SELECT method: pull to coordinator" in plan, plan
        assert re.search(r"Query: SELECT tenant, public\.gen_monotonic_ulid\(\) AS id, .* FROM \(SELECT "
                         r"intermediate_result", plan), plan
        conn.execute(query)
        rows = conn.execute("SELECT id::text, node FROM made_gathered").fetchall()
        assert len(rows) == 1001 and {node for _, node in rows} == {citus.coordinator.port}


@contextmanager
def ulid_preloaded(citus: Citus, preload: bool):
    if not preload:
        citus.restart(preload_ulid=False)
    try:
        for node in [citus.coordinator, *citus.workers]:
            with node.connect() as conn:
                (libraries,) = conn.execute("SHOW shared_preload_libraries").fetchone()
            assert libraries == ("citus,ulid" if preload else "citus"), node.name
        yield
    finally:
        if not preload:
            citus.restart(preload_ulid=True)


def alternate_inserts(first, second, table: str, rounds: int) -> list[tuple]:
    """Single-row INSERTs from two sessions taking turns, so the statement
    order is the order the ids were generated in. Returns (session, id,
    its millisecond) in that order."""
    for i in range(2 * rounds):
        (first, second)[i % 2].execute(f"INSERT INTO {table} (form, n) VALUES (%s, %s)", [str(i % 2), i])
    rows = first.execute(f"SELECT form::int, id::text, ulid_timestamp(id) FROM {table} ORDER BY n").fetchall()
    assert len(rows) == 2 * rounds
    return rows


def alternate_calls(first, second, rounds: int) -> list[tuple[int, str]]:
    """The same with bare calls, which take a fraction of a millisecond, so
    most turns share a millisecond with the turn before: where order is not
    guaranteed, this finds values going backwards."""
    return [
        (i % 2, (first, second)[i % 2].execute("SELECT gen_monotonic_ulid()::text").fetchone()[0])
        for i in range(2 * rounds)
    ]


def per_session_backwards(rows) -> int:
    return sum(backwards([r[1] for r in rows if r[0] == session]) for session in (0, 1))


@pytest.mark.parametrize("preload", [True, False], ids=["preloaded", "not-preloaded"])
def test_monotonic_order_across_sessions_and_nodes(citus, tenants, preload):
    suffix = "pre" if preload else "nopre"
    with ulid_preloaded(citus, preload):
        coordinator, worker = citus.coordinator, citus.workers[0]
        with coordinator.connect() as a, coordinator.connect() as b, worker.connect() as w:
            # two sessions on the coordinator
            make_table(a, f"two_sessions_{suffix}")
            rows = alternate_inserts(a, b, f"two_sessions_{suffix}", 500)
            assert per_session_backwards(rows) == 0
            calls = alternate_calls(a, b, 1000)
            assert per_session_backwards(calls) == 0
            if preload:
                # one server's shared state: increasing across its sessions
                assert backwards([r[1] for r in rows]) == 0
                assert backwards([r[1] for r in calls]) == 0
            else:
                # per session only: within a millisecond the sessions interleave
                assert backwards([r[1] for r in calls]) > 0

            # a session on the coordinator and one on a worker: two servers
            # never share state, preloaded or not; they agree on the millisecond
            make_table(a, f"two_nodes_{suffix}")
            rows = alternate_inserts(a, w, f"two_nodes_{suffix}", 500)
            assert per_session_backwards(rows) == 0
            assert all(x[2] <= y[2] for x, y in zip(rows, rows[1:]))
            calls = alternate_calls(a, w, 1000)
            assert per_session_backwards(calls) == 0
            assert backwards([r[1] for r in calls]) > 0

            # INSERT ... SELECT: the workers' shard queries, each in one
            # session, ordered within its source shard
            made_by_tenant(a, f"spread_{suffix}")
            a.execute(f"INSERT INTO spread_{suffix} (tenant, n) SELECT tenant, n FROM src")
            check_made_per_source_shard(a, f"spread_{suffix}")


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
