"""The portable layer where it is meant to run: a server of this build with
ulid's files moved away (the `swap` fixture puts them back), installed and
used by ordinary roles that are not superusers, under a search_path that
puts a schema of traps before pg_catalog: a function of the same name and
argument types for every function the file calls, an operator for every
operator it uses, a domain for every type it names. Anything the file
left unqualified would resolve to a trap, which raises."""

from __future__ import annotations

import re
import subprocess
import uuid
from datetime import datetime, timezone

import psycopg
import pytest

from harness.pgcluster import Cluster
from portable_layer import PORTABLE_SQL, has_pgcrypto, install_portable

HOSTILE = "-c search_path=traps,pg_catalog,public"
OPERATORS = ["=", "<>", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "||", "<<", ">>", "&", "|", "~", "!~"]
TYPES = ["text", "uuid", "bytea", "bool", "int2", "int4", "int8", "bit", "varbit", "timestamptz", "timestamp",
         "interval", "float8", "numeric"]
# FIPS-197, appendix C: the plaintext 00112233445566778899aabbccddeeff under
# the keys 000102...0f, ...17 and ...1f
FIPS_197 = {
    16: "69c4e0d8-6a7b-0430-d8cd-b78070b4c55a",
    24: "dda97ca4-864c-dfe0-6eaf-70a0ec0d7191",
    32: "8ea2b7ca-5167-45bf-eafc-49904b496089",
}


@pytest.fixture(scope="module")
def plain(pg_build, swap):
    """A cluster of this build that has no ulid: its files are moved away
    for this module."""
    swap.remove()
    server = Cluster(pg_build, "plain", slot=61).start_empty()
    try:
        yield server
    finally:
        server.stop()
        server.destroy()


def called_names() -> set[str]:
    return set(re.findall(r"\b([a-z_][a-z0-9_]*)\s*\(", PORTABLE_SQL.read_text()))


def plant_traps(conn) -> int:
    """Schema `traps`: a twin that raises for every function of pg_catalog
    the file calls (by name, every overload without pseudo-types), every
    operator it could use, and a domain named after every type. Returns how
    many objects were planted."""
    pseudo = "(SELECT oid FROM pg_type WHERE typtype = 'p')"
    functions = conn.execute(f"""
        SELECT p.proname, pg_get_function_identity_arguments(p.oid), format_type(p.prorettype, NULL)
        FROM pg_proc p
        WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.prokind = 'f' AND NOT p.proretset
          AND p.proname = ANY(%s) AND p.prorettype NOT IN {pseudo}
          AND NOT EXISTS (SELECT FROM unnest(p.proargtypes) t WHERE t IN {pseudo})""",
        [sorted(called_names())]).fetchall()
    operators = conn.execute(f"""
        SELECT o.oprname, format_type(o.oprleft, NULL), format_type(o.oprright, NULL), format_type(o.oprresult, NULL)
        FROM pg_operator o
        WHERE o.oprnamespace = 'pg_catalog'::regnamespace AND o.oprkind = 'b' AND o.oprname = ANY(%s)
          AND o.oprleft NOT IN {pseudo} AND o.oprright NOT IN {pseudo} AND o.oprresult NOT IN {pseudo}""",
        [OPERATORS]).fetchall()
    ddl = ["CREATE SCHEMA traps", "GRANT USAGE ON SCHEMA traps TO PUBLIC"]
    for name, args, result in functions:
        ddl.append(f"""CREATE FUNCTION traps.{name}({args}) RETURNS {result} LANGUAGE plpgsql
                       AS $$BEGIN RAISE EXCEPTION 'search_path trap: %', 'function {name}({args})'; END$$""")
    for k, (name, left, right, result) in enumerate(operators):
        ddl.append(f"""CREATE FUNCTION traps.operator_{k}({left}, {right}) RETURNS {result} LANGUAGE plpgsql
                       AS $$BEGIN RAISE EXCEPTION 'search_path trap: %', 'operator {left} {name} {right}'; END$$""")
        ddl.append(f"CREATE OPERATOR traps.{name} (LEFTARG = {left}, RIGHTARG = {right}, FUNCTION = traps.operator_{k})")
    ddl += [f"CREATE DOMAIN traps.{name} AS pg_catalog.point" for name in TYPES]
    conn.execute(";\n".join(ddl))
    return len(functions) + len(operators) + len(TYPES)


