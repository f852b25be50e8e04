"""The portable public ids against the native ulid_encrypt and ulid_decrypt:
the same bytes for random ids and keys of every length, the same errors.
They go through pgcrypto, so they are compared on the builds that have it;
test_portable_install.py checks them against FIPS-197's vectors and without
pgcrypto."""

from __future__ import annotations

import os

import pytest

from portable_layer import errors_of, install_portable

pytestmark = pytest.mark.extensions("pgcrypto")


@pytest.fixture(scope="module")
def with_pgcrypto(cluster, both, build) -> str:
    """The test database with pgcrypto, in a schema off the search_path,
    and the portable layer installed again to find it there."""
    with cluster.connect(both) as conn:
        conn.execute("CREATE SCHEMA crypto")
        conn.execute("CREATE EXTENSION pgcrypto SCHEMA crypto")
    install_portable(cluster, both)
    return both


@pytest.fixture
def crypto(cluster, with_pgcrypto):
    with cluster.connect(with_pgcrypto) as conn:
        yield conn


@pytest.mark.parametrize("key_length", [16, 24, 32])
def test_public_ids_are_the_native_ones(crypto, key_length):
    rows = [(os.urandom(16), os.urandom(key_length)) for _ in range(1000)]
    crypto.execute("CREATE TEMP TABLE cases (id uuid, key bytea)")
    with crypto.cursor().copy("COPY cases FROM STDIN") as copy:
        for raw, key in rows:
            copy.write_row((raw.hex(), key))
    row = crypto.execute("""
        SELECT count(*),
               count(*) FILTER (WHERE ulid_portable.ulid_encrypt(id, key) = native.ulid_encrypt(id::native.ulid, key)::uuid),
               count(*) FILTER (WHERE ulid_portable.ulid_decrypt(id, key) = native.ulid_decrypt(id::native.ulid, key)::uuid),
               count(*) FILTER (WHERE ulid_portable.ulid_decrypt(ulid_portable.ulid_encrypt(id, key), key) = id),
               count(*) FILTER (WHERE ulid_portable.ulid_encrypt(id, key) <> id)
        FROM cases""").fetchone()
    assert row == (1000,) * 5


def test_a_key_of_another_length_is_the_native_error(crypto):
    calls = ["ulid_portable.ulid_encrypt(gen_random_uuid(), decode($1, 'hex'))",
             "native.ulid_encrypt(gen_random_uuid()::native.ulid, decode($1, 'hex'))",
             "ulid_portable.ulid_decrypt(gen_random_uuid(), decode($1, 'hex'))",
             "native.ulid_decrypt(gen_random_uuid()::native.ulid, decode($1, 'hex'))"]
    keys = [os.urandom(n).hex() for n in (0, 1, 2, 15, 17, 23, 25, 31, 33, 64)]
    outcomes: dict[int, dict[str, tuple]] = {}
    for n, call, outcome in errors_of(crypto, calls, keys):
        outcomes.setdefault(n, {})[call] = outcome
    for n, got in outcomes.items():
        assert got[calls[0]] == got[calls[1]] == got[calls[2]] == got[calls[3]], keys[n]
        length = len(keys[n]) // 2
        assert got[calls[0]] == ("22023", f"invalid key length for ulid_encrypt and ulid_decrypt: {length} "
                                 f"{'byte' if length == 1 else 'bytes'}",
                                 "The key is 16, 24 or 32 bytes: AES-128, AES-192 or AES-256.", None)
    assert len(outcomes) == len(keys)


def test_null_gives_null_as_in_the_native_functions(crypto):
    """NULL in either argument is NULL, whatever the other one is."""
    assert crypto.execute("""
        SELECT ulid_portable.ulid_encrypt(NULL, '\\x00112233445566778899aabbccddeeff'),
               ulid_portable.ulid_encrypt(gen_random_uuid(), NULL),
               ulid_portable.ulid_encrypt(NULL, '\\x00'), ulid_portable.ulid_decrypt(NULL, '\\x00'),
               native.ulid_encrypt(NULL, '\\x00')""").fetchone() == (None,) * 5


def test_a_lookup_by_public_id_uses_the_index(crypto):
    """The functions are inlined: ulid_decrypt of a parameter is a constant
    the planner compares with the index."""
    key = os.urandom(32)
    crypto.execute("CREATE TABLE t (id uuid PRIMARY KEY, v int)")
    crypto.execute("INSERT INTO t SELECT ulid_portable.gen_ulid(), n FROM generate_series(1, 20000) n")
    crypto.execute("ANALYZE t")
    (target,) = crypto.execute("SELECT id FROM t WHERE v = 12345").fetchone()
    (public,) = crypto.execute("SELECT ulid_portable.ulid_encrypt(%s, %s)", [target, key]).fetchone()
    plan = "\n".join(r[0] for r in crypto.execute(
        "EXPLAIN (COSTS OFF) SELECT v FROM t WHERE id = ulid_portable.ulid_decrypt(%s, %s)", [public, key]))
    assert "Index Scan using t_pkey on t" in plan, plan
    assert crypto.execute("SELECT v FROM t WHERE id = ulid_portable.ulid_decrypt(%s, %s)",
                          [public, key]).fetchone() == (12345,)
