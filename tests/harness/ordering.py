"""The order of gen_monotonic_ulid()'s values across sessions, observed from the client."""

from __future__ import annotations

from contextlib import ExitStack


def client_serialized(cluster, dbnames: list[str], per_thread: int, threads_per_db: int = 2) -> list[tuple[int, bytes]]:
    """THREADS_PER_DB sessions a database of DBNAMES call gen_monotonic_ulid() PER_THREAD times each, in turns
    (0, 1, ... then 0: call order is generation order), reconnecting every 200 calls. Returns (session, id) in order."""
    made: list[tuple[int, bytes]] = []
    for start in range(0, per_thread, 200):
        with ExitStack() as stack:
            sessions = [stack.enter_context(cluster.connect(dbnames[k % len(dbnames)]))
                        for k in range(threads_per_db * len(dbnames))]
            for _ in range(min(200, per_thread - start)):
                for k, conn in enumerate(sessions):
                    (value,) = conn.execute("SELECT gen_monotonic_ulid()::bytea").fetchone()
                    made.append((k, bytes(value)))
    return made


def order_of(made: list[tuple[int, bytes]]) -> tuple[int, int]:
    """(values not above the one before, consecutive values of two sessions in one millisecond)."""
    backwards = sum(1 for (_, a), (_, b) in zip(made, made[1:]) if b <= a)
    crossing = sum(1 for (d, a), (e, b) in zip(made, made[1:]) if d != e and a[:6] == b[:6])
    return backwards, crossing