@pytest.fixture(scope="module")
def appdb(plain):
    """Databases with the traps, and roles: `app`, which may create schemas
    in appdb, and `app2`, which may not create any in appdb2, where an
    administrator made the schema ulid_portable for it."""
    with plain.connect() as conn:
        for role in ("app", "app2"):
            conn.execute(f"DROP ROLE IF EXISTS {role}")
            conn.execute(f"CREATE ROLE {role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE")
    plain.create_database("traps", extension=False)
    with plain.connect("traps") as conn:
        planted = plant_traps(conn)
        assert planted > 300, planted
    with plain.connect() as conn:
        for name in ("appdb", "appdb2"):
            conn.execute(f"CREATE DATABASE {name} TEMPLATE traps")
    with plain.connect("appdb") as conn:
        conn.execute("GRANT CREATE ON DATABASE appdb TO app")
    with plain.connect("appdb2") as conn:
        conn.execute("CREATE SCHEMA ulid_portable")
        conn.execute("GRANT USAGE, CREATE ON SCHEMA ulid_portable TO app2")
    return "appdb"


def hostile(plain, dbname: str, user: str) -> psycopg.Connection:
    return psycopg.connect(plain.conninfo(dbname, user=user), options=HOSTILE, autocommit=True)


def test_the_server_has_no_ulid(plain):
    with plain.connect() as conn:
        assert conn.execute("SELECT count(*) FROM pg_available_extensions WHERE name = 'ulid'").fetchone() == (0,)
        with pytest.raises(psycopg.Error, match=r"ulid\.control|extension \"ulid\" is not available") as raised:
            conn.execute("CREATE EXTENSION ulid")
        # 58P01 up to PostgreSQL 15, 0A000 from 16 on
        assert raised.value.sqlstate in ("58P01", "0A000")


def test_the_traps_spring(plain, appdb):
    """The control: unqualified names under this search_path do hit them."""
    with hostile(plain, appdb, "app") as conn:
        for sql in ("SELECT substr('abc', 1, 1)", "SELECT 'a'::pg_catalog.text || 'b'::pg_catalog.text",
                    "SELECT 1::pg_catalog.int8 + 1::pg_catalog.int8", "SELECT encode('\\x00'::pg_catalog.bytea, 'hex')"):
            with pytest.raises(psycopg.errors.RaiseException, match="search_path trap"):
                conn.execute(sql)
        with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="type point"):
            conn.execute("SELECT 'a'::text")


