"""The portable layer and the native type under sessions that are not the
default one: every setting a session, a role, a database or a pooled
connection may carry that could change how SQL reads a literal, prints a
value or finds a name; a megabyte of bad input on every path of the
parser; a monotonic state that this session did not write; and what one
client of a pooled connection can leave for the next on the same backend:
a state ahead of the clock, one with no value left above it, and a value
of ulid.layout or ulid.monotonic_step that the extension would refuse.

For each session, the same work is done by both and compared with the
default session's answers: the text of deterministic values in every
input form, the catalogue of bad input with its errors, times, range
bounds, the generators under both layouts, and public ids where the
build has pgcrypto. Everything is compared in the server or as text that
no setting formats (hexadecimal, integers), so that the test reads the
same answers whatever the session prints.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import psycopg
import pytest

from portable_layer import all_at_once, errors_of, has_pgcrypto, install_portable, server_takes, session
from test_portable_text import BAD_TEXT

# one setting at a time; then all of them at once (all_at_once)
SETTINGS = [
    ("standard_conforming_strings", "off"),
    ("bytea_output", "escape"),
    ("DateStyle", "SQL, DMY"),
    ("DateStyle", "German"),
    ("DateStyle", "Postgres, MDY"),
    ("IntervalStyle", "sql_standard"),
    ("IntervalStyle", "iso_8601"),
    ("IntervalStyle", "postgres_verbose"),
    ("TimeZone", "Pacific/Kiritimati"),
    ("TimeZone", "America/St_Johns"),
    ("extra_float_digits", "-15"),
    ("extra_float_digits", "3"),
    # the locales this machine has beside C (no other is installed)
    ("lc_messages", "C.utf8"),
    ("lc_numeric", "C.utf8"),
    ("lc_time", "C.utf8"),
    ("client_encoding", "LATIN1"),
    ("search_path", ""),
]
# bad input of a megabyte or more, on every path of the parser: the hex
# form, the UUID form, the ULID text, each with the problem at its end
MEGABYTE = 1 << 20
LONG_BAD = [
    "\\x" + "a" * MEGABYTE,
    "\\x" + "a" * MEGABYTE + "z",
    "\\x" + "a" * MEGABYTE + "é",
    "01941f29-7c00-ec5e-7700-529006a71347" + "a" * MEGABYTE,
    "01941f29-7c00-ec5e-7700-529006a71347" + "a" * MEGABYTE + "é",
    "é" * MEGABYTE,
    "A" * MEGABYTE + "é",
    "A" * MEGABYTE + "-",
    "0" * MEGABYTE,
]

N = 5_000
# the values, from the row number alone, so that every session has the
# same ones; and their text in each form the type reads (E'' strings:
# read alike whatever standard_conforming_strings says)
VALUES = f"""SELECT i, pg_catalog.md5(i::pg_catalog.text)::pg_catalog.uuid AS u
             FROM pg_catalog.generate_series(1, {N}) AS i"""
FORMS = [
    "u::native.ulid::pg_catalog.text",
    "pg_catalog.lower(u::native.ulid::pg_catalog.text)",
    "E'\\\\x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.uuid_send(u), 'hex')",
    "u::pg_catalog.text",
]


def for_the_client(settings, inputs: list[str]) -> list[str]:
    """What the session's client encoding can carry."""
    encoding = dict(settings).get("client_encoding")
    if encoding is None:
        return inputs
    return [t for t in inputs if t.encode("latin-1", errors="replace").decode("latin-1") == t]


