"""Hostile input and load: errors never cost the backend, a soak run,
backends killed mid-insert, crash restarts, and memory that stays flat."""

from __future__ import annotations

import os
import signal
import threading
import time

import psycopg
import pytest

from harness import soak
from harness.pgcluster import Cluster

FAILING = [
    ("SELECT '80000000000000000000000000'::ulid", "22P02"),
    ("SELECT ''::ulid", "22P02"),
    ("SELECT 'ulid with spaces and 26 ch'::ulid", "22P02"),
    ("SELECT repeat('Z', 100000)::ulid", "22P02"),
    ("SELECT E'\\u00e9'::ulid", "22P02"),
    ("SELECT '\\x00'::bytea::ulid", "22P03"),
    ("SELECT decode(repeat('ab', 1000), 'hex')::ulid", "22P03"),
    ("SELECT 'infinity'::timestamptz::ulid", "22008"),
    ("SELECT '1900-01-01'::timestamptz::ulid", "22008"),
    ("SELECT gen_ulid('-infinity')", "22008"),
    ("SELECT gen_ulid('20000-01-01'::timestamptz)", "22008"),
]


def test_every_error_leaves_the_backend_serving(conn):
    pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
    for sql, sqlstate in FAILING:
        with pytest.raises(psycopg.Error) as err:
            conn.execute(sql)
        assert err.value.sqlstate == sqlstate, sql
        assert conn.execute("SELECT pg_backend_pid(), gen_ulid() IS NOT NULL").fetchone() == (pid, True), sql


def test_soak_short(build):
    for preload in (False, True):
        settings = {"shared_preload_libraries": "ulid"} if preload else {}
        cluster = Cluster(build, "soak", slot=7, settings=settings).start()
        try:
            report = soak.soak(cluster, seconds=5, clients=2)
        finally:
            cluster.stop()
        soak.check(report)
        assert report["transactions"] > 100


@pytest.fixture
def durable(build):
    """A preloaded cluster with durable commits, for crash tests."""
    c = Cluster(build, "crash", slot=8,
                settings={"shared_preload_libraries": "ulid", "synchronous_commit": "on"}).start()
    yield c
    c.stop()


def amcheck_all(cluster, db):
    if not cluster.has_extension("amcheck"):
        return 0
    with cluster.connect(db) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
        indexes = [r[0] for r in conn.execute(
            "SELECT indexrelid::regclass::text FROM pg_index JOIN pg_class c ON c.oid = indexrelid "
            "JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'btree' AND c.relnamespace = 'public'::regnamespace"
        ).fetchall()]
        for index in indexes:
            conn.execute("SELECT bt_index_parent_check(%s::regclass, true)", [index])
    return len(indexes)


def test_backend_terminated_mid_insert(durable):
    db = durable.create_database("terminated")
    with durable.connect(db) as conn:
        conn.execute("CREATE TABLE t (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), n int)")
        conn.execute("INSERT INTO t (n) SELECT g FROM generate_series(1, 1000) g")
    victim = durable.connect(db)
    victim_pid = victim.info.backend_pid
    failure = {}

    def long_insert():
        try:
            victim.execute("INSERT INTO t (n) SELECT g FROM generate_series(1, 50000000) g")
        except psycopg.Error as exc:
            failure["error"] = exc

    thread = threading.Thread(target=long_insert)
    thread.start()
    time.sleep(1.0)
    with durable.connect(db) as conn:
        assert conn.execute("SELECT pg_terminate_backend(%s)", [victim_pid]).fetchone() == (True,)
    thread.join(60)
    assert "error" in failure and failure["error"].sqlstate == "57P01"
    with durable.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (1000,)
        row = conn.execute(
            "SELECT gen_monotonic_ulid() > (SELECT max(id) FROM t), pg_backend_pid() <> %s", [victim_pid]
        ).fetchone()
        assert row == (True, True)
    amcheck_all(durable, db)


def insert_and_crash(cluster, db, crash):
    """One client commits one row per transaction and records each id whose
    COMMIT returned; `crash` then takes the server down mid-stream."""
    committed, stop = [], threading.Event()

    def writer():
        try:
            with cluster.connect(db) as conn:
                while not stop.is_set():
                    (id_,) = conn.execute("INSERT INTO t DEFAULT VALUES RETURNING id::text").fetchone()
                    committed.append(id_)
        except psycopg.Error:
            pass  # the server went away under us: expected

    thread = threading.Thread(target=writer)
    thread.start()
    time.sleep(1.5)
    crash()
    stop.set()
    thread.join(30)
    return committed


