"""`ulid.layout = uuidv7`: every generator's values are also valid RFC 9562
UUIDv7s, checked by oracles nobody here wrote (Python's uuid module, and
core's uuid_extract_version from PostgreSQL 17 and uuid_extract_timestamp,
which reads a UUIDv7's time from PostgreSQL 18);
with the setting off the same bits are uniform; and sessions with
different settings that share the preloaded state never go backwards."""

from __future__ import annotations

import threading
import uuid
from collections import Counter

import pytest

N = 100_000
GENERATORS = {
    "gen_ulid()": "gen_ulid()",
    "gen_ulid(timestamptz)": "gen_ulid(now() - g * interval '1 second')",
    "gen_monotonic_ulid()": "gen_monotonic_ulid()",
}


def values(conn, generator: str) -> list[str]:
    return [v for v, in conn.execute(
        f"SELECT ({GENERATORS[generator]})::uuid::text FROM generate_series(1, {N}) g")]


@pytest.mark.parametrize("generator", GENERATORS)
def test_every_value_is_a_uuidv7_under_the_setting(conn, major, generator):
    conn.execute("SET ulid.layout = uuidv7")
    made = values(conn, generator)
    parsed = [uuid.UUID(v) for v in made]
    assert all(u.variant == uuid.RFC_4122 and u.version == 7 for u in parsed)
    assert len(set(made)) == N
    if major >= 17:
        conn.execute("CREATE TEMP TABLE made (id uuid)")
        with conn.cursor().copy("COPY made FROM STDIN") as copy:
            for v in made:
                copy.write_row((v,))
        assert conn.execute(
            "SELECT count(*) FILTER (WHERE uuid_extract_version(id) = 7) FROM made").fetchone() == (N,)
    if major >= 18:
        assert conn.execute("""
            SELECT count(*) FILTER (WHERE uuid_extract_timestamp(id) = ulid_timestamp(id::ulid))
            FROM made""").fetchone() == (N,)
    elif major == 17:
        # 17's reads the time of version 1 only (docs/generators.md)
        assert conn.execute(
            "SELECT count(*) FILTER (WHERE uuid_extract_timestamp(id) IS NULL) FROM made").fetchone() == (N,)
    if generator == "gen_monotonic_ulid()":
        assert made == sorted(made)  # the uuid text sorts as the bytes do
    else:
        # the 74 free bits are uniform: each set in half the values
        # (a standard deviation of 0.16 %; 2 % is twelve of them)
        for bit in [b for b in range(80) if b not in (76, 77, 78, 79, 62, 63)]:
            share = sum(u.int >> bit & 1 for u in parsed) / N
            assert 0.48 < share < 0.52, (bit, share)


@pytest.mark.parametrize("generator", ["gen_ulid()", "gen_ulid(timestamptz)"])
def test_without_the_setting_the_version_and_variant_bits_are_random(conn, generator):
    """(gen_monotonic_ulid() draws a millisecond's first value the same way,
    and steps from it.)"""
    conn.execute("SELECT gen_ulid()")  # the setting is known once the library is loaded
    assert conn.execute("SHOW ulid.layout").fetchone() == ("ulid",)
    parsed = [uuid.UUID(v) for v in values(conn, generator)]
    nibbles = Counter(u.int >> 76 & 0xF for u in parsed)
    variants = Counter(u.int >> 62 & 0x3 for u in parsed)
    assert len(nibbles) == 16 and len(variants) == 4
    n = len(parsed)
    # chi-square against uniform: 15 and 3 degrees of freedom; these bounds
    # are passed by chance about once in 10^9 (a nibble or variant that
    # never varied would be far above them)
    chi16 = sum((c - n / 16) ** 2 / (n / 16) for c in nibbles.values())
    chi4 = sum((c - n / 4) ** 2 / (n / 4) for c in variants.values())
    assert chi16 < 75 and chi4 < 45, (nibbles, variants)


def test_range_bounds_are_the_same_in_both_layouts(conn):
    bound = "SELECT '2025-01-01 00:00:00+00'::timestamptz::ulid::text"
    assert conn.execute(bound).fetchone() == ("01JGFJJZ000000000000000000",)
    conn.execute("SET ulid.layout = uuidv7")
    assert conn.execute(bound).fetchone() == ("01JGFJJZ000000000000000000",)
    # and v7 values of a millisecond sort between its bound and the next
    assert conn.execute("""
        SELECT bool_and(id >= '2025-01-01 00:00:00+00'::timestamptz::ulid
                        AND id < '2025-01-01 00:00:00.001+00'::timestamptz::ulid)
        FROM (SELECT gen_ulid('2025-01-01 00:00:00.0004+00') AS id FROM generate_series(1, 1000)) g""").fetchone() == (True,)


def test_the_setting_per_database_and_role(cluster, db):
    with cluster.connect() as admin:
        admin.execute(f'ALTER DATABASE "{db}" SET ulid.layout = uuidv7')
    with cluster.connect(db) as conn:
        assert conn.execute("SHOW ulid.layout").fetchone() == ("uuidv7",)
        assert uuid.UUID(conn.execute("SELECT gen_monotonic_ulid()::uuid::text").fetchone()[0]).version == 7
        conn.execute("SET ulid.layout = ulid")
        assert conn.execute("SHOW ulid.layout").fetchone() == ("ulid",)
        with pytest.raises(Exception, match='invalid value for parameter "ulid.layout": "uuidv4"'):
            conn.execute("SET ulid.layout = uuidv4")


def test_mixed_layouts_in_lockstep_on_the_preloaded_server_never_go_backwards(preloaded):
    """Two sessions, one in each layout, take turns: every value is above
    the one before, whichever session made it."""
    name = preloaded.create_database("layouts_lockstep")
    try:
        with preloaded.connect(name) as v7, preloaded.connect(name) as plain:
            v7.execute("SET ulid.layout = uuidv7")
            v7.execute("SET ulid.monotonic_step = one")  # and the other step, too
            previous = ""
            for i in range(20_000):
                session = v7 if i % 2 else plain
                (value,) = session.execute("SELECT gen_monotonic_ulid()::uuid::text").fetchone()
                assert value > previous, (i, previous, value)
                if session is v7:
                    assert uuid.UUID(value).version == 7
                previous = value
    finally:
        with preloaded.connect() as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def test_mixed_layouts_from_many_sessions_at_once(preloaded):
    """Eight sessions, half in each layout, generating as fast as they can
    from the shared state: each session's values increase, no value is made
    twice, and each has its session's layout."""
    name = preloaded.create_database("layouts_many")
    results: dict[int, list[str]] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            with preloaded.connect(name) as conn:
                if k % 2:
                    conn.execute("SET ulid.layout = uuidv7")
                made = []
                for _ in range(50):
                    made += [v for v, in conn.execute(
                        "SELECT gen_monotonic_ulid()::uuid::text FROM generate_series(1, 200)")]
                results[k] = made
        except BaseException as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        for k, made in results.items():
            assert made == sorted(made) and len(set(made)) == len(made), k
            if k % 2:
                assert all(uuid.UUID(v).version == 7 for v in made), k
        everything = [v for made in results.values() for v in made]
        assert len(set(everything)) == len(everything) == 8 * 50 * 200
    finally:
        with preloaded.connect() as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
