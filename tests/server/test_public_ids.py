"""Public ids, checked against an AES nobody here wrote (pgcrypto's, over
OpenSSL), and for what they must hide: the order and the time of the ids
behind them."""

from __future__ import annotations

import os

import pytest
from psycopg import errors

# the cipher is ulid-core's Rust, and pgcrypto's AES the same, on every version (tests/conftest.py)
pytestmark = pytest.mark.same_on_every_version

KEY_LENGTHS = (16, 24, 32)


@pytest.mark.extensions("pgcrypto")
@pytest.mark.parametrize("key_length", KEY_LENGTHS)
def test_public_ids_are_aes_as_pgcrypto_computes_it(conn, build, key_length):
    conn.execute("CREATE EXTENSION pgcrypto")
    # 1,000 random ids, each under a random key of its own (drawn here, by
    # the operating system, not by the server)
    rows = [(os.urandom(16), os.urandom(key_length)) for _ in range(1000)]
    conn.execute("CREATE TEMP TABLE cases (id ulid, key bytea)")
    with conn.cursor().copy("COPY cases FROM STDIN") as copy:
        for raw, key in rows:
            copy.write_row(("\\x" + raw.hex(), key))  # the ulid's bytea-hex text form
    (count, same, back, pgcrypto_back) = conn.execute(
        """SELECT count(*),
                  count(*) FILTER (WHERE ulid_encrypt(id, key)::bytea = encrypt(id::bytea, key, 'aes-ecb/pad:none')),
                  count(*) FILTER (WHERE ulid_decrypt(ulid_encrypt(id, key), key) = id),
                  count(*) FILTER (WHERE ulid_decrypt(encrypt(id::bytea, key, 'aes-ecb/pad:none')::ulid, key) = id)
           FROM cases""").fetchone()
    assert (count, same, back, pgcrypto_back) == (1000, 1000, 1000, 1000)
    # and the values the server saw are the ones drawn here
    stored = conn.execute("SELECT id::bytea, key FROM cases ORDER BY id").fetchall()
    assert sorted((bytes(i), bytes(k)) for i, k in stored) == sorted(rows)


def test_public_ids_of_consecutive_ids_are_in_no_order(conn):
    """100,000 monotonic ids, many per millisecond, strictly increasing: their
    public ids go up and down like coin flips, and neither they nor their
    first ten characters (a ULID's time) follow the ids' order."""
    conn.execute("""CREATE TEMP TABLE made AS
                    SELECT n, gen_monotonic_ulid() AS id FROM generate_series(1, 100000) n""")
    key = os.urandom(32)
    conn.execute("""CREATE TEMP TABLE masked AS
                    SELECT n, id, ulid_encrypt(id, %s) AS public_id FROM made""", [key])
    increasing, distinct_ms = conn.execute(
        """SELECT bool_and(id > previous), count(DISTINCT left(id::text, 10))
           FROM (SELECT id, lag(id) OVER (ORDER BY n) AS previous FROM masked) p
           WHERE previous IS NOT NULL""").fetchone()
    assert increasing
    assert distinct_ms < 100000  # ids share milliseconds: their time prefixes repeat
    descending, prefixes, prefix_correlation = conn.execute(
        """SELECT count(*) FILTER (WHERE public_id < previous),
                  count(DISTINCT left(public_id::text, 10)),
                  corr(n, prefix_rank)
           FROM (SELECT n, public_id, lag(public_id) OVER (ORDER BY n) AS previous,
                        dense_rank() OVER (ORDER BY left(public_id::text, 10)) AS prefix_rank
                 FROM masked) p""").fetchone()
    # 99,999 pairs, each descending with odds 1/2: 49,999.5 on average, a
    # standard deviation of 158; 1,000 away is six of them
    assert abs(descending - 49999.5) < 1000, descending
    # 2^50 possible prefixes: 100,000 draws almost never repeat one
    assert prefixes > 99990, prefixes
    # rank correlation of the ids' order with the prefixes' order: about
    # 0.003 either way by chance
    assert abs(prefix_correlation) < 0.02, prefix_correlation


