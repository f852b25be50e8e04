"""psycopg 3 against the server: text and binary mode with no setup at
all, and the adapter users copy, examples/psycopg_ulid.py, for parameters
and binary COPY. Values must come back exactly as they went in; bad ones
are errors, never a lost backend."""

from __future__ import annotations


import psycopg
import pytest
from ulid import ULID

# the adapter as users copy it beside their code, examples/ (the
# virtualenv has it installed: pyproject.toml)
from psycopg_ulid import register_ulid

VALUES = ["00000000000000000000000000", "01JGFJJZ00XHF7E02JJ03AE4T7", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"] + [
    str(ULID()) for _ in range(500)
]


def test_text_mode_without_any_setup(conn):
    conn.execute("CREATE TABLE t (n int, id ulid)")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO t VALUES (%s, %s)", list(enumerate(VALUES)))
        rows = cur.execute("SELECT id FROM t ORDER BY n").fetchall()
        assert [r[0] for r in rows] == VALUES
        assert all(isinstance(r[0], str) for r in rows)
        # lower case in, canonical out; a parameter compares as a ulid
        (found,) = cur.execute("SELECT n FROM t WHERE id = %s", [VALUES[1].lower()]).fetchone()
        assert found == 1


def test_binary_mode_without_any_setup_returns_the_16_bytes(conn):
    conn.execute("CREATE TABLE t (n int, id ulid)")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO t VALUES (%s, %s)", list(enumerate(VALUES)))
    with conn.cursor(binary=True) as cur:
        rows = cur.execute("SELECT id FROM t ORDER BY n").fetchall()
    assert [r[0] for r in rows] == [ULID.from_str(v).bytes for v in VALUES]


def test_adapter_round_trips_text_and_binary(conn):
    register_ulid(conn)
    conn.execute("CREATE TABLE t (n int, id ulid)")
    ulids = [ULID.from_str(v) for v in VALUES]
    with conn.cursor() as cur:
        # ULID objects as text (%t) and as binary (%b) parameters
        cur.executemany("INSERT INTO t VALUES (%s, %t)", [(i, u) for i, u in enumerate(ulids[:250])])
        cur.executemany("INSERT INTO t VALUES (%s, %b)", [(i + 250, u) for i, u in enumerate(ulids[250:])])
        assert [r[0] for r in cur.execute("SELECT id FROM t ORDER BY n").fetchall()] == VALUES
    with conn.cursor(binary=True) as cur:
        assert [r[0] for r in cur.execute("SELECT id FROM t ORDER BY n").fetchall()] == [u.bytes for u in ulids]
        # a prepared statement with a binary ulid parameter
        for i in (0, 1, 2, 250, 502):
            row = cur.execute("SELECT n FROM t WHERE id = %b", [ulids[i]], prepare=True).fetchone()
            assert row == (i,)


def test_binary_copy_through_the_client(conn):
    register_ulid(conn)
    conn.execute("CREATE TABLE src (n int, id ulid)")
    conn.execute("CREATE TABLE dst (n int, id ulid)")
    ulids = [ULID.from_str(v) for v in VALUES]
    with conn.cursor() as cur:
        with cur.copy("COPY src (n, id) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["int4", "ulid"])
            for i, u in enumerate(ulids):
                copy.write_row((i, u))
        rows = []
        with cur.copy("COPY src (n, id) TO STDOUT (FORMAT BINARY)") as copy:
            copy.set_types(["int4", "ulid"])
            rows = list(copy.rows())
    assert sorted(rows) == sorted((i, u.bytes) for i, u in enumerate(ulids))
    with conn.cursor() as cur:
        with cur.copy("COPY dst (n, id) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["int4", "ulid"])
            for n, raw in rows:
                copy.write_row((n, ULID.from_bytes(raw)))
        assert cur.execute("SELECT n, id::text FROM dst ORDER BY n").fetchall() == list(enumerate(VALUES))


def test_bad_parameters_are_reported_not_crashed(conn):
    pid = conn.info.backend_pid
    conn.execute("CREATE TABLE t (id ulid)")
    with pytest.raises(psycopg.errors.InvalidTextRepresentation):
        conn.execute("INSERT INTO t VALUES (%s)", ["8" + "0" * 25])
    with pytest.raises(psycopg.errors.InvalidBinaryRepresentation):
        # 15 raw bytes sent as a binary ulid parameter
        oid = conn.execute("SELECT 'ulid'::regtype::oid").fetchone()[0]

        class Short(psycopg.adapt.Dumper):
            format = psycopg.pq.Format.BINARY

            def dump(self, obj):
                return bytes(15)

        Short.oid = oid
        conn.adapters.register_dumper(bytearray, Short)
        conn.execute("INSERT INTO t VALUES (%b)", [bytearray(15)])
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0
    assert conn.info.backend_pid == pid
