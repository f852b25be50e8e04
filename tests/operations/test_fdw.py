"""postgres_fdw: with ulid listed in a foreign server's `extensions` option,
conditions on ulid columns run on the remote side; and PostgreSQL's own
sharding, a table hash-partitioned on a ulid key whose partitions are
foreign tables on two other servers."""

from __future__ import annotations

import re

import pytest

from harness.pgcluster import Cluster


pytestmark = pytest.mark.extensions("postgres_fdw")


@pytest.fixture
def fdw(cluster):
    remote = cluster.create_database("fdw_remote")
    local = cluster.create_database("fdw_local")
    with cluster.connect(remote) as conn:
        conn.execute("CREATE TABLE items (id ulid PRIMARY KEY, n int)")
        conn.execute(
            "INSERT INTO items SELECT gen_ulid(timestamptz '2025-01-01' + g * interval '1 hour'), g "
            "FROM generate_series(1, 2000) g"
        )
        conn.execute("INSERT INTO items VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7', 0)")
        conn.execute("ANALYZE items")
    with cluster.connect(local) as conn:
        conn.execute("CREATE EXTENSION postgres_fdw")
        for name, options in (("with_ulid", ", extensions 'ulid'"), ("without_ulid", "")):
            conn.execute(
                f"CREATE SERVER {name} FOREIGN DATA WRAPPER postgres_fdw "
                f"OPTIONS (host '127.0.0.1', port '{cluster.port}', dbname '{remote}'{options})"
            )
            conn.execute(f"CREATE USER MAPPING FOR CURRENT_USER SERVER {name} OPTIONS (user 'postgres')")
            conn.execute(f"CREATE SCHEMA {name}")
            conn.execute(f"IMPORT FOREIGN SCHEMA public LIMIT TO (items) FROM SERVER {name} INTO {name}")
    return local


def remote_sql(conn, query):
    plan = [r[0] for r in conn.execute("EXPLAIN (VERBOSE, COSTS OFF) " + query).fetchall()]
    remote = [line.strip() for line in plan if "Remote SQL:" in line]
    assert len(remote) == 1, plan
    return remote[0], plan


QUERIES = {
    "equality": ("SELECT n FROM {s}.items WHERE id = '01JGFJJZ00XHF7E02JJ03AE4T7'", [(0,)]),
    "time range": (
        "SELECT count(*) FROM {s}.items "
        "WHERE id >= '2025-01-02'::timestamptz::ulid AND id < '2025-01-03'::timestamptz::ulid",
        [(24,)],
    ),
}


def test_conditions_on_ulid_are_pushed_down(cluster, fdw):
    with cluster.connect(fdw) as conn:
        for name, (query, expected) in QUERIES.items():
            sql = query.format(s="with_ulid")
            remote, plan = remote_sql(conn, sql)
            assert "WHERE" in remote, (name, plan)
            condition = remote.split("WHERE", 1)[1]
            assert "id OPERATOR(public." in condition and "Filter:" not in "\n".join(plan), (name, plan)
            assert conn.execute(sql).fetchall() == expected, name


def test_without_the_extensions_option_nothing_is_pushed(cluster, fdw):
    """The control: postgres_fdw keeps conditions on unknown types local."""
    with cluster.connect(fdw) as conn:
        for name, (query, expected) in QUERIES.items():
            sql = query.format(s="without_ulid")
            remote, plan = remote_sql(conn, sql)
            assert "WHERE" not in remote, (name, plan)
            assert any("Filter:" in line for line in plan), (name, plan)
            assert conn.execute(sql).fetchall() == expected, name


# ---------------------------------------------------------------------------
# sharding: hash partitions that are foreign tables on two other servers

SHARDS = 2


@pytest.fixture(scope="module")
def shards(build):
    """Two more servers of the build under test, each holding one shard."""
    servers = [Cluster(build, f"shard{i}", slot=40 + i).start() for i in range(SHARDS)]
    yield servers
    for server in servers:
        server.stop()


@pytest.fixture
def sharded(cluster, shards, db):
    """orders, hash-partitioned on its ulid key: remainder i lives on
    shards[i] as the table orders_i, reached through postgres_fdw."""
    for i, shard in enumerate(shards):
        shard.create_database(db)
        with shard.connect(db) as conn:
            conn.execute(f"CREATE TABLE orders_{i} (id ulid PRIMARY KEY, total numeric NOT NULL)")
    with cluster.connect(db) as conn:
        conn.execute("CREATE EXTENSION postgres_fdw")
        conn.execute(
            "CREATE TABLE orders (id ulid NOT NULL DEFAULT gen_monotonic_ulid(), total numeric NOT NULL) "
            "PARTITION BY HASH (id)"
        )
        for i, shard in enumerate(shards):
            conn.execute(
                f"CREATE SERVER shard{i} FOREIGN DATA WRAPPER postgres_fdw "
                f"OPTIONS (host '127.0.0.1', port '{shard.port}', dbname '{db}', extensions 'ulid')"
            )
            conn.execute(f"CREATE USER MAPPING FOR CURRENT_USER SERVER shard{i} OPTIONS (user 'postgres')")
            conn.execute(
                f"CREATE FOREIGN TABLE orders_{i} PARTITION OF orders "
                f"FOR VALUES WITH (MODULUS {SHARDS}, REMAINDER {i}) SERVER shard{i}"
            )
        # 1,000 orders made now, and 240 an hour apart from 2025-01-01
        returned = conn.execute(
            "INSERT INTO orders (total) SELECT g FROM generate_series(1, 1000) g RETURNING id::bytea"
        ).fetchall()
        returned += conn.execute(
            "INSERT INTO orders SELECT gen_ulid(timestamptz '2025-01-01' + g * interval '1 hour'), g "
            "FROM generate_series(0, 239) g RETURNING id::bytea"
        ).fetchall()
        for i in range(SHARDS):
            conn.execute(f"ANALYZE orders_{i}")
    yield db, {bytes(r[0]) for r in returned}