def values_of(conn) -> dict:
    """Everything the layer does, each result as text, under the session's search_path."""
    q = lambda sql, *args: conn.execute(sql, args or None).fetchone()[0]  # noqa: E731
    spec = "01941f29-7c00-ec5e-7700-529006a71347"
    out = {
        "text": q("SELECT ulid_portable.ulid_text(%s::pg_catalog.uuid)", spec),
        "parse": [q("SELECT ulid_portable.ulid_parse(%s)::pg_catalog.text", t)
                  for t in ("01jgfjjz00xhf7e02jj03ae4t7", "\\x01941F297C00EC5E7700529006A71347", spec.upper())],
        "timestamp": q("SELECT ulid_portable.ulid_timestamp(%s::pg_catalog.uuid)", spec),
        "bound": q("SELECT ulid_portable.ulid_from_timestamptz('2025-01-01 00:00:00.0009+00')::pg_catalog.text"),
        "at": q("SELECT ulid_portable.ulid_timestamp(ulid_portable.gen_ulid('2025-01-01 12:34:56.789999+00'))"),
        "now": q("SELECT ulid_portable.gen_ulid()::pg_catalog.text"),
        "monotonic": [v for v, in conn.execute(
            "SELECT ulid_portable.gen_monotonic_ulid()::pg_catalog.text FROM pg_catalog.generate_series(1, 2000)")],
    }
    conn.execute("SET ulid.layout = uuidv7")
    out["v7"] = [q("SELECT ulid_portable.gen_ulid()::pg_catalog.text"),
                 q("SELECT ulid_portable.gen_monotonic_ulid()::pg_catalog.text"),
                 q("SELECT ulid_portable.gen_monotonic_ulid()::pg_catalog.text")]
    conn.execute("SET ulid.layout = ulid")
    errors = {}
    for sql in ("SELECT ulid_portable.ulid_parse('01JGFJJZ00XHF7E02JJ03AE4T' OPERATOR(pg_catalog.||) pg_catalog.chr(173))",
                "SELECT ulid_portable.ulid_parse('01941f29-7c00-ec5e-7700-529006a7134')",
                "SELECT ulid_portable.ulid_parse('\\x0194')",
                "SELECT ulid_portable.ulid_parse('81JGFJJZ00XHF7E02JJ03AE4T7')",
                "SELECT ulid_portable.gen_ulid('infinity')",
                "SELECT ulid_portable.ulid_encrypt(ulid_portable.gen_ulid(), '\\x00')"):
        try:
            conn.execute(sql)
            errors[sql] = "no error"
        except psycopg.Error as error:
            errors[sql] = (error.sqlstate, error.diag.message_primary, error.diag.message_detail)
    conn.execute("SET ulid.layout = bogus")
    try:
        conn.execute("SELECT ulid_portable.gen_ulid()")
    except psycopg.Error as error:
        errors["layout"] = (error.sqlstate, error.diag.message_primary, error.diag.message_hint)
    conn.execute("RESET ulid.layout")
    out["errors"] = errors
    return out


def check_values(out: dict, pgcrypto: bool) -> None:
    assert out["text"] == "01JGFJJZ00XHF7E02JJ03AE4T7"
    assert out["parse"] == ["01941f29-7c00-ec5e-7700-529006a71347"] * 3
    assert out["timestamp"] == datetime(2025, 1, 1, tzinfo=timezone.utc)
    assert out["bound"] == "01941f29-7c00-0000-0000-000000000000"
    assert out["at"] == datetime(2025, 1, 1, 12, 34, 56, 789000, tzinfo=timezone.utc)
    now = uuid.UUID(out["now"]).int >> 80
    assert abs(now - datetime.now(timezone.utc).timestamp() * 1000) < 600_000
    assert out["monotonic"] == sorted(set(out["monotonic"])) and len(out["monotonic"]) == 2000
    assert all(uuid.UUID(v).version == 7 for v in out["v7"]) and out["v7"][1] < out["v7"][2]
    errors = list(out["errors"].values())
    assert not [e for e in errors if e[0] == "P0001"], errors
    assert errors[0] == ("22P02", 'invalid input syntax for type ulid: "01JGFJJZ00XHF7E02JJ03AE4T\u00ad"',
                         'Invalid character "\\u{ad}" at position 26.')
    assert errors[1] == ("22P02", 'invalid input syntax for type ulid: "01941f29-7c00-ec5e-7700-529006a7134"',
                         "Expected 36 characters in the UUID form, found 35.")
    assert errors[2][0] == "22P02" and errors[2][2] == 'Expected 32 hexadecimal digits after "\\x", found 4.'
    assert errors[3][2] == 'The first character is "8", above "7": the value would not fit in 128 bits.'
    assert errors[4][:2] == ("22008", "timestamp out of range for ulid")
    if pgcrypto:
        assert errors[5] == ("22023", "invalid key length for ulid_encrypt and ulid_decrypt: 1 byte",
                             "The key is 16, 24 or 32 bytes: AES-128, AES-192 or AES-256.")
    else:
        assert errors[5][0] == "55000" and "needs the extension pgcrypto" in errors[5][1]
    assert errors[6] == ("22023", 'invalid value for parameter "ulid.layout": "bogus"', "Available values: ulid, uuidv7.")


