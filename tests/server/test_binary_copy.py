"""COPY ... (FORMAT binary) through a real client: ulid fields are the 16
raw bytes out, and only exactly 16 bytes are accepted back in."""

from __future__ import annotations

import struct

import psycopg
import pytest
from ulid import ULID

HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
TRAILER = struct.pack("!h", -1)


def copy_file(fields: list[bytes | None]) -> bytes:
    """A binary COPY file with one single-column row per field."""
    body = b""
    for field in fields:
        body += struct.pack("!h", 1)
        body += struct.pack("!i", -1) if field is None else struct.pack("!i", len(field)) + field
    return HEADER + body + TRAILER


def parse_copy_file(data: bytes) -> list[bytes | None]:
    assert data.startswith(HEADER)
    pos, fields = len(HEADER), []
    while True:
        (count,) = struct.unpack_from("!h", data, pos)
        pos += 2
        if count == -1:
            break
        assert count == 1
        (length,) = struct.unpack_from("!i", data, pos)
        pos += 4
        if length == -1:
            fields.append(None)
        else:
            fields.append(data[pos : pos + length])
            pos += length
    assert pos == len(data)
    return fields


def copy_out(conn, sql: str) -> bytes:
    with conn.cursor() as cur, cur.copy(sql) as copy:
        return b"".join(bytes(chunk) for chunk in copy)


def copy_in(conn, sql: str, data: bytes) -> None:
    with conn.cursor() as cur, cur.copy(sql) as copy:
        copy.write(data)


VALUES = [
    "00000000000000000000000000",
    "01JGFJJZ00XHF7E02JJ03AE4T7",
    "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
] + [str(ULID()) for _ in range(200)]


def test_binary_copy_round_trips(conn):
    conn.execute("CREATE TABLE src (n int, id ulid)")
    conn.execute("CREATE TABLE dst (n int, id ulid)")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO src VALUES (%s, %s::text::ulid)", list(enumerate(VALUES)))
    conn.execute("INSERT INTO src VALUES (-1, NULL)")

    data = copy_out(conn, "COPY src TO STDOUT (FORMAT binary)")
    copy_in(conn, "COPY dst FROM STDIN (FORMAT binary)", data)

    def rows(table):
        return conn.execute(f"SELECT n, id::text FROM {table} ORDER BY n").fetchall()

    assert rows("dst") == rows("src")
    assert len(rows("dst")) == len(VALUES) + 1


def test_binary_copy_fields_are_the_spec_bytes(conn):
    conn.execute("CREATE TABLE t (id ulid)")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO t VALUES (%s::text::ulid)", [(v,) for v in VALUES])
    fields = parse_copy_file(copy_out(conn, "COPY t TO STDOUT (FORMAT binary)"))
    # python-ulid, an independent implementation, agrees on every byte
    assert fields == [ULID.from_str(v).bytes for v in VALUES]


@pytest.mark.parametrize("length", [0, 1, 15, 17, 32])
def test_binary_copy_rejects_other_lengths(conn, length):
    conn.execute("CREATE TABLE t (id ulid)")
    good = ULID.from_str("01JGFJJZ00XHF7E02JJ03AE4T7").bytes
    data = copy_file([good, bytes(range(length)), good])
    with pytest.raises(psycopg.errors.InvalidBinaryRepresentation) as err:
        copy_in(conn, "COPY t FROM STDIN (FORMAT binary)", data)
    assert err.value.sqlstate == "22P03"
    assert f"invalid binary ulid: expected 16 bytes, received {length}" in str(err.value)
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0, "no row is loaded"


def test_binary_copy_accepts_sixteen_bytes_and_null(conn):
    conn.execute("CREATE TABLE t (id ulid)")
    raw = [ULID.from_str(v).bytes for v in VALUES[:3]]
    copy_in(conn, "COPY t FROM STDIN (FORMAT binary)", copy_file(raw + [None]))
    got = conn.execute("SELECT id::text FROM t").fetchall()
    assert got == [(v,) for v in VALUES[:3]] + [(None,)]
