"""The portable layer's text, times and errors against the native type's.

A million random values (on the oldest and the newest build of a run; a
tenth of that on the others, which run the same SQL functions), set-based
in SQL: ulid_text(u) is u::ulid::text,
ulid_parse(t) is t::ulid::uuid for every input form the type reads (a fifth
of the values in each), ulid_timestamp(u) is ulid_timestamp(u::ulid). Then
bad input, a catalogue and generated: the same SQLSTATE, message, detail
and hint as the type's input function.
"""

from __future__ import annotations

import random
import re

import pytest

from harness.pgcluster import ends_of_run
from harness.vectors import input_of, vectors
from portable_layer import PORTABLE_SQL, all_at_once, errors_of, session

N = 1_000_000
# the builds that read and print all N
FULL_BUILDS = ends_of_run()

# the type's text input forms, each a SQL expression of the uuid u and the
# row number i (the case of hex digits and letters varies with i)
FORMS = {
    "ULID text": "u::native.ulid::text",
    "ULID text, lower case": "lower(u::native.ulid::text)",
    "ULID text, mixed case": "translate(u::native.ulid::text, 'ABCDEFGHJKMNPQRSTVWXYZ', "
                             "CASE WHEN i % 2 = 0 THEN 'aBcDeFgHjKmNpQrStVwXyZ' ELSE 'AbCdEfGhJkMnPqRsTvWxYz' END)",
    "\\x and 32 hex digits": "E'\\\\x' || CASE WHEN i % 2 = 0 THEN encode(uuid_send(u), 'hex') "
                             "ELSE upper(encode(uuid_send(u), 'hex')) END",
    "UUID text": "CASE WHEN i % 2 = 0 THEN u::text ELSE upper(u::text) END",
}


def test_a_million_values_read_and_print_as_the_type_does(cluster, both, build):
    """In a session whose settings would change how SQL reads a literal,
    prints a value or finds a name, as many as can be at once (all_at_once;
    the default session's answers are the same, test_portable_sessions.py)."""
    n = N if build in FULL_BUILDS else N // 10
    with session(cluster, both, all_at_once(cluster)) as pconn:
        assert read_and_print_a_million(pconn, n) == (n, n, n, n, 5)


def read_and_print_a_million(pconn, n: int) -> tuple:
    # all 128 bits random (md5), and the values at the ends of the range
    pconn.execute(f"""
        CREATE TEMP TABLE v AS
        SELECT i, md5(i::text || random()::text)::uuid AS u FROM generate_series(1, {n - 4}) i
        UNION ALL VALUES ({n - 3}, '00000000-0000-0000-0000-000000000000'::uuid),
                         ({n - 2}, 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
                         ({n - 1}, 'ffffffff-ffff-0000-0000-000000000000'),
                         ({n}, '00000000-0000-ffff-ffff-ffffffffffff')""")
    forms = list(FORMS.values())
    form_of = "CASE i % 5 " + " ".join(f"WHEN {k} THEN {form}" for k, form in enumerate(forms)) + " END"
    row = pconn.execute(f"""
        SELECT count(*),
               count(*) FILTER (WHERE ulid_portable.ulid_text(u) = u::native.ulid::text),
               count(*) FILTER (WHERE ulid_portable.ulid_parse(t) = t::native.ulid::uuid AND t::native.ulid::uuid = u),
               count(*) FILTER (WHERE ulid_portable.ulid_timestamp(u) = native.ulid_timestamp(u::native.ulid)),
               count(DISTINCT i % 5)
        FROM (SELECT i, u, {form_of} AS t FROM v) f""").fetchone()
    return row