def answers(conn) -> dict:
    """What the session answers, as text no setting formats."""
    q = lambda sql: conn.execute(sql).fetchone()  # noqa: E731
    out = {}
    for k, form in enumerate(FORMS):
        out[f"text, form {k}"] = q(f"""
            SELECT pg_catalog.md5(pg_catalog.string_agg(ulid_portable.ulid_text(u) OPERATOR(pg_catalog.||) '='
                                                         OPERATOR(pg_catalog.||) (u::native.ulid)::pg_catalog.text, ',' ORDER BY i)),
                   pg_catalog.count(*) FILTER (WHERE ulid_portable.ulid_parse({form}) OPERATOR(pg_catalog.=) u),
                   pg_catalog.count(*) FILTER (WHERE (({form})::native.ulid)::pg_catalog.uuid OPERATOR(pg_catalog.=) u)
            FROM ({VALUES}) AS v""")
    out["times"] = q(f"""
        SELECT pg_catalog.md5(pg_catalog.string_agg(
                   ((pg_catalog.date_part('epoch', ulid_portable.ulid_timestamp(u)) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8)::pg_catalog.text
                   OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||)
                   ((pg_catalog.date_part('epoch', native.ulid_timestamp(u::native.ulid)) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8)::pg_catalog.text
                   OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||)
                   ulid_portable.ulid_from_timestamptz(native.ulid_timestamp(u::native.ulid))::pg_catalog.text
                   OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||)
                   ((native.ulid_timestamp(u::native.ulid))::native.ulid)::pg_catalog.text, ',' ORDER BY i))
        FROM ({VALUES}) AS v""")
    # generators: the millisecond they were given, in hexadecimal
    at = "'2025-01-01 12:34:56.789+00'::pg_catalog.timestamptz"
    out["at"] = q(f"""SELECT pg_catalog.left(ulid_portable.gen_ulid({at})::pg_catalog.text, 13),
                             pg_catalog.left((native.gen_ulid({at}))::pg_catalog.uuid::pg_catalog.text, 13),
                             (native.ulid_from_timestamptz({at}))::pg_catalog.text""")
    for layout in ("ulid", "uuidv7"):
        conn.execute(f"SET ulid.layout = {layout}")
        for name, call in (("portable", "ulid_portable.gen_monotonic_ulid()"),
                           ("native", "(native.gen_monotonic_ulid())::pg_catalog.uuid")):
            values = [uuid.UUID(v) for v, in conn.execute(
                f"SELECT ({call})::pg_catalog.text FROM pg_catalog.generate_series(1, 2000)")]
            now_ms = datetime.now(timezone.utc).timestamp() * 1000
            out[f"{name} monotonic, {layout}"] = (
                values == sorted(set(values)),
                all(v.version == 7 for v in values) if layout == "uuidv7" else True,
                all(abs((v.int >> 80) - now_ms) < 600_000 for v in values))
        conn.execute("RESET ulid.layout")
    if conn.execute("SELECT pg_catalog.count(*) FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'pgcrypto'").fetchone()[0]:
        key = bytes(range(16))
        out["public id"] = conn.execute(
            """SELECT ulid_portable.ulid_encrypt('00112233-4455-6677-8899-aabbccddeeff', %s)::pg_catalog.text,
                      (native.ulid_encrypt('00112233-4455-6677-8899-aabbccddeeff'::pg_catalog.uuid::native.ulid, %s))::pg_catalog.uuid::pg_catalog.text""",
            [key, key]).fetchone()
    return out


def bad_input(conn, inputs: list[str]) -> dict[str, tuple]:
    """Each input through the type and ulid_parse: their outcomes, which
    must be the same."""
    native, portable = "($1::native.ulid)::pg_catalog.uuid", "ulid_portable.ulid_parse($1)"
    by_input: dict[int, dict[str, tuple]] = {}
    for n, call, outcome in errors_of(conn, [native, portable], inputs):
        by_input.setdefault(n, {})[call] = outcome
    differ = [(inputs[n][:40], got) for n, got in by_input.items() if got[native] != got[portable]]
    assert not differ, differ[:5]
    return {inputs[n]: got[native] for n, got in by_input.items()}


@pytest.fixture(scope="module")
def default_answers(cluster, both):
    """The default session's answers; public ids among them where the
    build has pgcrypto, which the layer is then installed over."""
    with cluster.connect(both) as conn:
        if has_pgcrypto(conn):
            conn.execute("CREATE EXTENSION IF NOT EXISTS pgcrypto")
            install_portable(cluster, both)
        return answers(conn), bad_input(conn, BAD_TEXT)


def check_session(cluster, both, settings, default_answers):
    expected, expected_bad = default_answers
    with session(cluster, both, settings) as conn:
        got = answers(conn)
        got_bad = bad_input(conn, for_the_client(settings, BAD_TEXT))
    assert got == expected
    assert got_bad == {t: expected_bad[t] for t in got_bad}
    for key, (counted, parsed, typed) in ((k, v) for k, v in got.items() if k.startswith("text")):
        assert (parsed, typed) == (N, N), key
    for key in (k for k in got if "monotonic" in k):
        assert got[key] == (True, True, True), key


