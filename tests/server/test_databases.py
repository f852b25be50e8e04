"""The monotonic generator's shared state is each database's own.

On PostgreSQL 17 and later, and wherever ulid is preloaded,
gen_monotonic_ulid() keeps one state per database in shared memory (a table
of places, src/shmem.rs). What is checked here, on both kinds of server:

- a session in one database learns nothing of another database's calls
  from its own values: sessions in databases A and B take turns A, B, A
  within one millisecond, and B's value never falls between A's two (it
  did in every such turn while the state was the server's); the same turns
  with both sessions in one database show that the count sees sharing;
- values increase across 8 sessions of a database taking turns, while 8
  sessions of another database do the same, and the two databases' values
  are in no order with each other;
- a database dropped and made again starts a state of its own;
- a waiter for a state whose holder is stopped (SIGSTOP) answers
  pg_cancel_backend, and another database's sessions do not wait at all;
- (on 19) a thousand databases and more: the table's size as the
  server reports it, the database past the limit keeping its order per
  session and the server log saying so once, and a dropped database's
  place taken by the next that asks.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import psycopg
import pytest

from harness.ordering import client_serialized, order_of
from harness.pgcluster import Cluster

# The table's size (src/shmem.rs): a header and MAX_DATABASES places, a
# cache line each, in a shared memory block named for its layout.
MAX_DATABASES = 1024
TABLE_BYTES = 64 + 64 * MAX_DATABASES
TABLE_NAME = "ulid monotonic generator, layout 2"
FULL = f"the shared table of {MAX_DATABASES} databases is full"

TRIPLES = 200


def shares_state(server) -> bool:
    """Whether gen_monotonic_ulid() has a shared state on this server: 17
    and later, or preloaded."""
    return server.version >= 17 or "ulid" in server.settings.get("shared_preload_libraries", "")


@pytest.fixture(params=["not preloaded", "preloaded"])
def server(request):
    return request.getfixturevalue("preloaded" if request.param == "preloaded" else "cluster")


def value(conn) -> int:
    (made,) = conn.execute("SELECT gen_monotonic_ulid()::bytea").fetchone()
    return int.from_bytes(made, "big")


def between_count(first, second, wanted: int = TRIPLES, tries: int = 50_000) -> tuple[int, int]:
    """Sessions FIRST and SECOND take turns first, second, first; of the
    first `wanted` turns whose three values share a millisecond, how many
    put second's value between first's two. Returns (turns, between)."""
    turns = between = 0
    for _ in range(tries):
        a1, b, a2 = value(first), value(second), value(first)
        assert a2 > a1, "a session's own values went backwards"
        if a1 >> 80 == b >> 80 == a2 >> 80:
            turns += 1
            between += a1 < b < a2
            if turns == wanted:
                break
    return turns, between


def test_a_database_cannot_watch_another(server):
    """B's values between A's two would tell A that B drew a value, and
    roughly which: a count of another tenant's inserts. With a state per
    database, B's value is in no relation to A's (odds of falling between
    two values at most 2^32 apart: 2^-48)."""
    a = server.create_database("watch_a")
    b = server.create_database("watch_b")
    try:
        with server.connect(a) as first, server.connect(b) as second:
            turns, between = between_count(first, second)
        assert turns == TRIPLES, "the turns must share milliseconds for this to mean anything"
        assert between <= 2, f"{between} of {turns} turns put B's value between A's two"
        # the same turns with both sessions in one database: the count sees
        # a shared state (every turn, where there is one)
        with server.connect(a) as first, server.connect(a) as second:
            turns, between = between_count(first, second)
        assert turns == TRIPLES
        if shares_state(server):
            assert between == turns
        else:
            assert between <= 2
    finally:
        with server.connect() as conn:
            for name in (a, b):
                conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def test_8_sessions_in_each_of_two_databases(server):
    """8 sessions, 4 in each of two databases, take turns: each database's
    values increase across its sessions (on a server with a shared state),
    and a database's value is below the other database's previous one
    about half the time (the two states are independent)."""
    dbs = [server.create_database("eight_a"), server.create_database("eight_b")]
    try:
        made = client_serialized(server, dbs, 1000, threads_per_db=4)
        assert len(made) == 8000
        for parity in (0, 1):
            own = [(k, v) for k, v in made if k % 2 == parity]
            backwards, crossing = order_of(own)
            assert crossing >= 200, "the sessions must interleave within milliseconds for this to mean anything"
            if shares_state(server):
                assert backwards == 0, f"database {dbs[parity]}: {backwards} values not above the one before"
            else:
                assert backwards > 0
        # consecutive calls are of the two databases in turn
        same_ms = [(a, b) for (_, a), (_, b) in zip(made, made[1:]) if a[:6] == b[:6]]
        below = sum(1 for a, b in same_ms if b < a)
        assert len(same_ms) >= 200
        assert 0.25 < below / len(same_ms) < 0.75, (below, len(same_ms))
    finally:
        with server.connect() as conn:
            for name in dbs:
                conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def test_a_database_dropped_and_made_again(server):
    """The database made again under the same name is a new database (a
    new OID): its sessions share a state of their own, from the clock."""
    name = "again"
    server.create_database(name)
    first = client_serialized(server, [name], 400)
    server.create_database(name)  # dropped first
    second = client_serialized(server, [name], 400)
    with server.connect() as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    for made in (first, second):
        backwards, crossing = order_of(made)
        assert crossing >= 50
        assert (backwards == 0) == shares_state(server)
    assert second[0][1] > first[-1][1], "the clock went on"


class Waiter:
    """A session that calls gen_monotonic_ulid() in a thread of its own."""

    def __init__(self, server, db):
        self.conn = server.connect(db)
        (self.pid,) = self.conn.execute("SELECT pg_backend_pid()").fetchone()
        self.done = threading.Event()
        self.outcome = None
        self.ended = None

    def call(self):
        def run():
            try:
                self.conn.execute("SELECT gen_monotonic_ulid()")
                self.outcome = "returned"
            except psycopg.Error as exc:
                self.outcome = exc
            self.ended = time.monotonic()
            self.done.set()

        self.done.clear()
        threading.Thread(target=run, daemon=True).start()


def test_a_waiter_answers_a_cancel_and_other_databases_do_not_wait(preloaded, cluster):
    """A holder stopped inside its database's lock (SIGSTOP, as a debugger
    would): a waiter in the same database answers pg_cancel_backend within
    a second, and a session of another database gets its value at once.
    On the preloaded server, and on 17 and later also without preloading."""
    servers = [preloaded] + ([cluster] if cluster.version >= 17 else [])
    for server in servers:
        db = server.create_database("stopped")
        other = server.create_database("not_stopped")
        holder = server.connect(db)
        (holder_pid,) = holder.execute("SELECT pg_backend_pid()").fetchone()
        looping = threading.Thread(target=lambda: _loop_until_cancelled(holder), daemon=True)
        looping.start()
        waiter = Waiter(server, db)
        try:
            time.sleep(0.3)
            for attempt in range(500):
                os.kill(holder_pid, signal.SIGSTOP)
                time.sleep(0.002)
                waiter.call()
                if not waiter.done.wait(2.0):
                    break  # the holder was stopped holding the lock
                assert waiter.outcome == "returned", waiter.outcome
                os.kill(holder_pid, signal.SIGCONT)
            else:
                pytest.fail("the holder was never stopped while holding the lock")
            # the holder still holds it: another database does not wait
            with server.connect(other) as conn:
                assert value(conn) > 0
            # and the waiter still waits, until cancelled
            assert not waiter.done.is_set()
            with server.connect() as conn:
                cancelled = time.monotonic()
                assert conn.execute("SELECT pg_cancel_backend(%s)", [waiter.pid]).fetchone() == (True,)
            assert waiter.done.wait(5.0), "the waiter did not answer the cancel"
            assert isinstance(waiter.outcome, psycopg.errors.QueryCanceled), waiter.outcome
            assert waiter.ended - cancelled < 1.0, f"the cancel took {waiter.ended - cancelled:.3f} s"
            # the waiter's session goes on, and gets a value once the holder runs
            os.kill(holder_pid, signal.SIGCONT)
            assert value(waiter.conn) > 0
        finally:
            os.kill(holder_pid, signal.SIGCONT)
            with server.connect() as conn:
                conn.execute("SELECT pg_cancel_backend(%s)", [holder_pid])
            looping.join(30)
            waiter.conn.close()
            holder.close()
            with server.connect() as conn:
                for name in (db, other):
                    conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def _loop_until_cancelled(conn):
    # generate_series in the select list makes its rows one at a time (in
    # FROM it would make them all first, into a tuplestore)
    try:
        conn.execute("SELECT count(gen_monotonic_ulid()), count(gen_monotonic_ulid()), count(gen_monotonic_ulid()) "
                     "FROM (SELECT generate_series(1, 10000000000)) AS rows")
    except psycopg.errors.QueryCanceled:
        pass


@pytest.mark.builds("19")
def test_more_databases_than_places(pg_build):
    """MAX_DATABASES + 6 databases, each drawing ids in turn, on a server
    without preloading (the table in the DSM registry): the table is the
    size the server reports (pg_dsm_registry_allocations, new in 19), whatever the number of databases; the
    databases past the limit keep their order per session and the log says
    so once; a dropped database's place goes to the next database that
    asks."""
    server = Cluster(pg_build, "many-databases", slot=44,
                     settings={"synchronous_commit": "off", "fsync": "off"}).start_empty()
    try:
        with server.connect("template1") as conn:
            conn.execute("CREATE EXTENSION ulid")
        names = [f"tenant_{i:04}" for i in range(1, MAX_DATABASES + 7)]
        with server.connect() as conn:
            for name in names:
                conn.execute(f'CREATE DATABASE "{name}" STRATEGY = FILE_COPY')
        for name in names:
            with server.connect(name) as conn:
                first, second = value(conn), value(conn)
                assert second > first
        with server.connect() as conn:
            (size,) = conn.execute("SELECT size FROM pg_dsm_registry_allocations WHERE name = %s",
                                   [TABLE_NAME]).fetchone()
            assert size == TABLE_BYTES
        log = server.log_tail(100_000)
        said = [line for line in log.splitlines() if FULL in line]
        assert len(said) == 1, said
        assert f'database "{names[MAX_DATABASES]}"' in said[0], said

        # the first database keeps its order across sessions, the last keeps it per session only
        assert order_of(client_serialized(server, [names[0]], 600))[0] == 0
        backwards, crossing = order_of(client_serialized(server, [names[-1]], 600))
        assert crossing >= 100 and backwards > 0, (backwards, crossing)

        # a place freed by a dropped database goes to the next that asks
        with server.connect() as conn:
            conn.execute(f'DROP DATABASE "{names[1]}"')
        backwards, crossing = order_of(client_serialized(server, [names[-1]], 600))
        assert crossing >= 100 and backwards == 0, (backwards, crossing)
        assert len([line for line in server.log_tail(100_000).splitlines() if FULL in line]) == 1
    finally:
        server.destroy()


@pytest.mark.builds("19")
def test_the_table_is_named_for_its_layout(cluster):
    """PostgreSQL 19 lists the registry's segments
    (pg_dsm_registry_allocations): the table is there under its layout's
    name and size once a database has called the generator (a later layout
    gets a name of its own)."""
    db = cluster.create_database("named")
    with cluster.connect(db) as conn:
        value(conn)
        rows = conn.execute("SELECT name, size FROM pg_dsm_registry_allocations "
                            "WHERE name LIKE 'ulid%'").fetchall()
    assert (TABLE_NAME, TABLE_BYTES) in rows
    assert all(re.fullmatch(r"ulid monotonic generator(, layout \d+)?", name) for name, _ in rows), rows
