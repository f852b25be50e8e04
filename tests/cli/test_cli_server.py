"""The command-line tool, `ulid-tool`, against the extension in a real
server: for the same values, `ulid-tool parse` prints what the type's casts
give (ULID text, uuid, bytea, ulid_timestamp), `bounds`, `from-time` and
`new --time` agree with `timestamptz::ulid` and `ulid_timestamp`,
`validate` gives the DETAIL of the type's own error, and
`encrypt`/`decrypt` equal `ulid_encrypt`/`ulid_decrypt`. The ids reach the
tool the way users pipe them: `psql -At ... | ulid-tool parse`."""

from __future__ import annotations

import os
import subprocess

import psycopg
import pytest

from harness.cli import ulid, ulid_binary
from harness.vectors import input_of, vectors

# the tool and the type's casts are the same Rust codec on every version (tests/conftest.py)
pytestmark = pytest.mark.same_on_every_version

# every column of `ulid-tool parse --format tsv`, as the server computes it
SERVER_FIELDS = """
    id::text,
    id::uuid::text,
    id::bytea::text,
    to_char(ulid_timestamp(id) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    round(extract(epoch FROM ulid_timestamp(id)) * 1000)::bigint::text,
    encode(substring(id::bytea FROM 7), 'hex'),
    {uuidv7}
"""
# whether a value is a UUIDv7: core's own reading from PostgreSQL 17, which
# answers NULL for a variant other than RFC 9562's
UUIDV7_CORE = "coalesce(uuid_extract_version(id::uuid) = 7, false)::text"
UUIDV7_TEXT = ("(substr(id::uuid::text, 15, 1) = '7' "
               "AND substr(id::uuid::text, 20, 1) IN ('8', '9', 'a', 'b'))::text")


def fill(conn) -> int:
    """A table of ids from every source: both generators in both layouts,
    the ends of the range, and random bytes drawn here."""
    conn.execute("CREATE TABLE ids (n serial, id ulid)")
    conn.execute("""INSERT INTO ids (id)
        SELECT gen_ulid() FROM generate_series(1, 100)
        UNION ALL SELECT gen_monotonic_ulid() FROM generate_series(1, 100)
        UNION ALL SELECT gen_ulid('2000-02-29 23:59:59.999+00') FROM generate_series(1, 20)
        UNION ALL VALUES ('00000000000000000000000000'::ulid), ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ'),
                         ('01JGFJJZ00XHF7E02JJ03AE4T7')""")
    conn.execute("SET ulid.layout = uuidv7")
    conn.execute("""INSERT INTO ids (id)
        SELECT gen_ulid() FROM generate_series(1, 50)
        UNION ALL SELECT gen_monotonic_ulid() FROM generate_series(1, 50)""")
    conn.execute("RESET ulid.layout")
    with conn.cursor().copy("COPY ids (id) FROM STDIN") as copy:
        for _ in range(300):
            copy.write_row(["\\x" + os.urandom(16).hex()])
    return conn.execute("SELECT count(*) FROM ids").fetchone()[0]


def test_parse_prints_what_the_casts_give(cluster, db, major):
    with cluster.connect(db) as conn:
        count = fill(conn)
    uuidv7 = UUIDV7_CORE if major >= 17 else UUIDV7_TEXT
    expected = cluster.run(
        "psql", "-d", db, "-X", "-At", "-F", "\t",
        "-c", f"SELECT {SERVER_FIELDS.format(uuidv7=uuidv7)} FROM ids ORDER BY n").stdout
    assert len(expected.splitlines()) == count
    # the same ids in each of the type's three text forms, straight from psql
    for form in ("id::text", "id::uuid::text", "id::bytea::text"):
        psql = subprocess.Popen(
            [str(cluster.bindir / "psql"), "-d", db, "-X", "-At", "-c", f"SELECT {form} FROM ids ORDER BY n"],
            env=cluster.env(), stdout=subprocess.PIPE)
        parsed = subprocess.run([str(ulid_binary()), "parse", "--format", "tsv"], stdin=psql.stdout,
                                capture_output=True, text=True)
        psql.stdout.close()
        assert psql.wait() == 0
        assert parsed.returncode == 0, parsed.stderr
        assert parsed.stdout == expected, form
    # some are UUIDv7s and some are not, by both readings
    flags = [line.rsplit("\t", 1)[1] for line in expected.splitlines()]
    assert flags.count("true") >= 100 and flags.count("false") >= 200


