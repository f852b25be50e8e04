"""Sessions of gen_monotonic_ulid() for the tests of its shared table (test_databases.py, test_shared_faults.py)."""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import suppress

import psycopg


def value(conn) -> int:
    (made,) = conn.execute("SELECT gen_monotonic_ulid()::bytea").fetchone()
    return int.from_bytes(made, "big")


class Waiter:
    """A session that runs a statement in a thread of its own, so that the test can see it wait."""

    def __init__(self, server, db: str, setup: tuple[str, ...] = (), autocommit: bool = True):
        self.conn = server.connect(db, autocommit=autocommit)
        for statement in setup:
            self.conn.execute(statement)
        (self.pid,) = self.conn.execute("SELECT pg_backend_pid()").fetchone()
        self.done = threading.Event()
        self.outcome: object = None
        self.ended: float | None = None

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

    def close(self):
        with suppress(psycopg.Error):
            self.conn.close()


class Looper:
    """A session calling gen_monotonic_ulid() without end until cancelled."""

    def __init__(self, server, db: str):
        self.server = server
        self.conn = server.connect(db)
        (self.pid,) = self.conn.execute("SELECT pg_backend_pid()").fetchone()
        self.error: psycopg.Error | None = None
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        # in the select list generate_series makes rows one at a time (in FROM, all first)
        try:
            self.conn.execute("SELECT count(gen_monotonic_ulid()), count(gen_monotonic_ulid()), "
                              "count(gen_monotonic_ulid()) FROM (SELECT generate_series(1, 10000000000)) AS rows")
        except psycopg.Error as exc:
            self.error = exc

    def wait_running(self, seconds: float = 30.0) -> None:
        deadline = time.monotonic() + seconds
        with self.server.connect() as conn:
            while time.monotonic() < deadline:
                self.check_running()
                state = conn.execute("SELECT state FROM pg_stat_activity WHERE pid = %s", [self.pid]).fetchone()
                if state == ("active",):
                    return
                time.sleep(0.01)
        raise AssertionError(f"the holder's loop did not start within {seconds} s")

    def check_running(self) -> None:
        if not self.thread.is_alive():
            raise AssertionError(f"the holder's loop ended: {self.error!r}")

    def end(self):
        with suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGCONT)
        with suppress(psycopg.Error), self.server.connect() as conn:
            conn.execute("SELECT pg_cancel_backend(%s)", [self.pid])
        self.thread.join(30)
        with suppress(psycopg.Error):
            self.conn.close()


def stop_inside_lock(holder: Looper, waiter: Waiter, seconds: float = 120.0) -> None:
    """SIGSTOPs HOLDER at random points of its loop until it is stopped inside its database's lock: WAITER
    (same database, has drawn a value before, so it can wait on that lock only) then gets no value within 2 s
    and is left waiting. A try lands inside the lock a few times in a hundred, so tries go on for SECONDS."""
    holder.wait_running()
    deadline = time.monotonic() + seconds
    tries = 0
    while time.monotonic() < deadline:
        holder.check_running()
        tries += 1
        os.kill(holder.pid, signal.SIGSTOP)
        time.sleep(0.002)
        waiter.call()
        if not waiter.done.wait(2.0):
            return
        assert waiter.outcome == "returned", waiter.outcome
        os.kill(holder.pid, signal.SIGCONT)
    raise AssertionError(f"the holder was never stopped while holding the lock ({tries} tries in {seconds} s)")


def new_sessions_draw(server, databases: list[str], sessions: int = 8) -> list[str]:
    """SESSIONS new sessions over DATABASES each draw two values (statement_timeout 1 s, so a lock left held
    fails instead of hanging); returns the problems: a session that failed, or a value not above the last."""
    problems = []
    for k in range(sessions):
        db = databases[k % len(databases)]
        try:
            with server.connect(db, options="-c statement_timeout=1s") as conn:
                first, second = value(conn), value(conn)
                if second <= first:
                    problems.append(f"session {k} in {db}: {second:032x} not above {first:032x}")
        except psycopg.Error as exc:
            problems.append(f"session {k} in {db}: {type(exc).__name__}: {exc}".strip())
    return problems
