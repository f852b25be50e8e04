"""The order of gen_monotonic_ulid()'s values across sessions, observed from the client."""

from __future__ import annotations

import threading


def client_serialized(cluster, dbnames: list[str], per_thread: int, threads_per_db: int = 2) -> list[tuple[int, bytes]]:
    """Threads spread over DBNAMES call gen_monotonic_ulid() in strict turns (0, 1, ... then 0), reconnecting
    every 200 calls: each call returns before the next starts, so call order is generation order and
    consecutive calls come from two sessions. Returns (thread, id) in order."""
    n = threads_per_db * len(dbnames)
    turn = threading.Condition()
    state = {"next": 0}
    made: list[tuple[int, bytes]] = []
    errors = []

    def worker(k):
        try:
            for start in range(0, per_thread, 200):
                with cluster.connect(dbnames[k % len(dbnames)]) as conn:
                    for _ in range(min(200, per_thread - start)):
                        with turn:
                            turn.wait_for(lambda: state["next"] == k or errors)
                            if errors:
                                return
                            (value,) = conn.execute("SELECT gen_monotonic_ulid()::bytea").fetchone()
                            made.append((k, bytes(value)))
                            state["next"] = (k + 1) % n
                            turn.notify_all()
        except Exception as exc:  # report in the main thread
            with turn:
                errors.append(exc)
                turn.notify_all()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return made


def order_of(made: list[tuple[int, bytes]]) -> tuple[int, int]:
    """(values not above the one before, consecutive values of two sessions in one millisecond)."""
    backwards = sum(1 for (_, a), (_, b) in zip(made, made[1:]) if b <= a)
    crossing = sum(1 for (d, a), (e, b) in zip(made, made[1:]) if d != e and a[:6] == b[:6])
    return backwards, crossing
