"""The test vectors, tests/vectors/ulid.json (the Rust crates read it too; its "about" says what each section
holds), and the checks on them of an SQL implementation, the native type's (tests/server) or the portable
layer's (tests/portable): a dict of SQL templates, `{id}` a value of its id type, `$1` (and `$2`) the parameters."""

from __future__ import annotations

import json
from functools import cache

from harness.pgcluster import ROOT


@cache
def vectors() -> dict:
    return json.loads((ROOT / "tests" / "vectors" / "ulid.json").read_text(encoding="utf-8"))


def input_of(case: dict) -> str:
    """A bad text's input: given, or `repeat: [text, n]`."""
    if "repeat" in case:
        text, times = case["repeat"]
        return text * times
    return case["input"]


def query(conn, sql: str, args: list):
    """Runs SQL, its parameters written $1, $2, ... as in the templates, with ARGS; the cursor."""
    for n in range(len(args), 0, -1):
        sql = sql.replace(f"${n}", f"%(a{n})s")
    return conn.execute(sql, {f"a{n}": arg for n, arg in enumerate(args, 1)})


def outcomes(conn, calls: list[str], inputs: list) -> list[tuple]:
    """(input's index, call, outcome) for each call (SQL of $1) on each input, looped in the server; outcome:
    the error's SQLSTATE, message, detail and hint (None if empty), or ('accepted', text)."""
    conn.execute("DROP TABLE IF EXISTS pg_temp.error_cases, pg_temp.error_outcomes")
    conn.execute("CREATE TEMP TABLE error_cases (n int, input text)")
    conn.execute("CREATE TEMP TABLE error_outcomes (n int, call int, outcome text[])")
    with conn.cursor().copy("COPY error_cases (n, input) FROM STDIN") as copy:
        for n, value in enumerate(inputs):
            copy.write_row((n, value))
    for k, call in enumerate(calls):
        conn.execute(f"""
            DO $$
            DECLARE c record; result text; st text; msg text; det text; hnt text;
            BEGIN
                FOR c IN SELECT n, input FROM pg_temp.error_cases LOOP
                    BEGIN
                        result := ({call.replace("$1", "c.input")})::text;
                        INSERT INTO pg_temp.error_outcomes VALUES (c.n, {k}, ARRAY['accepted', result]);
                    EXCEPTION WHEN OTHERS THEN
                        GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                                                det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
                        INSERT INTO pg_temp.error_outcomes
                            VALUES (c.n, {k}, ARRAY[st, msg, nullif(det, ''), nullif(hnt, '')]);
                    END;
                END LOOP;
            END $$""")
    rows = conn.execute("SELECT n, call, outcome FROM pg_temp.error_outcomes ORDER BY n, call").fetchall()
    return [(n, calls[k], tuple(outcome)) for n, k, outcome in rows]


def check_values(conn, impl: dict, version: int) -> int:
    """Every input of every value reads as it and prints as its ULID, UUID and hex, with its millisecond."""
    v7 = ("pg_catalog.uuid_extract_version({u}) IS NOT DISTINCT FROM 7" if version >= 17 else
          "get_byte(uuid_send({u}), 6) >> 4 = 7 AND get_byte(uuid_send({u}), 8) >> 6 = 2")
    value = impl["read"]
    u = impl["uuid"].format(id=value)
    sql = f"""
        SELECT {impl['text'].format(id=value)}, ({u})::text, '\\x' || encode(uuid_send({u}), 'hex'),
               (extract(epoch FROM {impl['timestamp'].format(id=value)}) * 1000)::bigint, {v7.format(u=u)}"""
    cases = vectors()["values"]
    for case in cases:
        for text in case["inputs"]:
            row = query(conn, sql, [text]).fetchone()
            assert row == (case["ulid"], case["uuid"], case["hex"], case["unix_ms"], case["uuidv7"]), text
    return sum(len(case["inputs"]) for case in cases)


def check_bad_text(conn, impl: dict) -> int:
    """Every bad text is refused with the type's SQLSTATE, message, DETAIL and HINT."""
    cases, error = vectors()["bad_text"], vectors()["bad_text_error"]
    inputs = [input_of(case) for case in cases]
    got = outcomes(conn, [impl["read_text"]], inputs)
    assert len(got) == len(cases)
    wrong = []
    for (n, _, outcome), case, text in zip(got, cases, inputs):
        expected = (error["sqlstate"], error["message"].replace("{input}", text), case["detail"], case["hint"])
        if outcome != expected:
            wrong.append((text[:40], outcome[:1] + tuple(o and o[:120] for o in outcome[1:]), expected[2:]))
    assert not wrong, wrong[:5]
    return len(cases)


def check_times(conn, impl: dict) -> int:
    """Each call of impl['from_time'] (SQL of $1, a timestamptz literal) gives every time the smallest id of
    its millisecond, and refuses every time no ULID holds with the range error."""
    v = vectors()
    times = v["times"]
    for case in times:
        # the literal is the instant the vector says
        assert query(conn, "SELECT $1::timestamptz = timestamptz 'epoch' + $2 * interval '1 microsecond'",
                            [case["timestamptz"], case["unix_us"]]).fetchone() == (True,) or \
            case["unix_us"] >= 2 ** 53, case
    calls = impl["from_time"]
    got = outcomes(conn, calls, [case["timestamptz"] for case in times])
    for n, call, outcome in got:
        assert outcome == ("accepted", impl["time_result"](times[n]["ulid"])), (call, times[n], outcome)
    bad, err = v["bad_times"], v["time_error"]
    got = outcomes(conn, calls, [case["timestamptz"] for case in bad])
    assert len(got) == len(bad) * len(calls)
    for n, call, outcome in got:
        assert outcome == (err["sqlstate"], err["message"], err["detail"], None), (call, bad[n], outcome)
    return len(times) + len(bad)


def check_public_ids(conn, impl: dict) -> int:
    """Public ids encrypt and decrypt as the vectors say; bad keys are refused with their message."""
    v = vectors()
    for case in v["public_ids"]:
        row = query(conn, f"""
            SELECT {impl['text'].format(id=impl['encrypt'].format(id=impl['read']))},
                   {impl['text'].format(id=impl['decrypt'].format(id=impl['read'].replace('$1', '$3')))}""",
                           [case["ulid"], case["key"], case["public"]]).fetchone()
        assert row == (case["public"], case["ulid"]), case
    err = v["key_error"]
    some_id = impl["read"].replace("$1", "'01JGFJJZ00XHF7E02JJ03AE4T7'")
    calls = [impl[f].format(id=some_id).replace("$2", "$1") for f in ("encrypt", "decrypt")]
    got = outcomes(conn, calls, [case["key"] for case in v["bad_keys"]])
    assert len(got) == 2 * len(v["bad_keys"])
    for n, call, outcome in got:
        case = v["bad_keys"][n]
        assert outcome == (err["sqlstate"], case["message"], err["detail"], None), (call, case, outcome)
    return len(v["public_ids"]) + len(v["bad_keys"])