def test_crash_restart_keeps_committed_rows(durable):
    db = durable.create_database("crashed")
    with durable.connect(db) as conn:
        conn.execute("CREATE TABLE t (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), at timestamptz DEFAULT now())")
    committed = insert_and_crash(durable, db, lambda: durable.stop("immediate"))
    assert len(committed) > 50
    durable.start()
    with durable.connect(db) as conn:
        present = {r[0] for r in conn.execute("SELECT id::text FROM t").fetchall()}
        assert set(committed) <= present, f"{len(set(committed) - present)} committed rows lost"
        (above,) = conn.execute("SELECT gen_monotonic_ulid() > (SELECT max(id) FROM t)").fetchone()
        assert above
    assert amcheck_all(durable, db) >= 1 or not durable.has_extension("amcheck")


def test_killed_backend_resets_shared_memory_and_generation_goes_on(durable):
    """SIGKILL of a backend makes the postmaster reinitialise shared memory,
    the generator's state included; values still continue upward."""
    db = durable.create_database("killed")
    with durable.connect(db) as conn:
        conn.execute("CREATE TABLE t (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid())")
    holder = durable.connect(db)
    pid = holder.info.backend_pid

    def kill():
        os.kill(pid, signal.SIGKILL)
        time.sleep(1)

    committed = insert_and_crash(durable, db, kill)
    holder.close()
    with durable.connect_when_up(db) as conn:
        present = {r[0] for r in conn.execute("SELECT id::text FROM t").fetchall()}
        assert set(committed) <= present
        (above,) = conn.execute("SELECT gen_monotonic_ulid() > (SELECT max(id) FROM t)").fetchone()
        assert above
    assert "terminated by signal 9" in durable.log_tail(200)


def rss_anon_kb(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    raise RuntimeError("no RssAnon")


# how much a backend may grow over a statement of two million rows
MEMORY_BOUND_MB = 16


def backend_growth_mb(cluster, db, query: str) -> tuple[int, float]:
    """Runs `query` (one row, one count) and samples its backend's
    anonymous memory: the count, and how much the memory grew once the
    statement was under way."""
    with cluster.connect(db) as conn:
        pid = conn.info.backend_pid
        samples, done = [], threading.Event()

        def sample():
            while not done.is_set():
                samples.append(rss_anon_kb(pid))
                time.sleep(0.1)

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            (count,) = conn.execute(query).fetchone()
        finally:
            done.set()
            sampler.join()
    steady = samples[len(samples) // 5:]  # after start-up
    return count, (max(steady) - min(steady)) / 1024


# The memory tests run where the code a row goes through takes each of its
# version arms (text in and out at 16, the generators' state at 17 and 19):
# the oldest and newest build and the assert build (tests/conftest.py)
@pytest.mark.same_on_every_version
@pytest.mark.parametrize("expr", ["gen_ulid()::text", "gen_monotonic_ulid()::text",
                                  "(gen_ulid()::text::ulid)::bytea::ulid::timestamptz"])
def test_two_million_values_keep_memory_flat(cluster, db, expr):
    count, growth_mb = backend_growth_mb(cluster, db, f"SELECT count({expr}) FROM generate_series(1, 2000000)")
    assert count == 2_000_000
    # the smallest allocation the server makes is 8 bytes with an 8-byte
    # header: one left behind a row would be 32 MB here, 25 MB of it after
    # start-up
    assert growth_mb < MEMORY_BOUND_MB, f"backend memory grew by {growth_mb:.1f} MB over the statement"


@pytest.mark.same_on_every_version
def test_memory_kept_for_every_row_is_seen(cluster, db):
    """The control: a statement that keeps each row's 16 bytes (an array
    of two million ulids) grows by more than the bound above."""
    count, growth_mb = backend_growth_mb(
        cluster, db, "SELECT cardinality(array_agg(gen_ulid())) FROM generate_series(1, 2000000)")
    assert count == 2_000_000
    assert growth_mb > MEMORY_BOUND_MB, f"backend memory grew by only {growth_mb:.1f} MB"