def stored(shards, db) -> list[set[bytes]]:
    """The bytes of every id each shard holds, read on the shard itself."""
    result = []
    for i, shard in enumerate(shards):
        with shard.connect(db) as conn:
            result.append({bytes(r[0]) for r in conn.execute(f"SELECT ulid_send(id) FROM orders_{i}")})
    return result


def test_rows_land_on_the_server_their_hash_names(cluster, shards, sharded):
    db, returned = sharded
    held = stored(shards, db)
    assert all(len(h) > 300 for h in held), [len(h) for h in held]
    # each remote holds exactly the 16 bytes the coordinator generated
    assert set().union(*held) == returned and sum(map(len, held)) == len(returned) == 1240
    assert all(len(b) == 16 for b in returned)
    with cluster.connect(db) as conn:
        for i, ids in enumerate(held):
            # the coordinator's own partition bound check agrees with where
            # each row is, for this shard and against the other one
            right, wrong = conn.execute(
                "SELECT count(*) FILTER (WHERE satisfies_hash_partition('orders'::regclass, %s, %s, id)), "
                "       count(*) FILTER (WHERE satisfies_hash_partition('orders'::regclass, %s, %s, id)) "
                "FROM unnest(%s::bytea[]) AS b, LATERAL (SELECT b::ulid AS id) x",
                [SHARDS, i, SHARDS, 1 - i, list(ids)],
            ).fetchone()
            assert (right, wrong) == (len(ids), 0), i
        # and so does reading back through the partitioned table
        assert conn.execute("SELECT count(*), count(DISTINCT id) FROM orders").fetchone() == (1240, 1240)


def test_a_point_lookup_touches_one_remote(cluster, shards, sharded):
    db, _ = sharded
    held = stored(shards, db)
    with cluster.connect(db) as conn:
        for i, ids in enumerate(held):
            value = conn.execute("SELECT %s::bytea::ulid::text", [min(ids)]).fetchone()[0]
            query = f"SELECT total FROM orders WHERE id = '{value}'"
            plan = "\n".join(r[0] for r in conn.execute("EXPLAIN (VERBOSE, COSTS OFF) " + query))
            scans = re.findall(r"Foreign Scan on public\.(orders_\d+)", plan)
            assert scans == [f"orders_{i}"], plan
            remote = re.search(r"Remote SQL: (.*)", plan).group(1)
            # (13 and 14 print the constant's type, later versions do not)
            assert re.search(rf"WHERE \(\(id OPERATOR\(public\.=\) '{value}'(::public\.ulid)?\)\)$", remote), plan
            assert len(conn.execute(query).fetchall()) == 1


def test_a_time_range_is_pushed_down_to_every_remote(cluster, shards, sharded):
    db, _ = sharded
    query = ("SELECT count(*) FROM orders "
             "WHERE id >= '2025-01-02'::timestamptz::ulid AND id < '2025-01-03'::timestamptz::ulid")
    with cluster.connect(db) as conn:
        plan = [r[0] for r in conn.execute("EXPLAIN (VERBOSE, COSTS OFF) " + query)]
        remote = [line.split("Remote SQL: ", 1)[1] for line in plan if "Remote SQL:" in line]
        assert len(remote) == SHARDS, plan
        lo = conn.execute("SELECT '2025-01-02'::timestamptz::ulid::text").fetchone()[0]
        hi = conn.execute("SELECT '2025-01-03'::timestamptz::ulid::text").fetchone()[0]
        for sql in remote:
            # the bounds travel as ulid constants, compared on the remote
            assert re.search(
                rf"WHERE \(\(id OPERATOR\(public\.>=\) '{lo}'(::public\.ulid)?\)\) "
                rf"AND \(\(id OPERATOR\(public\.<\) '{hi}'(::public\.ulid)?\)\)$", sql), plan
        assert not any("Filter:" in line for line in plan), plan
        assert conn.execute(query).fetchone() == (24,)
    # the same count, from the shards themselves
    total = 0
    for i, shard in enumerate(shards):
        with shard.connect(db) as conn:
            total += conn.execute(
                f"SELECT count(*) FROM orders_{i} WHERE ulid_timestamp(id) >= '2025-01-02' "
                "AND ulid_timestamp(id) < '2025-01-03'"
            ).fetchone()[0]
    assert total == 24
