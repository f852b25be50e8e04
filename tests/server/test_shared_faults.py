"""What a backend that dies, is ended or gives up at a wait of the shared
table leaves behind: nothing.

gen_monotonic_ulid() waits in two places (src/spinlock.rs): for the
table's lock, at a backend's first call, holding nothing; and for its
database's lock, on every call, holding nothing but its place, which it
gives back when it exits (a `before_shmem_exit` callback, which a FATAL
exit runs too). Nothing waits while holding a lock of ours. Here a holder
is stopped (SIGSTOP) inside its database's lock while a waiter of the same
database waits for it, and then one fault at a time strikes:

- the waiter: pg_terminate_backend (FATAL), statement_timeout (ERROR),
  transaction_timeout (FATAL), SIGKILL (the server restarts its processes
  and its shared memory);
- the holder: pg_terminate_backend while it is stopped, or SIGKILL;

and after each, 8 new sessions in 3 databases draw values, each call within
a second, and
once every session of the test database is gone its place counts no
backend (ulid_shared_places()). On 17 without preloading (the table in the
DSM registry) and with ulid preloaded; the wait for the table's lock is
taken holding nothing, so the same faults there leave nothing either.
"""

from __future__ import annotations

import os
import signal
import time

import psycopg
import pytest

from harness.holders import Looper, Waiter, new_sessions_draw, stop_inside_lock, value
from harness.pgcluster import Cluster

pytestmark = pytest.mark.builds("17")

FAULTS = [
    "terminate the waiter",
    "statement_timeout of the waiter",
    "transaction_timeout of the waiter",
    "SIGKILL the waiter",
    "terminate the holder",
    "SIGKILL the holder",
]


@pytest.fixture(scope="module", params=["not preloaded", "preloaded"])
def server(request, build):
    settings = {"restart_after_crash": "on", "synchronous_commit": "off"}
    if request.param == "preloaded":
        settings["shared_preload_libraries"] = "ulid"
    slot = 47 if request.param == "preloaded" else 48
    c = Cluster(build, f"faults-{request.param.replace(' ', '-')}", slot=slot, settings=settings).start_empty()
    with c.connect() as conn:
        conn.execute("CREATE EXTENSION ulid")
    yield c
    c.destroy()


def attached(server, db: str) -> int | None:
    """How many backends ulid_shared_places() counts on DB's place (None:
    it has none)."""
    with server.connect() as conn:
        row = conn.execute("SELECT p.backends FROM ulid_shared_places() AS p "
                           "JOIN pg_database AS d ON d.oid = p.database WHERE d.datname = %s", [db]).fetchone()
    return None if row is None else row[0]


def settled(server, db: str, timeout: float = 10.0) -> None:
    """Waits until no backend of DB is left (a client's close ends its
    backend a moment later)."""
    deadline = time.monotonic() + timeout
    with server.connect() as conn:
        while conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [db]).fetchone()[0]:
            assert time.monotonic() < deadline, f"the backends of {db} did not exit"
            time.sleep(0.05)


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_at_a_wait_leaves_nothing_held(server, fault):
    """A holder stopped inside its database's lock, a probe and a struck
    session of the same database (both attached, by a value drawn before),
    and FAULT: then the table serves new sessions at once, and counts no
    backend on the database's place once its sessions are gone."""
    db = server.create_database("faulty")
    others = [server.create_database("other_a"), server.create_database("other_b")]
    crash = fault.startswith("SIGKILL")
    setup = {"statement_timeout of the waiter": ("SET statement_timeout = '300ms'",),
             "transaction_timeout of the waiter": ("SET transaction_timeout = '300ms'",)}.get(fault, ())
    holder = Looper(server, db)
    probe = Waiter(server, db)
    struck = Waiter(server, db, setup=setup)
    value(probe.conn)
    value(struck.conn)
    try:
        stop_inside_lock(holder, probe)
        assert attached(server, db) == 3
        if "waiter" in fault:
            struck.call()
            assert not struck.done.wait(0.1), f"{struck.outcome}: the struck session did not wait"
            target = struck.pid
        else:
            target = holder.pid
        if fault.startswith("terminate"):
            with server.connect() as conn:
                assert conn.execute("SELECT pg_terminate_backend(%s, 0)", [target]).fetchone() == (True,)
        elif crash:
            os.kill(target, signal.SIGKILL)
        if "waiter" in fault:
            assert struck.done.wait(10.0), f"{fault}: the struck session still waits"
            expected = {"terminate the waiter": psycopg.errors.AdminShutdown,  # FATAL
                        "statement_timeout of the waiter": psycopg.errors.QueryCanceled,  # ERROR
                        "transaction_timeout of the waiter": psycopg.errors.TransactionTimeout,  # FATAL
                        "SIGKILL the waiter": psycopg.OperationalError}[fault]  # the connection lost
            assert isinstance(struck.outcome, expected), struck.outcome
        # a terminated holder finishes its few instructions, then exits; a
        # killed one has made the server restart
        try:
            os.kill(holder.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        assert probe.done.wait(10.0), f"{fault}: the probe still waits"
        if crash:
            # ended with every backend, or served just before
            assert probe.outcome == "returned" or isinstance(probe.outcome, psycopg.OperationalError), \
                probe.outcome
        else:
            assert probe.outcome == "returned", probe.outcome
    finally:
        holder.end()
        probe.close()
        struck.close()
    if crash:
        server.wait_for_log("all server processes terminated; reinitializing")
        server.connect_when_up().close()
    problems = new_sessions_draw(server, [db, *others])
    assert not problems, "\n".join(problems)
    settled(server, db)
    # after a crash, the table was made anew and its place is the new sessions'
    assert attached(server, db) == 0, "a backend that exited still counts on its place"
    with server.connect() as conn:
        for name in (db, *others):
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