def test_every_millisecond_boundary_and_range_bound_as_the_type(pconn):
    """ulid_from_timestamptz and ulid_timestamp at and around millisecond
    boundaries, across the whole range, and the range's ends."""
    row = pconn.execute("""
        WITH t AS (
            SELECT date_trunc('milliseconds', timestamptz '1970-01-01 00:00:00+00'
                              + random() * (timestamptz '10889-08-02 05:31:50.655+00' - timestamptz '1970-01-01 00:00:00+00'))
                   + k * interval '1 microsecond' AS t
            FROM generate_series(1, 20000), (VALUES (0), (1), (999)) k(k)
            UNION ALL VALUES (timestamptz '1970-01-01 00:00:00+00'), ('10889-08-02 05:31:50.655999+00'),
                             ('2025-01-01 00:00:00+00'), ('2024-02-29 23:59:59.999999+00')
        )
        SELECT count(*),
               count(*) FILTER (WHERE ulid_portable.ulid_from_timestamptz(t) = native.ulid_from_timestamptz(t)::uuid),
               count(*) FILTER (WHERE ulid_portable.ulid_timestamp(ulid_portable.ulid_from_timestamptz(t))
                                      = native.ulid_timestamp(t::native.ulid)),
               count(*) FILTER (WHERE ulid_portable.ulid_text(ulid_portable.ulid_from_timestamptz(t)) = t::native.ulid::text)
        FROM t""").fetchone()
    assert row == (60004,) * 4
    # in any session time zone
    pconn.execute("SET TimeZone = 'Asia/Kathmandu'")
    assert pconn.execute("""
        SELECT ulid_portable.ulid_text(ulid_portable.ulid_from_timestamptz('2025-01-01 05:45:00.0009+05:45')),
               ulid_portable.ulid_timestamp('01941f29-7c00-ec5e-7700-529006a71347')::text""").fetchone() == \
        ("01JGFJJZ000000000000000000", "2025-01-01 05:45:00+05:45")


def test_null_gives_null(pconn):
    assert pconn.execute("""
        SELECT ulid_portable.ulid_text(NULL), ulid_portable.ulid_parse(NULL), ulid_portable.ulid_timestamp(NULL),
               ulid_portable.ulid_from_timestamptz(NULL), ulid_portable.gen_ulid(NULL)""").fetchone() == (None,) * 5


# The bad texts of tests/vectors/ulid.json (whose words
# test_portable_vectors.py checks), here and in other sessions compared
# with the type's errors.
BAD_TEXT = [input_of(case) for case in vectors()["bad_text"]]


NATIVE = "$1::native.ulid::uuid"
PORTABLE = "ulid_portable.ulid_parse($1)"


def compare_errors(pconn, inputs, portable: str = PORTABLE):
    """Each input through the type's input function and through ulid_parse
    (PORTABLE, a call of $1): the same value, or the same SQLSTATE, message,
    detail and hint."""
    by_input: dict[int, dict[str, tuple]] = {}
    for n, call, outcome in errors_of(pconn, [NATIVE, portable], inputs):
        by_input.setdefault(n, {})[call] = outcome
    differ = [(inputs[n][:60], got) for n, got in by_input.items() if got[NATIVE] != got[portable]]
    assert not differ, differ[:5]
    assert len(by_input) == len(inputs)
    return {n: got[NATIVE] for n, got in by_input.items()}


def test_bad_text_is_the_types_error(pconn):
    by_input = compare_errors(pconn, BAD_TEXT)
    codes = {got[0] for got in by_input.values()}
    assert codes == {"22P02"}, codes
    hinted = sum(1 for got in by_input.values() if got[3])
    assert 0 < hinted < len(BAD_TEXT)  # some errors carry a hint, some do not


def test_text_of_a_nondeterministic_collation_reads_as_the_type_reads_it(pconn):
    """A column of a case-insensitive collation passed to ulid_parse: the
    same values and errors as the type's input, which takes no collation
    (a regular expression or substring search under that collation would
    fail, and E'\\\\X' would equal E'\\\\x')."""
    # (initdb imports ICU's locales, und-x-icu among them, only where the server has ICU; from 16
    # on, the catalog has an ICU collation, unicode, whether it has or not)
    if not pconn.execute("SELECT count(*) FROM pg_collation WHERE collname = 'und-x-icu'").fetchone()[0]:
        pytest.skip("this build has no ICU, so no nondeterministic collation")
    pconn.execute("CREATE COLLATION IF NOT EXISTS ulid_ci (provider = icu, locale = 'und-u-ks-level2', "
                  "deterministic = false)")
    good = ["01ARZ3NDEKTSV4RRFFQ69G5FAV", "01arz3ndektsv4rrffq69g5fav", "\\x0157e3caee9e0ed8e1c3e0e9b2fb0bf2",
            "\\X0157E3CAEE9E0ED8E1C3E0E9B2FB0BF2", "0157e3ca-ee9e-0ed8-e1c3-e0e9b2fb0bf2",
            "0157E3CA-EE9E-0ED8-E1C3-E0E9B2FB0BF2"]
    by_input = compare_errors(pconn, good + BAD_TEXT, "ulid_portable.ulid_parse($1 COLLATE ulid_ci)")
    # the control: the good forms are read, "\X" is not
    assert [by_input[n][0] for n in range(len(good))] == ["accepted"] * 3 + ["22P02"] + ["accepted"] * 2


