"""pg_dump and pg_restore: a database with ulid columns, defaults, every
index kind and partitions comes back identical, in custom and plain format."""

from __future__ import annotations

import pytest

SCHEMA = """
CREATE TABLE accounts (
    id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(),
    legacy uuid,
    created_at timestamptz GENERATED ALWAYS AS (ulid_timestamp(id)) STORED,
    name text
);
CREATE INDEX accounts_hash ON accounts USING hash (id);
CREATE INDEX accounts_brin ON accounts USING brin (id);
CREATE TABLE payments (
    id ulid PRIMARY KEY DEFAULT gen_ulid(),
    account ulid NOT NULL REFERENCES accounts (id),
    ids ulid[]
);
CREATE TABLE events (id ulid NOT NULL, body text) PARTITION BY RANGE (id);
CREATE TABLE events_2025_01 PARTITION OF events
    FOR VALUES FROM ('2025-01-01'::timestamptz::ulid) TO ('2025-02-01'::timestamptz::ulid);
CREATE TABLE events_2025_02 PARTITION OF events
    FOR VALUES FROM ('2025-02-01'::timestamptz::ulid) TO ('2025-03-01'::timestamptz::ulid);
CREATE TABLE shards (id ulid NOT NULL, n int) PARTITION BY HASH (id);
CREATE TABLE shards_0 PARTITION OF shards FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE shards_1 PARTITION OF shards FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE VIEW recent AS SELECT id, name FROM accounts WHERE id >= '2025-01-01'::timestamptz::ulid;
"""

# BRIN minmax-multi and bloom exist from PostgreSQL 14.
SCHEMA_14 = """
CREATE INDEX accounts_bloom ON accounts USING brin (id ulid_bloom_ops);
CREATE INDEX accounts_multi ON accounts USING brin (id ulid_minmax_multi_ops);
"""

DATA = """
INSERT INTO accounts (name, legacy) SELECT 'account ' || g, gen_random_uuid() FROM generate_series(1, 3000) g;
INSERT INTO accounts (id, name) VALUES ('00000000000000000000000000', 'smallest'), ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', 'largest');
INSERT INTO payments (account, ids) SELECT id, ARRAY[id, gen_ulid()] FROM accounts;
INSERT INTO events SELECT gen_ulid(timestamptz '2025-01-01' + g * interval '1 hour'), 'e' || g FROM generate_series(0, 1000) g;
INSERT INTO shards SELECT gen_ulid(), g FROM generate_series(1, 2000) g;
"""

CHECKS = {
    "accounts": "SELECT id::text, legacy, created_at::text, name FROM accounts ORDER BY id",
    "payments": "SELECT id::text, account::text, ids::text FROM payments ORDER BY id",
    "events": "SELECT tableoid::regclass::text, id::text, body FROM events ORDER BY id",
    "shards": "SELECT tableoid::regclass::text, id::text, n FROM shards ORDER BY id",
    "view": "SELECT count(*) FROM recent",
    "indexes": "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index "
               "WHERE indrelid::regclass::text IN ('accounts', 'payments') ORDER BY 1",
}


def snapshot(cluster, db):
    with cluster.connect(db) as conn:
        return {name: conn.execute(sql).fetchall() for name, sql in CHECKS.items()}


@pytest.fixture
def source(cluster):
    db = cluster.create_database("dump_source")
    with cluster.connect(db) as conn:
        conn.execute(SCHEMA)
        if cluster.version >= 14:
            conn.execute(SCHEMA_14)
        conn.execute(DATA)
    return db


@pytest.mark.parametrize("fmt", ["custom", "plain"])
def test_dump_and_restore(cluster, source, tmp_path, fmt):
    tmp_path.chmod(0o755)
    target = cluster.create_database(f"restored_{fmt}", extension=False)
    dump = tmp_path / f"dump.{fmt}"
    cluster.run("pg_dump", "--format", fmt, "--file", str(dump), source)
    if fmt == "custom":
        listing = cluster.run("pg_restore", "--list", str(dump)).stdout
        assert "EXTENSION - ulid" in listing
        cluster.run("pg_restore", "--exit-on-error", "--dbname", target, str(dump))
    else:
        text = dump.read_text()
        assert "CREATE EXTENSION IF NOT EXISTS ulid" in text
        cluster.run("psql", "-X", "-v", "ON_ERROR_STOP=1", "-q", "-d", target, "-f", str(dump))

    assert snapshot(cluster, target) == snapshot(cluster, source)
    with cluster.connect(target) as conn:
        # defaults and constraints work in the restored database
        (new_id,) = conn.execute("INSERT INTO accounts (name) VALUES ('after restore') RETURNING id::text").fetchone()
        assert conn.execute("SELECT max(id)::text FROM accounts WHERE name <> 'largest'").fetchone()[0] == new_id
        conn.execute("INSERT INTO payments (account) SELECT id FROM accounts WHERE name = 'after restore'")
        with pytest.raises(Exception, match="foreign key"):
            conn.execute("INSERT INTO payments (account) VALUES (gen_ulid())")
        # the indexes are usable
        conn.execute("SET enable_seqscan = off")
        plan = conn.execute("EXPLAIN SELECT name FROM accounts WHERE id = %s::ulid", [new_id]).fetchall()
        assert "accounts_" in plan[0][0]
        if cluster.has_extension("amcheck"):
            conn.execute("CREATE EXTENSION amcheck")
            conn.execute("SELECT bt_index_check('accounts_pkey', true), bt_index_check('payments_pkey', true)")
