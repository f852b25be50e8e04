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
- (on 19) an ordinary role with CREATEDB makes more databases than the
  table has places, each drawing values: a database made after them still
  shares one state across its sessions, and no database falls back to
  per-session order; the table's size as the server reports it, and as
  ulid_shared_places() shows it to a superuser (and to no one else);
- (on 19) a session whose catalog snapshot is older than a database
  (REPEATABLE READ, pg_database locked) takes no place of that database,
  even while that database's holder is stopped inside its lock, and the
  table serves new sessions afterwards; a database made with a dropped
  one's OID starts with no backend counted on its place;
- with max_connections above the table's least size, a place for every
  backend the server can have.

What a backend that dies or gives up while it waits leaves behind is
test_shared_faults.py's.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time

import psycopg
import pytest

from harness.holders import Looper, Waiter, new_sessions_draw, stop_inside_lock, value
from harness.ordering import client_serialized, order_of
from harness.pgcluster import Cluster

# The table's size (src/shmem.rs): a header and a place per backend the
# server can have, at least MIN_PLACES, a cache line each, in a shared
# memory block named for its layout.
MIN_PLACES = 1024
TABLE_BYTES = 64 + 64 * MIN_PLACES
TABLE_NAME = "ulid monotonic generator, layout 3"
PER_SESSION = "keeps its order per session"

TRIPLES = 200


def shares_state(server) -> bool:
    """Whether gen_monotonic_ulid() has a shared state on this server: 17
    and later, or preloaded."""
    return server.version >= 17 or "ulid" in server.settings.get("shared_preload_libraries", "")


@pytest.fixture(params=["not preloaded", "preloaded"])
def server(request):
    return request.getfixturevalue("preloaded" if request.param == "preloaded" else "cluster")


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
        # rounds of 8,000 values until each database has 200 pairs of
        # consecutive values of two sessions in one millisecond, without
        # which its order would mean nothing (a loaded machine, an assert
        # build: calls slower than a millisecond make fewer in a round)
        backwards, crossing, same_ms, below = [0, 0], [0, 0], 0, 0
        for _ in range(12):
            made = client_serialized(server, dbs, 1000, threads_per_db=4)
            assert len(made) == 8000
            for parity in (0, 1):
                b, c = order_of([(k, v) for k, v in made if k % 2 == parity])
                backwards[parity] += b
                crossing[parity] += c
            # consecutive calls are of the two databases in turn
            pairs = [(a, b) for (_, a), (_, b) in zip(made, made[1:]) if a[:6] == b[:6]]
            same_ms += len(pairs)
            below += sum(1 for a, b in pairs if b < a)
            if min(crossing) >= 200 and same_ms >= 200:
                break
        assert min(crossing) >= 200 and same_ms >= 200, \
            f"the sessions must interleave within milliseconds for this to mean anything: {crossing}, {same_ms}"
        for parity in (0, 1):
            if shares_state(server):
                assert backwards[parity] == 0, \
                    f"database {dbs[parity]}: {backwards[parity]} values not above the one before"
            else:
                assert backwards[parity] > 0
        assert 0.25 < below / same_ms < 0.75, (below, same_ms)
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


def test_a_waiter_answers_a_cancel_and_other_databases_do_not_wait(preloaded, cluster):
    """A holder stopped inside its database's lock (SIGSTOP, as a debugger
    would): a waiter in the same database answers pg_cancel_backend within
    a second, and a session of another database gets its value at once.
    On the preloaded server, and on 17 and later also without preloading."""
    servers = [preloaded] + ([cluster] if cluster.version >= 17 else [])
    for server in servers:
        db = server.create_database("stopped")
        other = server.create_database("not_stopped")
        holder = Looper(server, db)
        waiter = Waiter(server, db)
        value(waiter.conn)  # attached: it waits on its database's lock, not the table's
        try:
            stop_inside_lock(holder, waiter)
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
            os.kill(holder.pid, signal.SIGCONT)
            assert value(waiter.conn) > 0
        finally:
            holder.end()
            waiter.close()
            with server.connect() as conn:
                for name in (db, other):
                    conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@contextlib.contextmanager