def mutate(rng: random.Random, text: str) -> str:
    """A valid text with one or two things wrong: a character replaced,
    inserted or removed, or the case of one letter changed."""
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefIiLlOoUu-x\\{} \t\né€😀\u0301\u200bО"
    chars = list(text)
    for _ in range(rng.choice((1, 1, 2))):
        kind = rng.randrange(4)
        at = rng.randrange(len(chars) + (kind == 1))
        if kind == 0 and chars:
            chars[at % len(chars)] = rng.choice(alphabet)
        elif kind == 1:
            chars.insert(at, rng.choice(alphabet))
        elif kind == 2 and chars:
            del chars[at % len(chars)]
        elif chars:
            chars[at % len(chars)] = chars[at % len(chars)].swapcase()
    return "".join(chars)


def test_generated_bad_text_is_the_types_error(pconn):
    """Three thousand texts close to valid ones of each form: whatever the
    type accepts the layer accepts with the same value, and whatever it
    refuses the layer refuses with the same error."""
    rng = random.Random(20250101)
    valid = [r[0] for r in pconn.execute("""
        SELECT t FROM (SELECT md5(i::text)::uuid u, i FROM generate_series(1, 1000) i) s,
             LATERAL (VALUES (u::native.ulid::text), ('\\x' || encode(uuid_send(u), 'hex')), (u::text)) f(t)
        WHERE i % 3 = 0 OR random() < 0.34""")]
    inputs = [mutate(rng, rng.choice(valid)) for _ in range(3000)]
    by_input = compare_errors(pconn, inputs)
    accepted = sum(1 for got in by_input.values() if got[0] == "accepted")
    assert 0 < accepted < len(inputs) / 2, accepted


def escaped_ranges() -> list[tuple[int, int]]:
    """The ranges of code points the layer shows escaped, read from the file."""
    sql = PORTABLE_SQL.read_text()
    start = sql.index("escaped CONSTANT pg_catalog.int4[] :=")
    table = "".join(re.findall(r"'([0-9,{}]+)'", sql[start:sql.index(";", start)])).strip("{}")
    bounds = [int(b) for b in table.split(",")]
    return list(zip(bounds[::2], bounds[1::2]))


def test_every_character_is_shown_as_the_type_shows_it(pconn):
    """The DETAIL names a bad character as the type does, escapes included,
    for each code point below U+0300, at each end of every range the layer
    escapes and one past it, and a thousand more at random."""
    ranges = escaped_ranges()
    assert len(ranges) > 500 and ranges[0] == (0, 0x1F)
    rng = random.Random(7)
    points = set(range(1, 0x300)) | {rng.randrange(1, 0x110000) for _ in range(1000)}
    points |= {p for a, b in ranges for p in (a - 1, a, b, b + 1)}
    points = sorted(p for p in points if 0 < p < 0x110000 and not 0xD800 <= p < 0xE000)
    # the character last in a text of 26 characters: "Invalid character X at position 26"
    inputs = ["01JGFJJZ00XHF7E02JJ03AE4T" + chr(p) for p in points]
    by_input = compare_errors(pconn, inputs)
    escaped = sum(1 for got in by_input.values() if got[0] == "22P02" and "\\u{" in (got[2] or ""))
    assert escaped > 1000, escaped