@pytest.mark.parametrize("name, value", SETTINGS, ids=[f"{n}={v}" for n, v in SETTINGS])
def test_a_session_setting_changes_no_answer(cluster, both, default_answers, name, value):
    if not server_takes(cluster, name, value):
        # PostgreSQL 19 and later: the setting cannot be made, so no
        # session there reads a literal the old way
        with cluster.connect(both) as conn, pytest.raises(psycopg.errors.FeatureNotSupported):
            conn.execute("SELECT pg_catalog.set_config(%s, %s, false)", [name, value])
        return
    check_session(cluster, both, [(name, value)], default_answers)


def test_every_setting_at_once(cluster, both, default_answers):
    """All of them together (and test_portable_text.py reads and prints its
    million values in such a session)."""
    check_session(cluster, both, all_at_once(cluster), default_answers)


def test_a_megabyte_of_bad_input_on_every_path(cluster, both):
    """The type's error, word for word, from each path of the parser, in
    time linear in the input: a statement_timeout far above what linear
    time takes (well under a second here) stops a parser that reads the
    text one character at a time from its start, which takes hours on a
    megabyte."""
    with cluster.connect(both) as conn:
        conn.execute("SET statement_timeout = '60s'")
        outcomes = bad_input(conn, LONG_BAD)
    assert {o[0] for o in outcomes.values()} == {"22P02"}, outcomes
    details = [outcomes[t][2] for t in LONG_BAD]
    assert details[0] == f'Expected 32 hexadecimal digits after "\\x", found {MEGABYTE}.'
    assert details[1] == f'Invalid hexadecimal digit "z" at position {MEGABYTE + 3}.'
    assert details[3] == f"Expected 36 characters in the UUID form, found {MEGABYTE + 36}."
    assert details[4] == f'Invalid hexadecimal digit "é" at position {MEGABYTE + 37}.'
    assert details[5] == 'Invalid character "é" at position 1.'
    assert details[6] == f'Invalid character "é" at position {MEGABYTE + 1}.'


# ---- a monotonic state the session did not write ----------------------------

FUTURE_MS = 140_000_000_000_000  # in the year 6406


def far_future_states(cluster, dbname) -> list[str]:
    """States another party could leave for a new session: bare digits, as
    the layer wrote them before it stamped them, and the state of a live
    session, stamped with that session's own backend."""
    bare = f"{FUTURE_MS:012x}" + "0" * 20
    with cluster.connect(dbname) as conn:
        conn.execute("SELECT ulid_portable.gen_monotonic_ulid()")
        live = conn.execute("SELECT current_setting('ulid_portable.monotonic_last')").fetchone()[0]
    return [bare, bare + live[32:]]


def two_sessions(cluster, dbname, **kw) -> list[list[str]]:
    """Two new sessions, each making 500 values with the step of one."""
    made = []
    for _ in range(2):
        with psycopg.connect(cluster.conninfo(dbname), autocommit=True, **kw) as conn:
            conn.execute("SET ulid.monotonic_step = one")
            made.append([v for v, in conn.execute(
                "SELECT ulid_portable.gen_monotonic_ulid()::text FROM generate_series(1, 500)")])
    return made


def assert_fresh(made: list[list[str]]) -> None:
    first, second = made
    assert not set(first) & set(second)
    now_ms = datetime.now(timezone.utc).timestamp() * 1000
    for values in made:
        assert values == sorted(values)
        assert all((uuid.UUID(v).int >> 80) <= now_ms + 1000 for v in values), values[:3]


