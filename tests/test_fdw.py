"""postgres_fdw to another database: with ulid listed in the server's
`extensions` option, conditions on ulid columns run on the remote side."""

from __future__ import annotations

import pytest


@pytest.fixture
def fdw(cluster):
    if not cluster.has_extension("postgres_fdw"):
        pytest.skip(f"PostgreSQL {cluster.version} here has no postgres_fdw (its build ships no contrib)")
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
