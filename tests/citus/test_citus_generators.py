"""The generators in a Citus cluster: where a DEFAULT calling them is
evaluated, and what order its values have, with and without ulid preloaded.

Where a DEFAULT runs is read from the rows: `node` defaults to the port of
the server evaluating the row's defaults (Citus evaluates a row's
non-immutable defaults together, in one place), and the shard queries in
EXPLAIN VERBOSE show either a ready-made value or the call itself."""

from __future__ import annotations

import re
from contextlib import contextmanager

import pytest

from citus_cluster import SHARDS, Citus, backwards, explain, placements

# wherever Citus is installed into the build (Citus's own packages): none
# of the registries this project uses carries it
pytestmark = pytest.mark.extensions("citus")


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
            if preload or coordinator.version >= 17:
                # one server's shared state (preloaded, or from 17 on in the
                # dynamic shared memory registry): increasing across its sessions
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