@pytest.mark.parametrize("route", ["ALTER ROLE", "ALTER DATABASE", "connection options", "SET"])
def test_a_state_this_session_did_not_write_is_ignored(cluster, both, route):
    role = "mono_" + uuid.uuid4().hex[:8]
    with cluster.connect(both) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN SUPERUSER")
    try:
        for state in far_future_states(cluster, both):
            with cluster.connect(both) as conn:
                if route == "ALTER ROLE":
                    conn.execute(f"ALTER ROLE {role} SET ulid_portable.monotonic_last = '{state}'")
                elif route == "ALTER DATABASE":
                    conn.execute(f'ALTER DATABASE "{both}" SET ulid_portable.monotonic_last = \'{state}\'')
            kw = {"user": role}
            if route == "connection options":
                kw["options"] = f"-c ulid_portable.monotonic_last={state}"
            if route == "SET":
                made = []
                for _ in range(2):
                    with psycopg.connect(cluster.conninfo(both), autocommit=True, **kw) as conn:
                        conn.execute(f"SET ulid_portable.monotonic_last = '{state}'")
                        conn.execute("SET ulid.monotonic_step = one")
                        made.append([v for v, in conn.execute(
                            "SELECT ulid_portable.gen_monotonic_ulid()::text FROM generate_series(1, 500)")])
            else:
                made = two_sessions(cluster, both, **kw)
                with psycopg.connect(cluster.conninfo(both), autocommit=True, **kw) as conn:
                    # the control: the session did start with the state
                    assert conn.execute("SELECT current_setting('ulid_portable.monotonic_last')").fetchone() == (state,)
            assert_fresh(made)
            with cluster.connect(both) as conn:
                conn.execute(f"ALTER ROLE {role} RESET ALL")
                conn.execute(f'ALTER DATABASE "{both}" RESET ALL')
    finally:
        with cluster.connect(both) as conn:
            conn.execute(f'ALTER DATABASE "{both}" RESET ALL')
            conn.execute(f"DROP ROLE {role}")


# ---- a pooled connection: clients that take turns on one backend -------------

# How far ahead of the clock a state is still honoured (the layer's
# bounds): one that an earlier transaction left, under a second; one
# written in this very transaction, ten seconds
HONOURED_MS = 1_000
HONOURED_IN_ITS_TRANSACTION_MS = 10_000
# A state stamped as this backend's own and this far ahead of the clock,
# written by one client of a pooled connection for the next one
STAMPED = """SELECT pg_catalog.set_config('ulid_portable.monotonic_last',
                 pg_catalog.lpad(pg_catalog.to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint + %s), 12, '0')
                 || pg_catalog.repeat('0', 20) || ulid_portable._backend() || %s, false)"""


# the clock's millisecond, as the generators take it
CLOCK_MS = "SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint"


def next_client(conn, calls: int = 100) -> tuple[list[int], int, int]:
    """A transaction of the next client on the same backend: CALLS values,
    as integers, and the clock's millisecond before and after."""
    with conn.transaction():
        before = conn.execute(CLOCK_MS).fetchone()[0]
        values = [uuid.UUID(v).int for v, in conn.execute(
            "SELECT ulid_portable.gen_monotonic_ulid()::text FROM generate_series(1, %s)", [calls])]
        after = conn.execute(CLOCK_MS).fetchone()[0]
    return values, before, after


FAR_AHEAD = [HONOURED_MS + 500, HONOURED_IN_ITS_TRANSACTION_MS - 1_000, HONOURED_IN_ITS_TRANSACTION_MS + 1_000,
             3_600_000, 100 * 365 * 86_400_000]
FAR_AHEAD_IDS = ["1.5 seconds", "9 seconds", "11 seconds", "an hour", "a century"]


def state_ms(conn) -> int:
    return int(conn.execute("SELECT left(current_setting('ulid_portable.monotonic_last'), 12)").fetchone()[0], 16)


@pytest.mark.parametrize("ahead_ms", FAR_AHEAD, ids=FAR_AHEAD_IDS)
def test_a_state_far_ahead_left_on_a_pooled_backend_is_ignored(cluster, both, ahead_ms):
    """One client of a transaction-mode pool writes a state far ahead of the
    clock, stamped as the backend's own, and commits; the next client on the
    same backend gets values of the clock's millisecond, not the state's."""
    with cluster.connect(both, autocommit=True) as conn:
        conn.execute("SELECT ulid_portable.gen_monotonic_ulid()")
        with conn.transaction():
            conn.execute(STAMPED, [ahead_ms, "/"])
        # the control: the next client finds the state there
        assert state_ms(conn) >= conn.execute(CLOCK_MS).fetchone()[0] + ahead_ms - 1_000
        values, before, after = next_client(conn)
    assert values == sorted(set(values)) and len(values) == 100
    assert all(before <= v >> 80 <= after for v in values), (before, after, hex(values[0]))


