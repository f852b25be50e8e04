"""tests/vectors/ulid.json through the portable layer, as through the
native type (tests/server/test_vectors.py): every value in every input
form, every bad text with the type's SQLSTATE, message, DETAIL and HINT,
every time and time no ULID holds, every public id and bad key (where
pgcrypto is), and every monotonic run, the layer's state set as its
generator's tests set it."""

from __future__ import annotations

from contextlib import nullcontext

import psycopg
import pytest

from harness.vectors import check_bad_text, check_public_ids, check_times, check_values, vectors
from portable_layer import has_pgcrypto, install_portable
from test_portable_generators import SET_STATE, state_of

PORTABLE = {
    "read": "ulid_portable.ulid_parse($1)",
    "read_text": "ulid_portable.ulid_parse($1)",
    "text": "ulid_portable.ulid_text({id})",
    "uuid": "({id})",
    "timestamp": "ulid_portable.ulid_timestamp({id})",
    "from_time": ["ulid_portable.ulid_text(ulid_portable.ulid_from_timestamptz($1::timestamptz))",
                  "left(ulid_portable.ulid_text(ulid_portable.gen_ulid($1::timestamptz)), 10)"],
    "encrypt": "ulid_portable.ulid_encrypt({id}, decode($2, 'hex'))",
    "decrypt": "ulid_portable.ulid_decrypt({id}, decode($2, 'hex'))",
}


def test_values(pconn, pg_version):
    assert check_values(pconn, PORTABLE, pg_version) >= 50


def test_bad_text(pconn):
    assert check_bad_text(pconn, PORTABLE) >= 50


def test_times(pconn):
    results = {0: lambda s: s, 1: lambda s: s[:10]}
    for k, call in enumerate(PORTABLE["from_time"]):
        check_times(pconn, dict(PORTABLE, from_time=[call], time_result=results[k]))


def test_public_ids(cluster, pg_build):
    with cluster.connect() as conn:
        if not has_pgcrypto(conn):
            pytest.skip(f"PostgreSQL {pg_build} has no pgcrypto (contrib), which the layer's public ids use")
    name = cluster.create_database("pv_crypto", extension=False)
    try:
        with cluster.connect(name) as conn:
            conn.execute("CREATE EXTENSION pgcrypto")
        install_portable(cluster, name)
        with cluster.connect(name) as conn:
            assert check_public_ids(conn, PORTABLE) >= 20
    finally:
        with cluster.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_monotonic_runs(pconn):
    v = vectors()
    error = v["exhausted_error"]
    pconn.execute("SET ulid.monotonic_step = one")
    for case in v["monotonic"]:
        pconn.execute(f"SET ulid.layout = {case['layout']}")
        after = pconn.execute("SELECT replace(ulid_portable.ulid_parse(%s)::text, '-', '')", [case["after"]]).fetchone()[0]
        pconn.execute(SET_STATE, [state_of(int(after, 16))])
        made = []
        with pytest.raises(psycopg.errors.SequenceGeneratorLimitExceeded) if case.get("error") else nullcontext() as raised:
            for _ in range(case["count"]):
                made += [pconn.execute("SELECT ulid_portable.ulid_text(ulid_portable.gen_monotonic_ulid())").fetchone()[0]]
        assert made == case["next"], case
        if case.get("error"):
            diag = raised.value.diag
            assert (raised.value.sqlstate, diag.message_primary, diag.message_detail, diag.message_hint) == \
                (error["sqlstate"], error["message"], error["detail"][case["layout"]], error["hint"])
