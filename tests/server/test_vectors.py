"""tests/vectors/ulid.json through the native type: every value in every
input form, every bad text with its SQLSTATE, message, DETAIL and HINT (and,
on 16 and later, the same words as soft errors), every time and time no
ULID holds, every public id and bad key. The monotonic runs are checked in
the server by the_vectors_monotonic_runs (src/generators.rs), where the
generator's state can be set."""

from __future__ import annotations

from harness.vectors import check_bad_text, check_public_ids, check_times, check_values, input_of, query, vectors

NATIVE = {
    "read": "$1::ulid",
    "read_text": "($1::ulid)::text",
    "text": "({id})::text",
    "uuid": "({id})::uuid",
    "timestamp": "ulid_timestamp({id})",
    # the cast, the function behind it, and a generated id's first ten characters
    "from_time": ["(($1::timestamptz)::ulid)::text", "ulid_from_timestamptz($1::timestamptz)::text",
                  "left(gen_ulid($1::timestamptz)::text, 10)"],
    "encrypt": "ulid_encrypt({id}, decode($2, 'hex'))",
    "decrypt": "ulid_decrypt({id}, decode($2, 'hex'))",
}


def test_values(conn, major):
    assert check_values(conn, NATIVE, major) >= 50


def test_bad_text(conn):
    assert check_bad_text(conn, NATIVE) >= 50


def test_bad_text_as_soft_errors(conn, major):
    """pg_input_is_valid and pg_input_error_info (16 and later) give the
    words of the hard error without raising."""
    if major < 16:
        assert conn.execute("SELECT count(*) FROM pg_proc WHERE proname = 'pg_input_error_info'").fetchone() == (0,)
        return
    v = vectors()
    for case in v["bad_text"]:
        text = input_of(case)
        row = query(conn, "SELECT pg_input_is_valid($1, 'ulid'), e.message, e.detail, e.hint, e.sql_error_code "
                          "FROM pg_input_error_info($1, 'ulid') e", [text]).fetchone()
        assert row == (False, v["bad_text_error"]["message"].replace("{input}", text), case["detail"],
                       case["hint"], v["bad_text_error"]["sqlstate"]), text[:40]


def test_times(conn):
    results = {0: lambda s: s, 1: lambda s: s, 2: lambda s: s[:10]}
    # each call's expected text of the smallest id
    for k, call in enumerate(NATIVE["from_time"]):
        check_times(conn, dict(NATIVE, from_time=[call], time_result=results[k]))


def test_public_ids(conn):
    assert check_public_ids(conn, NATIVE) >= 20