@pytest.mark.parametrize("ahead_ms", FAR_AHEAD[2:], ids=FAR_AHEAD_IDS[2:])
def test_a_state_far_ahead_is_ignored_even_in_the_transaction_it_names(cluster, both, ahead_ms):
    """A state stamped with this backend and this very transaction, as the
    layer stamps the states it writes, is ignored all the same when it is
    far ahead: the bound does not depend on who wrote it."""
    with cluster.connect(both, autocommit=True) as conn, conn.transaction():
        xact = conn.execute("SELECT '/' || encode(timestamptz_send(transaction_timestamp()), 'hex')").fetchone()[0]
        conn.execute(STAMPED, [ahead_ms, xact])
        before = conn.execute(CLOCK_MS).fetchone()[0]
        assert state_ms(conn) > before + HONOURED_IN_ITS_TRANSACTION_MS
        value = uuid.UUID(conn.execute("SELECT ulid_portable.gen_monotonic_ulid()::text").fetchone()[0]).int
        after = conn.execute(CLOCK_MS).fetchone()[0]
    assert before <= value >> 80 <= after


@pytest.mark.parametrize("ahead_ms", [500], ids=["half a second"])
def test_a_state_a_little_ahead_is_continued(cluster, both, ahead_ms):
    """Within the bound a state is honoured, as after a clock that stepped
    back by that much: the next client's values keep the state's
    millisecond and go on from it (with the step of one, one apart)."""
    with cluster.connect(both, autocommit=True) as conn:
        conn.execute("SET ulid.monotonic_step = one")
        conn.execute("SELECT ulid_portable.gen_monotonic_ulid()")
        with conn.transaction():
            conn.execute(STAMPED, [ahead_ms, "/"])
            state = int(conn.execute("SELECT left(current_setting('ulid_portable.monotonic_last'), 32)").fetchone()[0], 16)
        values, before, after = next_client(conn)
    assert values == [state + k for k in range(1, 101)]
    assert all(v >> 80 == state >> 80 for v in values) and state >> 80 > after


def test_a_state_is_continued_across_set_role_to_a_role_that_cannot_see_the_start(cluster, both):
    """An ordinary login role writes a state 900 ms ahead, stamped
    with its backend's start; after SET ROLE to a role that may not see
    that start in pg_stat_activity (no member of the login role, no
    pg_read_all_stats: PostgREST's switch), the next transaction continues
    it; after RESET ROLE, the one after that continues from there."""
    login, switched = "app_" + uuid.uuid4().hex[:8], "anon_" + uuid.uuid4().hex[:8]
    with cluster.connect(both) as conn:
        conn.execute(f"CREATE ROLE {login} LOGIN")
        conn.execute(f"CREATE ROLE {switched} NOLOGIN")
        conn.execute(f"GRANT {switched} TO {login}")
        conn.execute(f"GRANT USAGE ON SCHEMA ulid_portable TO {login}, {switched}")
    try:
        with psycopg.connect(cluster.conninfo(both), user=login, autocommit=True) as conn:
            conn.execute("SET ulid.monotonic_step = one")
            seen = conn.execute("SELECT ulid_portable._backend()").fetchone()[0]
            with conn.transaction():
                conn.execute(STAMPED, [900, "/"])
                state = int(conn.execute(
                    "SELECT left(current_setting('ulid_portable.monotonic_last'), 32)").fetchone()[0], 16)
            conn.execute(f"SET ROLE {switched}")
            # the control: the switched role sees the pid alone
            hidden = conn.execute("SELECT ulid_portable._backend()").fetchone()[0]
            assert hidden.endswith("/") and seen.startswith(hidden) and seen != hidden, (seen, hidden)
            values, _, _ = next_client(conn)
            conn.execute("RESET ROLE")
            more, _, later = next_client(conn)
    finally:
        with cluster.connect(both) as conn:
            conn.execute(f"DROP OWNED BY {login}, {switched}")
            conn.execute(f"DROP ROLE {login}, {switched}")
    assert values == [state + k for k in range(1, 101)]
    assert more == [state + k for k in range(101, 201)]
    assert state >> 80 > later


