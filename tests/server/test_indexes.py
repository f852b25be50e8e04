"""Indexes on ulid checked by the server itself: amcheck verifies btree
structure against the heap, and every index kind returns exactly what a
sequential scan returns.

The checks on a million rows run on the oldest, the newest and the assert
build (same_on_every_version): the operator classes' code is the same on
every version, and what differs between versions (BRIN bloom from 14,
btree skip support from 18) is on the newest and the assert build."""

from __future__ import annotations

import psycopg
import pytest

ROWS = 1_000_000


@pytest.fixture(scope="module")
def big(cluster):
    """1M random and 1M monotonic ids, with btree, hash and BRIN indexes."""
    db = cluster.create_database("big_indexes")
    with cluster.connect(db) as conn:
        conn.execute(
            f"""
            CREATE TABLE ids (n int, random_id ulid, mono_id ulid);
            INSERT INTO ids SELECT n, gen_ulid(), gen_monotonic_ulid() FROM generate_series(1, {ROWS}) n;
            CREATE INDEX ids_random_btree ON ids (random_id);
            CREATE INDEX ids_mono_btree ON ids (mono_id);
            CREATE INDEX ids_random_hash ON ids USING hash (random_id);
            CREATE INDEX ids_mono_brin ON ids USING brin (mono_id) WITH (pages_per_range = 16);
            """
        )
        if cluster.version >= 14:  # BRIN bloom exists from PostgreSQL 14
            conn.execute("CREATE INDEX ids_random_bloom ON ids USING brin (random_id ulid_bloom_ops)")
        conn.execute("VACUUM ANALYZE ids")
    return db


@pytest.mark.same_on_every_version
@pytest.mark.extensions("amcheck")
def test_amcheck_verifies_btrees_with_heapallindexed(cluster, big):
    with cluster.connect(big) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
        for index in ("ids_random_btree", "ids_mono_btree"):
            conn.execute(
                "SELECT bt_index_parent_check(%s::regclass, heapallindexed => true, rootdescend => true)",
                [index],
            )


BTREE_CMP = """
    UPDATE pg_amproc SET amproc = %s::regproc
    WHERE amprocnum = 1 AND amproclefttype = 'ulid'::regtype AND amprocrighttype = 'ulid'::regtype
      AND amprocfamily = (
        SELECT opcfamily FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
        WHERE c.opcname = 'ulid_ops' AND a.amname = 'btree')
"""


@pytest.mark.extensions("amcheck")
def test_amcheck_would_catch_a_misordered_index(cluster):
    """The check above can fail: with the btree comparison swapped for one
    that disagrees with the stored order, amcheck reports the index."""
    db = cluster.create_database("amcheck_control")
    with cluster.connect(db) as conn:
        conn.execute("CREATE EXTENSION amcheck")
        conn.execute("CREATE TABLE t AS SELECT gen_ulid() AS id FROM generate_series(1, 20000)")
        conn.execute("CREATE INDEX t_idx ON t (id)")
        conn.execute("SELECT bt_index_check('t_idx'::regclass, true)")
        # a descending comparison: every pair is now out of order
        # (schema-qualified: amcheck runs with a safe search_path)
        conn.execute("CREATE FUNCTION desc_cmp(public.ulid, public.ulid) RETURNS int LANGUAGE sql "
                     "IMMUTABLE AS 'SELECT public.ulid_cmp($2, $1)'")
        conn.execute(BTREE_CMP, ["desc_cmp"])
    with cluster.connect(db) as conn:
        with pytest.raises(Exception, match="(?i)order|invariant"):
            conn.execute("SELECT bt_index_check('t_idx'::regclass, true)")


@pytest.mark.same_on_every_version
@pytest.mark.extensions("pageinspect")
def test_btree_deduplication_is_enabled(cluster, big):
    with cluster.connect(big) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pageinspect")
        (equalimage,) = conn.execute("SELECT allequalimage FROM bt_metap('ids_mono_btree')").fetchone()
    assert equalimage is True


@pytest.mark.same_on_every_version
def test_index_order_is_sort_order_and_text_order(cluster, big):
    with cluster.connect(big) as conn:
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_bitmapscan = off")
        for column in ("random_id", "mono_id"):
            plan = "\n".join(r[0] for r in conn.execute(
                f"EXPLAIN (COSTS OFF) SELECT {column} FROM ids ORDER BY {column}").fetchall())
            assert "Index Only Scan" in plan, plan
            (mismatches,) = conn.execute(
                f"""
                SELECT count(*) FROM (
                    SELECT {column}::text AS t, row_number() OVER () AS r
                    FROM (SELECT {column} FROM ids ORDER BY {column}) i) a
                JOIN (SELECT {column}::text AS t, row_number() OVER (ORDER BY {column}::text COLLATE "C") AS r
                      FROM ids) b USING (r)
                WHERE a.t <> b.t
                """
            ).fetchone()
            assert mismatches == 0, column


def lookups(conn, predicate_sql, params=()):
    rows = conn.execute(f"SELECT n FROM ids WHERE {predicate_sql}", params).fetchall()
    return sorted(r[0] for r in rows)


INDEXES = ("ids_random_btree", "ids_mono_btree", "ids_random_hash", "ids_mono_brin", "ids_random_bloom")


@pytest.mark.same_on_every_version
def test_every_index_kind_agrees_with_a_sequential_scan(cluster, big):
    indexes = INDEXES if cluster.version >= 14 else INDEXES[:-1]
    with cluster.connect(big) as conn:
        probes = conn.execute(
            "SELECT random_id::text, mono_id::text FROM ids WHERE n % 50000 = 7"
        ).fetchall()
        lo, hi = conn.execute(
            "SELECT mono_id::text, (SELECT mono_id::text FROM ids WHERE n = 612345) FROM ids WHERE n = 123456"
        ).fetchone()
        cases = [("random_id = %s::ulid", (p[0],)) for p in probes]
        cases += [("mono_id = %s::ulid", (p[1],)) for p in probes]
        cases += [("mono_id >= %s::ulid AND mono_id < %s::ulid", (lo, hi))]
        cases += [("random_id < %s::ulid", (probes[3][0],))]

        with conn.transaction():
            for setting in ("enable_indexscan", "enable_bitmapscan", "enable_indexonlyscan"):
                conn.execute(f"SET LOCAL {setting} = off")
            expected = [lookups(conn, sql, params) for sql, params in cases]
        assert sum(len(e) for e in expected) > 40

        for index in indexes:
            with conn.transaction():
                # leave only this index; the rollback below brings the others back
                for other in indexes:
                    if other != index:
                        conn.execute(f"DROP INDEX {other}")
                conn.execute("SET LOCAL enable_seqscan = off")
                used = 0
                for (sql, params), want in zip(cases, expected):
                    plan = "\n".join(r[0] for r in conn.execute(
                        f"EXPLAIN (COSTS OFF) SELECT n FROM ids WHERE {sql}", params).fetchall())
                    if index in plan:
                        used += 1
                        assert lookups(conn, sql, params) == want, (index, sql, plan)
                assert used > 0, f"{index} was never used"
                raise psycopg.Rollback()
