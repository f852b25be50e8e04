"""Using ulid columns from Python with psycopg 3.

Without any setup, psycopg returns a ulid column as `str` in text mode and
as `bytes` (the 16 raw bytes) in binary mode, and a `str` parameter is
sent untyped, so the server reads it as a ulid where one is expected.
`register_ulid()` makes that explicit and adds a dumper, so `ulid.ULID`
objects (python-ulid) can be sent in text or binary form.
"""

import psycopg
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo
from ulid import ULID


class UlidTextLoader(Loader):
    def load(self, data) -> str:
        return bytes(data).decode()  # '01JGFJJZ00XHF7E02JJ03AE4T7'


class UlidBinaryLoader(Loader):
    format = Format.BINARY

    def load(self, data) -> bytes:
        return bytes(data)  # the 16 bytes, timestamp first


class UlidTextDumper(Dumper):
    def dump(self, obj: ULID) -> bytes:
        return str(obj).encode()


class UlidBinaryDumper(Dumper):
    format = Format.BINARY

    def dump(self, obj: ULID) -> bytes:
        return obj.bytes


def register_ulid(conn: psycopg.Connection) -> None:
    info = TypeInfo.fetch(conn, "ulid")
    if info is None:
        raise RuntimeError("the ulid extension is not installed in this database")
    info.register(conn)  # lets COPY's set_types() name "ulid"
    conn.adapters.register_loader(info.oid, UlidTextLoader)
    conn.adapters.register_loader(info.oid, UlidBinaryLoader)
    for dumper in (UlidTextDumper, UlidBinaryDumper):
        conn.adapters.register_dumper(ULID, type(dumper.__name__, (dumper,), {"oid": info.oid}))
