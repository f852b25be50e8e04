"""Checks for the tests that replace ulid's files under a running server that preloads it."""

from __future__ import annotations

import re
from typing import Callable

import psycopg


def call_every_generator(connect: Callable[[], psycopg.Connection], sessions: int = 3) -> None:
    """Runs both generators, ulid_timestamp and the public-id functions in SESSIONS new sessions (each a new
    backend, which maps the library anew unless the postmaster preloaded it)."""
    for _ in range(sessions):
        with connect() as conn:
            row = conn.execute(
                "SELECT gen_ulid() IS NOT NULL, ulid_timestamp(gen_ulid('2025-01-01 00:00:00+00'))::text,"
                " gen_monotonic_ulid() < gen_monotonic_ulid(),"
                " ulid_decrypt(ulid_encrypt(u, k), k) = u"
                " FROM (SELECT gen_ulid() AS u, '\\x000102030405060708090a0b0c0d0e0f'::bytea AS k) AS given"
            ).fetchone()
            assert row == (True, "2025-01-01 00:00:00+00", True, True)


def crashes_in(log: str) -> list[str]:
    return [line for line in log.splitlines() if re.search(r"terminated by signal|PANIC|could not load library", line)]
