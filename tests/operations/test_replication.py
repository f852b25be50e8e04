"""Logical replication between two private clusters on loopback: rows with
ulid keys arrive identical, and UPDATE and DELETE find their rows by the
ulid primary key on the subscriber. Text and binary transfer."""

from __future__ import annotations

import time

import pytest

from harness.pgcluster import Cluster, major_version

TABLE = "CREATE TABLE items (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), n int, tags ulid[])"


@pytest.fixture(scope="module")
def publisher(build):
    c = Cluster(build, "publisher", slot=3, settings={"wal_level": "logical"}).start()
    yield c
    c.stop()


@pytest.fixture(scope="module")
def subscriber(build):
    c = Cluster(build, "subscriber", slot=4).start()
    yield c
    c.stop()


def rows(cluster, db):
    with cluster.connect(db) as conn:
        return conn.execute("SELECT id::text, n, tags::text FROM items ORDER BY id").fetchall()


def wait_until_equal(publisher, subscriber, db, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        want, got = rows(publisher, db), rows(subscriber, db)
        if want == got:
            return want
        time.sleep(0.2)
    raise AssertionError(f"subscriber did not catch up: {len(got)} rows vs {len(want)}")


def pytest_generate_tests(metafunc):
    # binary transfer (CREATE SUBSCRIPTION ... WITH (binary)) exists from 14
    if "binary" in metafunc.fixturenames:
        major = major_version(metafunc.config.getoption("--build"))
        metafunc.parametrize("binary", [False, True] if major >= 14 else [False])


def test_logical_replication(publisher, subscriber, binary):
    db = f"replicated_{'binary' if binary else 'text'}"
    for cluster in (publisher, subscriber):
        cluster.create_database(db)
        with cluster.connect(db) as conn:
            conn.execute(TABLE)
    with publisher.connect(db) as conn:
        conn.execute("INSERT INTO items (n, tags) SELECT g, ARRAY[gen_ulid()] FROM generate_series(1, 1000) g")
        conn.execute("CREATE PUBLICATION items_pub FOR TABLE items")
    with subscriber.connect(db) as conn:
        options = f" WITH (binary = {str(binary).lower()})" if subscriber.version >= 14 else ""
        conn.execute(
            f"CREATE SUBSCRIPTION items_sub CONNECTION '{publisher.tcp_conninfo(db)}' "
            f"PUBLICATION items_pub{options}"
        )
    try:
        assert len(wait_until_equal(publisher, subscriber, db)) == 1000

        with publisher.connect(db) as conn:
            conn.execute("INSERT INTO items (n) SELECT g FROM generate_series(1001, 1500) g")
            conn.execute("UPDATE items SET n = -n WHERE n % 7 = 0")
            conn.execute("DELETE FROM items WHERE n % 5 = 0")
            conn.execute("UPDATE items SET id = gen_ulid() WHERE n = 1")  # a key change
        final = wait_until_equal(publisher, subscriber, db)
        assert len(final) == 1500 - 300
        assert any(n < 0 for _, n, _ in final)
        if subscriber.version >= 14:
            with subscriber.connect(db) as conn:
                (binary_setting,) = conn.execute("SELECT subbinary FROM pg_subscription").fetchone()
                assert binary_setting is binary
    finally:
        with subscriber.connect(db) as conn:
            conn.execute("DROP SUBSCRIPTION items_sub")