def test_times_agree_with_the_casts(conn):
    times = ["1970-01-01 00:00:00+00", "2000-02-29 23:59:59.999+00", "2025-01-01 12:00:00.5+00",
             "2025-06-30 23:59:59.9999+02", "10889-08-02 05:31:50.655+00"]
    for time in times:
        bound, ms = conn.execute(
            "SELECT %s::timestamptz::ulid::text, "
            "round(extract(epoch FROM %s::timestamptz::ulid::timestamptz) * 1000)::bigint",
            [time, time]).fetchone()
        # psql prints a timestamptz as the tool reads it, and Unix ms too
        shown = conn.execute("SELECT %s::timestamptz::text", [time]).fetchone()[0]
        if not shown.startswith("10889"):  # RFC 3339 has four-digit years
            assert ulid("bounds", shown).stdout == bound + "\n", time
        assert ulid("bounds", str(ms)).stdout == bound + "\n", time
        if not shown.startswith("10889"):  # the last millisecond has none after it
            # the range of one millisecond: up to the next one's cast
            after = conn.execute("SELECT (%s::timestamptz + interval '1 millisecond')::ulid::text",
                                 [time]).fetchone()[0]
            assert ulid("bounds", str(ms), shown).stdout == f"{bound}\n{after}\n", time
        for made in (ulid("new", "5", "--time", str(ms), "--monotonic").stdout.split(),
                     ulid("from-time", str(ms), "5").stdout.split()):
            stamps = conn.execute("SELECT array_agg(ulid_timestamp(id::ulid) = ulid_timestamp(%s::ulid)) "
                                  "FROM unnest(%s::text[]) AS id", [bound, made]).fetchone()[0]
            assert stamps == [True] * 5, time
    # a time no ULID holds: the server's 22008, the tool's exit status 2
    with pytest.raises(psycopg.errors.DatetimeFieldOverflow) as raised:
        conn.execute("SELECT '1969-12-31 23:59:59.999+00'::timestamptz::ulid")
    refused = ulid("bounds", "1969-12-31T23:59:59.999Z", check=False)
    assert refused.returncode == 2
    assert refused.stderr == f"ulid-tool: timestamp out of range for ulid: {raised.value.diag.message_detail}\n"


def test_validate_says_what_the_type_says(conn):
    # the bad texts of tests/vectors/ulid.json short enough for an argument
    texts = [text for text in map(input_of, vectors()["bad_text"]) if len(text) <= 4096]
    assert len(texts) > 50
    for text in texts:
        with pytest.raises(psycopg.errors.InvalidTextRepresentation) as raised:
            conn.execute("SELECT %s::ulid", [text])
        detail, hint = raised.value.diag.message_detail, raised.value.diag.message_hint
        checked = ulid("validate", "--", text, check=False)
        assert checked.returncode == 1, text
        said = f": {detail} ({hint})\n" if hint else f": {detail}\n"
        assert checked.stderr.endswith(said), (text, checked.stderr, said)
    good = conn.execute("SELECT array_agg(gen_ulid()::text) FROM generate_series(1, 10)").fetchone()[0]
    assert ulid("validate", *good).returncode == 0


def hex_of(text: str) -> str:
    """The hex form of a ULID text (Crockford base32, 130 bits)."""
    value = 0
    for c in text:
        value = value << 5 | "0123456789ABCDEFGHJKMNPQRSTVWXYZ".index(c)
    return f"\\x{value:032x}"


def test_encrypt_equals_ulid_encrypt(conn, tmp_path):
    # the public ids of tests/vectors/ulid.json (FIPS-197's among them), and
    # random ids under random keys
    cases = [(bytes.fromhex(case["hex"][2:]), bytes.fromhex(case["key"]))
             for case in ({**c, "hex": hex_of(c["ulid"])} for c in vectors()["public_ids"])]
    cases += [(os.urandom(16), os.urandom(n)) for n in (16, 24, 32) for _ in range(3)]
    for plain, key in cases:
        path = tmp_path / "key"
        path.write_bytes(key)
        path.chmod(0o600)  # a key file others may read is refused
        ids = ["\\x" + plain.hex()] + [ulid("new").stdout.strip() for _ in range(2)]
        server = conn.execute(
            "SELECT array_agg(ulid_encrypt(id::ulid, %s)::text ORDER BY o) FROM unnest(%s::text[]) "
            "WITH ORDINALITY AS t(id, o)", [key, ids]).fetchone()[0]
        assert ulid("encrypt", *ids, "--key-file", str(path)).stdout.split() == server
        assert ulid("decrypt", *server, "--key-hex", key.hex(), "--format", "hex").stdout.split()[0] \
            == "\\x" + plain.hex()