@pytest.mark.parametrize("ahead_ms", [1_000, HONOURED_IN_ITS_TRANSACTION_MS - 2_000], ids=["1 second", "8 seconds"])
def test_a_state_a_little_ahead_is_continued_in_its_transaction(cluster, both, ahead_ms):
    """A state stamped with this very transaction is honoured up to ten
    seconds ahead, as the values of a transaction whose clock stepped back:
    the transaction's values go on from it."""
    with cluster.connect(both, autocommit=True) as conn:
        conn.execute("SET ulid.monotonic_step = one")
        with conn.transaction():
            xact = conn.execute("SELECT '/' || encode(timestamptz_send(transaction_timestamp()), 'hex')").fetchone()[0]
            conn.execute(STAMPED, [ahead_ms, xact])
            state = int(conn.execute("SELECT left(current_setting('ulid_portable.monotonic_last'), 32)").fetchone()[0], 16)
            values = [uuid.UUID(v).int for v, in conn.execute(
                "SELECT ulid_portable.gen_monotonic_ulid()::text FROM generate_series(1, 100)")]
            after = conn.execute(CLOCK_MS).fetchone()[0]
    assert values == [state + k for k in range(1, 101)]
    assert state >> 80 > after


# The last value of a millisecond in each layout: no value is left above it
# in that millisecond (80 random bits all ones; a UUIDv7's 74, with its
# version and variant)
LAST_OF_ITS_MILLISECOND = {"ulid": "f" * 20, "uuidv7": "7fff" + "bfff" + "f" * 12}
# a state with no value left above it, stamped as this backend's own, this
# far ahead of the clock
EXHAUSTED = """SELECT pg_catalog.set_config('ulid_portable.monotonic_last',
                   pg_catalog.lpad(pg_catalog.to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint + %s), 12, '0')
                   || %s || ulid_portable._backend() || '/', false)"""


@pytest.mark.parametrize("left", [0, 1, 2**41], ids=["none left", "one left", "2^41 left"])
@pytest.mark.parametrize("step", ["random", "one"])
@pytest.mark.parametrize("layout", ["ulid", "uuidv7"])
@pytest.mark.parametrize("ahead_ms", [0, 500, HONOURED_IN_ITS_TRANSACTION_MS - 1_000], ids=["now", "half a second", "9 seconds"])
def test_a_state_with_no_value_left_never_fails_the_next_client(cluster, both, ahead_ms, layout, step, left):
    """One client of a transaction-mode pool leaves a state at the last
    value of a millisecond, or one value or 2^41 values before it, up to
    nine seconds ahead, stamped as the backend's own, and does so again
    before every transaction of the next client (before, that client's
    calls failed with 2200H until the clock got there: from its first call,
    its second, or, 2^41 before the last, after some thousand calls of the
    random step, 2^31 on average, which the next client makes here). The
    next client's calls never fail, and its values are at most a second
    ahead of the clock: within the bound, they go on from the state in the
    next millisecond, so that they are still above it."""
    random_part = f"{int(LAST_OF_ITS_MILLISECOND[layout], 16) - left:020x}"
    with cluster.connect(both, autocommit=True) as conn:
        conn.execute(f"SET ulid.layout = {layout}")
        conn.execute(f"SET ulid.monotonic_step = {step}")
        conn.execute("SELECT ulid_portable.gen_monotonic_ulid()")
        for _ in range(3):
            with conn.transaction():
                conn.execute(EXHAUSTED, [ahead_ms, random_part])
                state = int(conn.execute("SELECT left(current_setting('ulid_portable.monotonic_last'), 32)").fetchone()[0], 16)
            # the control: LEFT values are left above the state in its millisecond
            assert (state + left + 1) >> 80 > state >> 80 == (state + left) >> 80 or layout == "uuidv7"
            calls = 4_000 if left > 1 else 100
            values, before, after = next_client(conn, calls)
            assert values == sorted(set(values)) and len(values) == calls
            assert all(v >> 80 <= after + HONOURED_MS for v in values), (hex(values[0]), after)
            if ahead_ms < HONOURED_MS:
                # continued: above the state, from its next millisecond (or
                # the clock's, once the clock has gone past it)
                assert values[0] > state
                assert values[0] >> 80 == (state >> 80) + 1 or before <= values[0] >> 80 <= after
            else:
                assert all(before <= v >> 80 <= after for v in values)
            if layout == "uuidv7":
                assert all((v >> 76) & 0xF == 7 and (v >> 62) & 0x3 == 2 for v in values)