def noted(problems: list[str], what: str):
    """An error or a failed check in the block is one more of PROBLEMS,
    and the test goes on to the next block."""
    try:
        yield
    except (psycopg.Error, AssertionError) as exc:
        problems.append(f"{what}: {type(exc).__name__}: {exc}".strip())


# a statement that would wait for a lock left held fails instead
TIMEOUT = "-c statement_timeout=10s"


@pytest.mark.builds("19")
def test_a_tenant_cannot_fill_the_table(build):
    """On a server without preloading (the table in the DSM registry), an
    ordinary role with CREATEDB makes MIN_PLACES + 6 databases, each with
    CREATE EXTENSION ulid and values drawn. Then, with a place for every
    database taken once:

    - a database made after them shares one state across its sessions, and
      the log names no database keeping its order per session;
    - a session whose catalog snapshot predates a database (REPEATABLE
      READ, pg_database read in its transaction, as a dropped database's
      place is taken by a new one) draws its first value while that
      database's holder is stopped inside its lock: it gets a place of its
      own without waiting, the two databases' values never interleave, and
      afterwards new sessions of three databases draw values at once;
    - a database made with a dropped one's OID (CREATE DATABASE ... OID)
      finds its place with no backend counted, and counts its own;
    - ulid_shared_places() shows a superuser every place, and no one else.
    What went wrong is gathered and reported together."""
    server = Cluster(build, "many-databases", slot=44,
                     settings={"synchronous_commit": "off", "fsync": "off"}).start_empty()
    problems: list[str] = []
    try:
        with server.connect() as conn:
            conn.execute("CREATE ROLE tenant LOGIN CREATEDB")
            conn.execute("CREATE DATABASE tenant_template OWNER tenant TEMPLATE template0")
        with server.connect("tenant_template", user="tenant") as conn:
            conn.execute("CREATE EXTENSION ulid")
        names = [f"tenant_{i:04}" for i in range(1, MIN_PLACES + 7)]
        with server.connect(user="tenant") as conn:
            for name in names:
                conn.execute(f'CREATE DATABASE "{name}" TEMPLATE tenant_template STRATEGY = FILE_COPY')
        for name in names:
            with server.connect(name, user="tenant") as conn:
                first, second = value(conn), value(conn)
                assert second > first
        watch = server.create_database("watch")  # where the superuser reads the table

        with noted(problems, "a database made after the tenant's"):
            later = server.create_database("later")
            backwards, crossing = order_of(client_serialized(server, [later], 600))
            assert crossing >= 100 and backwards == 0, (backwards, crossing)

        # a newcomer whose catalog snapshot is older than the victim
        with server.connect() as conn:
            conn.execute(f'DROP DATABASE "{names[0]}"')
        newcomer_db = server.create_database("newcomer")
        newcomer = Waiter(server, newcomer_db, autocommit=False, setup=(
            "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
            "SELECT has_database_privilege(4000000000::oid, 'CONNECT')",
            "SELECT 'gen_monotonic_ulid()'::regprocedure, NULL::ulid, count(*) FROM pg_database"))
        victim_db = server.create_database("victim")
        holder = Looper(server, victim_db)
        waiter = Waiter(server, victim_db)
        value(waiter.conn)
        try:
            stop_inside_lock(holder, waiter)
            newcomer.call()
            if not newcomer.done.wait(5.0):
                problems.append("the newcomer's first value waited on the stopped victim's lock")
                with server.connect() as conn:
                    conn.execute("SELECT pg_terminate_backend(%s)", [newcomer.pid])
            elif newcomer.outcome != "returned":
                problems.append(f"the newcomer's first value failed: {newcomer.outcome}")
        finally:
            holder.end()
            waiter.close()
        problems += new_sessions_draw(server, [victim_db, watch, names[-1]])
        if newcomer.outcome == "returned":
            with noted(problems, "the newcomer beside the victim"):
                with server.connect(victim_db, options=TIMEOUT) as victim:
                    turns, between = between_count(newcomer.conn, victim)
                assert turns == TRIPLES and between <= 2, \
                    f"{between} of {turns} turns put the victim's value between the newcomer's two"
            with noted(problems, "the newcomer's place"), server.connect(watch) as conn:
                rows = dict(conn.execute(
                    "SELECT d.datname, p.backends FROM ulid_shared_places() AS p "
                    "JOIN pg_database AS d ON d.oid = p.database "
                    "WHERE d.datname IN (%s, %s)", [victim_db, newcomer_db]).fetchall())
                assert rows.get(newcomer_db) == 1, rows
        newcomer.close()

        # (the places of the first tenants' databases went to those made
        # after them; one from the middle still has its own)
        with noted(problems, "a dropped database's OID used again"):
            with server.connect() as conn:
                (oid,) = conn.execute("SELECT oid FROM pg_database WHERE datname = %s",
                                      [names[500]]).fetchone()
                conn.execute(f'DROP DATABASE "{names[500]}"')
                conn.execute(f"CREATE DATABASE reused OID {oid} TEMPLATE tenant_template")
            with server.connect(watch) as conn:
                count = "SELECT backends FROM ulid_shared_places() WHERE database = %s"
                (before,) = conn.execute(count, [oid]).fetchone()
                with server.connect("reused", options=TIMEOUT) as reused:
                    first, second = value(reused), value(reused)
                    (during,) = conn.execute(count, [oid]).fetchone()
            assert second > first
            assert (before, during) == (0, 1), (before, during)

        with noted(problems, "the table's size and who may read it"):
            with server.connect(watch, user="tenant") as conn:
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute("SELECT * FROM ulid_shared_places()")
            with server.connect(watch) as conn:
                row = conn.execute("SELECT size FROM pg_dsm_registry_allocations WHERE name = %s",
                                   [TABLE_NAME]).fetchone()
                assert row == (TABLE_BYTES,), f"the table {TABLE_NAME!r} takes {row} bytes"
                places, served = conn.execute(
                    "SELECT count(*), count(database) FROM ulid_shared_places()").fetchone()
                assert (places, served) == (MIN_PLACES, MIN_PLACES), (places, served)
        said = [line for line in server.log_tail(100_000).splitlines() if PER_SESSION in line]
        if said:
            problems.append(f"databases fell back to per-session order: {said}")
        assert not problems, "\n".join(problems)
    finally:
        server.destroy(wait=False)


@pytest.mark.builds("13", "19")
@pytest.mark.parametrize("preload", [False, True], ids=["not preloaded", "preloaded"])
def test_a_place_for_every_backend(build, major, preload):
    """With max_connections above the table's least size, the table has a
    place for every backend the server can have: the places
    ulid_shared_places() lists, and on 19 without preloading the size the
    server reports for the registry's segment. On 13 (the table sized
    before the server counts its backends) preloaded only: 13 to 16 keep
    no table without it."""
    if not preload and major < 17:
        pytest.skip("13 to 16 keep no shared table without preloading")
    settings = {"max_connections": "1500"}
    if preload:
        settings["shared_preload_libraries"] = "ulid"
    server = Cluster(build, "many-backends", slot=45, settings=settings).start_empty()
    try:
        with server.connect() as conn:
            conn.execute("CREATE EXTENSION ulid")
            value(conn)
            (places,) = conn.execute("SELECT count(*) FROM ulid_shared_places()").fetchone()
            assert 1500 < places < 1500 + 64, places
            if not preload:
                (size,) = conn.execute("SELECT size FROM pg_dsm_registry_allocations WHERE name = %s",
                                       [TABLE_NAME]).fetchone()
                assert size == 64 + 64 * places
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
