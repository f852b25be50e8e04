"""Turning uuid columns into ulid ones, in place, and back."""

from __future__ import annotations

import pytest
from ulid import ULID

# the moves are casts and ALTER TABLE ... TYPE, the same on every version (tests/conftest.py)
pytestmark = pytest.mark.same_on_every_version


def relfilenode(conn, table):
    return conn.execute("SELECT pg_relation_filenode(%s::regclass)", [table]).fetchone()[0]


def index_opclasses(conn, table):
    return conn.execute(
        """
        SELECT i.relname, opc.opcname, am.amname
        FROM pg_index x
        JOIN pg_class i ON i.oid = x.indexrelid
        JOIN pg_opclass opc ON opc.oid = x.indclass[0]
        JOIN pg_am am ON am.oid = opc.opcmethod
        WHERE x.indrelid = %s::regclass ORDER BY i.relname
        """,
        [table],
    ).fetchall()


def test_alter_column_uuid_to_ulid_without_rewrite(conn):
    conn.execute(
        """
        CREATE TABLE accounts (id uuid PRIMARY KEY, name text);
        CREATE INDEX accounts_id_hash ON accounts USING hash (id);
        CREATE TABLE payments (id uuid PRIMARY KEY, account uuid REFERENCES accounts (id));
        """
    )
    conn.execute(
        "INSERT INTO accounts SELECT gen_random_uuid(), 'account ' || g FROM generate_series(1, 5000) g"
    )
    conn.execute("INSERT INTO payments SELECT gen_random_uuid(), id FROM accounts")
    before = conn.execute("SELECT id::text, name FROM accounts ORDER BY name").fetchall()
    heap = relfilenode(conn, "accounts")

    # No USING clause: the uuid -> ulid cast is binary-coercible and AS
    # ASSIGNMENT. A foreign key between the two columns is dropped while both
    # change type, one statement each, and added back after
    # (docs/conversions.md keeps it, the referenced column changing first:
    # its example runs in the docs tests).
    with conn.transaction():
        conn.execute("ALTER TABLE payments DROP CONSTRAINT payments_account_fkey")
        conn.execute("ALTER TABLE accounts ALTER COLUMN id TYPE ulid")
        conn.execute("ALTER TABLE payments ALTER COLUMN account TYPE ulid, ALTER COLUMN id TYPE ulid")
        conn.execute("ALTER TABLE payments ADD FOREIGN KEY (account) REFERENCES accounts (id)")

    assert relfilenode(conn, "accounts") == heap, "the table was not rewritten"
    assert conn.execute(
        "SELECT atttypid::regtype::text FROM pg_attribute WHERE attrelid = 'accounts'::regclass AND attname = 'id'"
    ).fetchone()[0] == "ulid"
    # the same bytes, now read as ULIDs
    after = conn.execute("SELECT id::uuid::text, name FROM accounts ORDER BY name").fetchall()
    assert after == before
    for uuid_text, _ in before[:50]:
        as_ulid = conn.execute("SELECT %s::uuid::ulid::text", [uuid_text]).fetchone()[0]
        assert as_ulid == str(ULID.from_hex(uuid_text.replace("-", "")))
    # indexes were rebuilt with the ulid operator classes and still work
    assert index_opclasses(conn, "accounts") == [
        ("accounts_id_hash", "ulid_ops", "hash"),
        ("accounts_pkey", "ulid_ops", "btree"),
    ]
    conn.execute("SET enable_seqscan = off")
    some = conn.execute("SELECT id FROM accounts LIMIT 1 OFFSET 1234").fetchone()[0]
    plan = conn.execute(
        "EXPLAIN (COSTS OFF) SELECT name FROM accounts WHERE id = %s::text::ulid", [str(some)]
    ).fetchall()
    assert "Index" in plan[0][0]
    # the foreign key still holds, on ulid columns now
    assert conn.execute(
        "SELECT count(*) FROM payments p JOIN accounts a ON a.id = p.account"
    ).fetchone()[0] == 5000
    with pytest.raises(Exception, match="foreign key"):
        conn.execute("INSERT INTO payments VALUES (gen_ulid(), gen_ulid())")

    # and back to uuid, again without a rewrite
    with conn.transaction():
        conn.execute("ALTER TABLE payments DROP CONSTRAINT payments_account_fkey")
        conn.execute("ALTER TABLE accounts ALTER COLUMN id TYPE uuid")
        conn.execute("ALTER TABLE payments ALTER COLUMN account TYPE uuid, ALTER COLUMN id TYPE uuid")
        conn.execute("ALTER TABLE payments ADD FOREIGN KEY (account) REFERENCES accounts (id)")
    assert relfilenode(conn, "accounts") == heap
    assert conn.execute("SELECT id::text, name FROM accounts ORDER BY name").fetchall() == before
    assert index_opclasses(conn, "accounts") == [
        ("accounts_id_hash", "uuid_ops", "hash"),
        ("accounts_pkey", "uuid_ops", "btree"),
    ]


def test_a_column_type_change_that_needs_a_function_does_rewrite(conn):
    """The control for the test above: relfilenode does change on a real rewrite."""
    conn.execute("CREATE TABLE t (id text)")
    conn.execute("INSERT INTO t SELECT gen_ulid()::text FROM generate_series(1, 100)")
    heap = relfilenode(conn, "t")
    conn.execute("ALTER TABLE t ALTER COLUMN id TYPE ulid USING id::ulid")
    assert relfilenode(conn, "t") != heap


def test_uuidv7_reads_back_its_creation_time(cluster, conn):
    # RFC 9562's own UUIDv7 example (appendix A.6): made 2022-02-22 19:22:22 UTC
    (example,) = conn.execute(
        "SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid::ulid::timestamptz"
        " = '2022-02-22 19:22:22+00'::timestamptz"
    ).fetchone()
    assert example is True
    if cluster.version < 18:
        return  # uuidv7() is built in from PostgreSQL 18
    row = conn.execute(
        """
        SELECT uuid_extract_timestamp(u) = u::ulid::timestamptz,
               u::ulid::timestamptz BETWEEN date_trunc('milliseconds', now()) - interval '1 minute'
                                        AND clock_timestamp()
        FROM (SELECT uuidv7() AS u) s
        """
    ).fetchone()
    assert row == (True, True)
    # uuidv7 values sort the same as uuid and as ulid
    (same_order,) = conn.execute(
        """
        WITH v AS (SELECT uuidv7() AS u FROM generate_series(1, 10000))
        SELECT bool_and(a.r = b.r)
        FROM (SELECT u, row_number() OVER (ORDER BY u) AS r FROM v) a
        JOIN (SELECT u, row_number() OVER (ORDER BY u::ulid) AS r FROM v) b USING (u)
        """
    ).fetchone()
    assert same_order is True