def test_a_state_that_is_not_hex_is_ignored(cluster, both):
    """A client leaves a state whose value is not 32 hex digits, stamped as
    the backend's own (before, every later call on the backend failed with
    22P02 and never wrote a state again). The next client's calls read it
    as no state: they go on from the clock."""
    with cluster.connect(both, autocommit=True) as conn:
        conn.execute("SELECT ulid_portable.gen_monotonic_ulid()")
        for bad in ("z" * 32, "0" * 31 + "-"):
            conn.execute("""SELECT pg_catalog.set_config('ulid_portable.monotonic_last',
                                %s || ulid_portable._backend() || '/', false)""", [bad])
            values, before, after = next_client(conn)
            assert values == sorted(set(values)) and len(values) == 100
            assert all(before <= v >> 80 <= after for v in values)


def test_a_state_with_no_value_left_in_its_own_transaction_fails(cluster, both):
    """Within the transaction that wrote it, a state at the last value of
    its millisecond is as the extension has it: no value is left, 2200H.
    Only a transaction's own state can make its calls fail."""
    with cluster.connect(both, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.SequenceGeneratorLimitExceeded), conn.transaction():
            xact = conn.execute("SELECT '/' || encode(timestamptz_send(transaction_timestamp()), 'hex')").fetchone()[0]
            conn.execute(EXHAUSTED.replace("|| '/'", "|| %s"), [500, LAST_OF_ITS_MILLISECOND["ulid"], xact])
            conn.execute("SELECT ulid_portable.gen_monotonic_ulid()")


# ---- a setting the extension would refuse, left on a pooled backend -----------

BAD_SETTING = {
    "ulid.layout": ("'x'", ("22023", 'invalid value for parameter "ulid.layout": "x"',
                            "The default, ulid, is used instead.", "Available values: ulid, uuidv7.")),
    "ulid.monotonic_step": ("'two'", ("22023", 'invalid value for parameter "ulid.monotonic_step": "two"',
                                      "The default, random, is used instead.", "Available values: random, one.")),
}


def warnings_of(conn, sql: str) -> tuple[list, list[tuple]]:
    """The rows of SQL and the WARNINGs it raised."""
    seen: list[tuple] = []

    def handler(d):
        if d.severity_nonlocalized == "WARNING":
            seen.append((d.sqlstate, d.message_primary, d.message_detail, d.message_hint))
    conn.add_notice_handler(handler)
    try:
        rows = conn.execute(sql).fetchall()
    finally:
        conn.remove_notice_handler(handler)
    return rows, seen


