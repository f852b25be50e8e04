"""tests/vectors/ulid.json through the portable layer, as through the
native type (tests/server/test_vectors.py): every value in every input
form, every bad text with the type's SQLSTATE, message, DETAIL and HINT,
every time and time no ULID holds, every public id and bad key (where
pgcrypto is), and every monotonic run, the layer's state set as its
generator's tests set it.

The monotonic runs start from values centuries ahead of the clock, and the
layer ignores a state more than ten seconds ahead (a second, when an
earlier transaction left it). So each run is made twice, in the
transaction that writes the state: by gen_monotonic_ulid() as installed,
from the run's value moved to a millisecond a few seconds ahead (the same
80 bits after it), and by a copy of it whose clock reads the run's own
millisecond, from the run's value itself."""

from __future__ import annotations

from contextlib import nullcontext

import psycopg
import pytest

from harness.vectors import check_bad_text, check_public_ids, check_times, check_values, vectors
from portable_layer import install_portable
from test_portable_generators import AHEAD, SET_STATE_HERE, state_of

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


def test_values(pconn, major):
    assert check_values(pconn, PORTABLE, major) >= 50


def test_bad_text(pconn):
    assert check_bad_text(pconn, PORTABLE) >= 50


def test_times(pconn):
    results = {0: lambda s: s, 1: lambda s: s[:10]}
    for k, call in enumerate(PORTABLE["from_time"]):
        check_times(pconn, dict(PORTABLE, from_time=[call], time_result=results[k]))


@pytest.mark.extensions("pgcrypto")
def test_public_ids(cluster, build):
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


LOW_80 = (1 << 80) - 1
# the clock of the copy: the middle of the millisecond a setting holds
CLOCK = "to_timestamp((current_setting('ulid_test.clock')::numeric + 0.5) / 1000)"


def with_a_set_clock(conn) -> str:
    """gen_monotonic_ulid() as installed, with CLOCK where it reads
    clock_timestamp(), as pg_temp.monotonic_at_the_set_clock(); returns the
    call."""
    (source,) = conn.execute(
        "SELECT pg_get_functiondef('ulid_portable.gen_monotonic_ulid()'::regprocedure)").fetchone()
    header = "FUNCTION ulid_portable.gen_monotonic_ulid()"
    assert source.count(header) == 1 and source.count("pg_catalog.clock_timestamp()") >= 1, source
    source = source.replace(header, "FUNCTION pg_temp.monotonic_at_the_set_clock()")
    conn.execute(source.replace("pg_catalog.clock_timestamp()", CLOCK))
    return "pg_temp.monotonic_at_the_set_clock()"


def run(conn, call: str, start: int, count: int, error: bool) -> tuple[list[int], object]:
    """From the state START, COUNT calls (each a statement of its own, in the
    transaction that wrote the state): the values made, and the error that
    stopped them if ERROR."""
    made = []
    with pytest.raises(psycopg.errors.SequenceGeneratorLimitExceeded) if error else nullcontext() as raised:
        with conn.transaction():
            conn.execute(SET_STATE_HERE, [state_of(start)])
            for _ in range(count):
                made += [int(conn.execute(f"SELECT replace(({call})::text, '-', '')").fetchone()[0], 16)]
    return made, raised


@pytest.mark.parametrize("clock", ["installed, a few seconds ahead", "the run's own millisecond"])
def test_monotonic_runs(pconn, clock):
    v = vectors()
    error = v["exhausted_error"]
    call = "ulid_portable.gen_monotonic_ulid()" if clock.startswith("installed") else with_a_set_clock(pconn)
    as_int = lambda text: int(pconn.execute(  # noqa: E731
        "SELECT replace(ulid_portable.ulid_parse(%s)::text, '-', '')", [text]).fetchone()[0], 16)
    pconn.execute("SET ulid.monotonic_step = one")
    for case in v["monotonic"]:
        pconn.execute(f"SET ulid.layout = {case['layout']}")
        after, expected = as_int(case["after"]), [as_int(t) for t in case["next"]]
        if clock.startswith("installed"):
            # every run stays in its millisecond, which can be moved
            assert all(e >> 80 == after >> 80 for e in expected), case
            ms = pconn.execute(f"SELECT {AHEAD}").fetchone()[0]
            after, expected = ms << 80 | after & LOW_80, [ms << 80 | e & LOW_80 for e in expected]
        else:
            pconn.execute("SELECT set_config('ulid_test.clock', %s, false)", [str(after >> 80)])
        made, raised = run(pconn, call, after, case["count"], bool(case.get("error")))
        assert made == expected, case
        if case.get("error"):
            diag = raised.value.diag
            assert (raised.value.sqlstate, diag.message_primary, diag.message_detail, diag.message_hint) == \
                (error["sqlstate"], error["message"], error["detail"][case["layout"]], error["hint"])