def test_a_key_stored_out_of_line_or_compressed_gives_what_the_key_gives(conn):
    """A key read from a table as TOAST left it, moved out of the row or
    compressed in it, is the key: the public ids are the ones the same
    bytes give as a parameter. A table's 128-byte TOAST target and a column
    that cannot move make TOAST act on a 32-byte key."""
    out_of_line, compressible = os.urandom(32), bytes(32)
    conn.execute("CREATE TABLE keys (n int, pinned char(100), key bytea, pad text) WITH (toast_tuple_target = 128)")
    conn.execute("ALTER TABLE keys ALTER pinned SET STORAGE PLAIN, ALTER pad SET STORAGE EXTERNAL")
    conn.execute("ALTER TABLE keys ALTER key SET STORAGE EXTERNAL")
    conn.execute("INSERT INTO keys VALUES (1, 'x', %s, repeat('p', 3000))", [out_of_line])
    conn.execute("ALTER TABLE keys ALTER key SET STORAGE MAIN")
    conn.execute("INSERT INTO keys VALUES (2, 'x', %s, repeat('p', 3000))", [compressible])
    # as stored: the first key is a chunk of the TOAST table (beside the
    # two pads' chunks), the 32 zero bytes are compressed in their row
    toast = conn.execute("SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = 'keys'::regclass").fetchone()[0]
    assert conn.execute(f"SELECT count(DISTINCT chunk_id), count(*) FILTER (WHERE chunk_data = %s) FROM {toast}",
                        [out_of_line]).fetchone() == (3, 1)
    assert conn.execute("SELECT pg_column_size(key) < 32 FROM keys WHERE n = 2").fetchone() == (True,)
    conn.execute("CREATE TEMP TABLE ids AS SELECT gen_ulid() AS id FROM generate_series(1, 200)")
    for n, key in ((1, out_of_line), (2, compressible)):
        same, back, total = conn.execute(
            """SELECT count(*) FILTER (WHERE ulid_encrypt(id, k.key) = ulid_encrypt(id, %s::bytea)),
                      count(*) FILTER (WHERE ulid_decrypt(ulid_encrypt(id, k.key), k.key) = id),
                      count(*)
               FROM ids, keys k WHERE k.n = %s""", [key, n]).fetchone()
        assert (same, back, total) == (200, 200, 200), n
    # a key of another length, compressed, is refused with its own length
    conn.execute("CREATE TABLE long_keys (key bytea)")
    conn.execute("INSERT INTO long_keys VALUES (decode(repeat('ab', 100000), 'hex'))")
    assert conn.execute("SELECT pg_column_size(key) < 100000 FROM long_keys").fetchone() == (True,)
    with pytest.raises(errors.InvalidParameterValue,
                       match="invalid key length for ulid_encrypt and ulid_decrypt: 100000 bytes"):
        conn.execute("SELECT ulid_encrypt(gen_ulid(), key) FROM long_keys")


@pytest.mark.parametrize("length", [0, 1, 15, 17, 23, 31, 33])
def test_a_key_of_another_length_is_22023_and_changes_nothing(conn, length):
    conn.execute("CREATE TABLE public_ids (id ulid, public_id ulid)")
    with pytest.raises(errors.InvalidParameterValue) as raised:
        # a good key on the first row, the bad one on the second
        conn.execute("""INSERT INTO public_ids
                        SELECT id, ulid_encrypt(id, key)
                        FROM (VALUES (gen_ulid(), %s::bytea), (gen_ulid(), %s::bytea)) v(id, key)""",
                     [os.urandom(16), os.urandom(length)])
    assert raised.value.sqlstate == "22023"
    unit = "byte" if length == 1 else "bytes"
    assert f"invalid key length for ulid_encrypt and ulid_decrypt: {length} {unit}" in str(raised.value)
    assert raised.value.diag.message_detail == "The key is 16, 24 or 32 bytes: AES-128, AES-192 or AES-256."
    assert conn.execute("SELECT count(*) FROM public_ids").fetchone() == (0,)
    with pytest.raises(errors.InvalidParameterValue):
        conn.execute("SELECT ulid_decrypt(gen_ulid(), %s)", [os.urandom(length)])
    # the session goes on
    assert conn.execute("SELECT ulid_decrypt(ulid_encrypt(%s, %s), %s) = %s::ulid",
                        ["01JGFJJZ00XHF7E02JJ03AE4T7", b"k" * 24, b"k" * 24, "01JGFJJZ00XHF7E02JJ03AE4T7"]
                        ).fetchone() == (True,)


def test_null_keys_and_ids_give_null(conn):
    assert conn.execute("""SELECT ulid_encrypt(NULL, '\\x000102030405060708090a0b0c0d0e0f'),
                                  ulid_encrypt(gen_ulid(), NULL), ulid_decrypt(gen_ulid(), NULL)""").fetchone() == \
        (None, None, None)


def test_a_lookup_by_public_id_uses_the_index_with_parallel_workers_too(cluster, db):
    """The functions are parallel safe: a parallel plan may run them in its
    workers, which answer exactly as the leader."""
    key = os.urandom(32)
    with cluster.connect(db) as conn:
        conn.execute("CREATE TABLE t (id ulid PRIMARY KEY, v int)")
        conn.execute("INSERT INTO t SELECT gen_ulid(), n FROM generate_series(1, 200000) n")
        conn.execute("ANALYZE t")
        conn.execute("SET max_parallel_workers_per_gather = 2")
        conn.execute("SET parallel_setup_cost = 0")
        conn.execute("SET parallel_tuple_cost = 0")
        conn.execute("SET min_parallel_table_scan_size = 0")
        plan = "\n".join(r[0] for r in conn.execute(
            "EXPLAIN (COSTS OFF) SELECT count(*) FROM t WHERE ulid_decrypt(ulid_encrypt(id, %s), %s) = id",
            [key, key]))
        assert "Parallel Seq Scan" in plan, plan
        assert conn.execute("SELECT count(*) FROM t WHERE ulid_decrypt(ulid_encrypt(id, %s), %s) = id",
                            [key, key]).fetchone() == (200000,)
        (target,) = conn.execute("SELECT id FROM t WHERE v = 12345").fetchone()
        public = conn.execute("SELECT ulid_encrypt(%s, %s)", [target, key]).fetchone()[0]
        plan = "\n".join(r[0] for r in conn.execute(
            "EXPLAIN (COSTS OFF) SELECT v FROM t WHERE id = ulid_decrypt(%s, %s)", [public, key]))
        assert "Index Scan using t_pkey on t" in plan, plan
        assert conn.execute("SELECT v FROM t WHERE id = ulid_decrypt(%s, %s)", [public, key]).fetchone() == (12345,)