@pytest.mark.parametrize("user, dbname", [("app", "appdb"), ("app2", "appdb2")])
def test_an_ordinary_role_installs_and_uses_it_under_a_hostile_search_path(plain, appdb, user, dbname):
    install_portable(plain, dbname, user=user, options=HOSTILE)
    # and again: the file can be run over an earlier install of itself
    install_portable(plain, dbname, user=user, options=HOSTILE)
    with hostile(plain, dbname, user) as conn:
        assert conn.execute("SELECT pg_catalog.current_setting('search_path')").fetchone() == ("traps,pg_catalog,public",)
        assert not conn.execute("SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) current_user").fetchone()[0]
        check_values(values_of(conn), pgcrypto=False)
        # everything it made is in its schema
        outside = conn.execute("""
            SELECT pg_catalog.pg_describe_object(classid, objid, 0) FROM pg_catalog.pg_shdepend
            WHERE refobjid OPERATOR(pg_catalog.=) (SELECT oid FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) current_user)
              AND deptype OPERATOR(pg_catalog.=) 'o'
              AND dbid OPERATOR(pg_catalog.=) (SELECT oid FROM pg_catalog.pg_database WHERE datname OPERATOR(pg_catalog.=) current_database())""").fetchall()
        made = [r[0] for r in outside]
        assert made and all(m.startswith("function ulid_portable.") or m == "schema ulid_portable" for m in made), made


def test_public_ids_once_pgcrypto_is_there(plain, appdb, pg_build):
    """An ordinary role creates pgcrypto (a trusted extension) in a schema of
    its own, runs the file again, and gets AES as FIPS-197 gives it."""
    with plain.connect(appdb) as conn:
        if not has_pgcrypto(conn):
            pytest.skip(f"PostgreSQL {pg_build} here has no pgcrypto (contrib): the builds that have it "
                        "check the portable public ids")
    with hostile(plain, appdb, "app") as conn:
        conn.execute("CREATE SCHEMA app_crypto")
        conn.execute("CREATE EXTENSION pgcrypto SCHEMA app_crypto")
    install_portable(plain, appdb, user="app", options=HOSTILE)
    with hostile(plain, appdb, "app") as conn:
        for length, expected in FIPS_197.items():
            key = bytes(range(length))
            got = conn.execute("SELECT ulid_portable.ulid_encrypt('00112233-4455-6677-8899-aabbccddeeff', %s)::pg_catalog.text",
                               [key]).fetchone()[0]
            assert got == expected, length
            back = conn.execute("SELECT ulid_portable.ulid_decrypt(%s::pg_catalog.uuid, %s)::pg_catalog.text",
                                [expected, key]).fetchone()[0]
            assert back == "00112233-4455-6677-8899-aabbccddeeff"
        check_values(values_of(conn), pgcrypto=True)


def test_the_file_runs_in_a_transaction_as_a_migration_would(plain, appdb):
    """Pasted into a migration: one transaction, which leaves nothing behind
    when it is rolled back."""
    plain.create_database("migration", extension=False)
    with plain.connect("migration") as conn:
        conn.execute("GRANT CREATE ON DATABASE migration TO app")
    env = plain.env()
    env.update(PGDATABASE="migration", PGUSER="app", PGOPTIONS=HOSTILE)
    result = subprocess.run([str(plain.bindir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1"],
                            input="BEGIN;\n" + PORTABLE_SQL.read_text() + "\nSELECT ulid_portable.gen_ulid();\nROLLBACK;\n",
                            env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    with plain.connect("migration") as conn:
        assert conn.execute("SELECT to_regnamespace('ulid_portable')").fetchone() == (None,)