@pytest.mark.parametrize("setting", BAD_SETTING)
def test_a_bad_setting_left_on_a_pooled_backend_is_the_default_with_a_warning(cluster, both, setting):
    """One client sets, for the session, a value the extension would refuse
    at SET (where it is not installed the setting is a placeholder that
    takes anything), and commits. Before, every later call of every client
    on that backend failed with 22023; now the next client's calls make
    values as under the default, each with a WARNING that says so, and the
    valid values work as before, with no warning."""
    value, warning = BAD_SETTING[setting]
    at = "'2025-01-01 12:34:56.789+00'::timestamptz"
    generators = f"""SELECT ulid_portable.gen_ulid()::text, ulid_portable.gen_ulid({at})::text,
                            ulid_portable.gen_monotonic_ulid()::text
                     FROM generate_series(1, 200)"""
    with cluster.connect(both, autocommit=True) as conn:
        with conn.transaction():
            conn.execute(f"SET {setting} = {value}")
        with conn.transaction():
            rows, warned = warnings_of(conn, generators)
    assert len(rows) == 200
    assert warned and set(warned) == {warning}
    made = [uuid.UUID(v).int for row in rows for v in row]
    # the default layout: not every value has a UUIDv7's version and variant
    # (for 600 values of random bits, all of them would be one chance in 2^3600)
    assert not all((v >> 76) & 0xF == 7 and (v >> 62) & 0x3 == 2 for v in made)
    assert all(uuid.UUID(row[1]).int >> 80 == 1735734896789 for row in rows)
    monotonic = [uuid.UUID(row[2]).int for row in rows]
    assert monotonic == sorted(set(monotonic))
    if setting == "ulid.monotonic_step":
        # the default step, at random from 1 to 2^32, not one
        steps = [b - a for a, b in zip(monotonic, monotonic[1:]) if a >> 80 == b >> 80]
        assert steps and any(s > 1 for s in steps)

    # the valid values, in any case, as before: no warning
    valid = {"ulid.layout": ["ulid", "UUIDv7", "uuidv7", ""], "ulid.monotonic_step": ["random", "One", "one", ""]}[setting]
    with cluster.connect(both, autocommit=True) as conn:
        for good in valid:
            conn.execute("SELECT set_config(%s, %s, false)", [setting, good])
            rows, warned = warnings_of(conn, generators)
            assert warned == [], (good, warned)
            made = [uuid.UUID(v).int for row in rows for v in row]
            v7 = [(v >> 76) & 0xF == 7 and (v >> 62) & 0x3 == 2 for v in made]
            assert all(v7) if good.lower() == "uuidv7" else not all(v7), good
            if setting == "ulid.monotonic_step":
                monotonic = [uuid.UUID(row[2]).int for row in rows]
                steps = [b - a for a, b in zip(monotonic, monotonic[1:]) if a >> 80 == b >> 80]
                assert all(s == 1 for s in steps) if good.lower() == "one" else any(s > 1 for s in steps), good


def test_a_bad_setting_the_next_clients_encoding_cannot_hold_fails_no_call(cluster, both):
    """One client leaves a bad value with a character outside ASCII; the
    next client on the backend reads in LATIN1, which has no euro sign.
    Before, the WARNING carried the value as it was, and every call of
    that client failed in the conversion (22P05); now the characters
    other than printable ASCII are shown as '?'."""
    with cluster.connect(both, autocommit=True) as conn:
        conn.execute("SET ulid.layout = '\u20acx'")
        conn.execute("SET client_encoding = 'LATIN1'")
        rows, warned = warnings_of(conn, "SELECT ulid_portable.gen_monotonic_ulid()::text, "
                                         "ulid_portable.gen_ulid()::text FROM generate_series(1, 3)")
    assert len(rows) == 3
    assert {w[1] for w in warned} == {'invalid value for parameter "ulid.layout": "?x"'}


def test_the_settings_read_the_same_under_a_turkish_collation(cluster):
    """In a database whose collation is Turkish, lower('UUIDv7') has a
    dotless i; PostgreSQL reads an enum setting with ASCII case folding, and
    so does the portable layer: 'UUIDv7' is uuidv7 there too, with no
    warning (before, it warned and took the ULID layout)."""
    if cluster.version < 15:
        pytest.skip("a database's default collation from ICU exists from PostgreSQL 15")
    name = "p_tr_" + uuid.uuid4().hex[:8]
    with cluster.connect(autocommit=True) as conn:
        if not conn.execute("SELECT count(*) FROM pg_collation WHERE collname = 'tr-TR-x-icu'").fetchone()[0]:
            pytest.skip(f"PostgreSQL {cluster.build} here has no ICU Turkish collation")
        conn.execute(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8' "
                     "LOCALE_PROVIDER icu ICU_LOCALE 'tr-TR'")
    try:
        install_portable(cluster, name)
        with cluster.connect(name, autocommit=True) as conn:
            assert conn.execute("SELECT lower('UUIDV7') <> 'uuidv7'").fetchone() == (True,)
            conn.execute("SET ulid.layout = 'UUIDV7'")
            rows, warned = warnings_of(conn, "SELECT ulid_portable.gen_ulid()::text FROM generate_series(1, 50)")
        assert warned == []
        assert all((uuid.UUID(v).int >> 76) & 0xF == 7 and (uuid.UUID(v).int >> 62) & 0x3 == 2 for v, in rows)
    finally:
        with cluster.connect(autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
