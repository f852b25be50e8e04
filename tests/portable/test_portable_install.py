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
from portable_layer import PORTABLE_SQL, install_portable
from ulidtools.project import VERSION

HOSTILE = "-c search_path=traps,pg_catalog,public"
# FIPS-197, appendix C: the plaintext 00112233445566778899aabbccddeeff under
# the keys 000102...0f, ...17 and ...1f
FIPS_197 = {
    16: "69c4e0d8-6a7b-0430-d8cd-b78070b4c55a",
    24: "dda97ca4-864c-dfe0-6eaf-70a0ec0d7191",
    32: "8ea2b7ca-5167-45bf-eafc-49904b496089",
}


@pytest.fixture(scope="module")
def plain(build, swap):
    """A cluster of this build that has no ulid: its files are moved away
    for this module."""
    swap.remove()
    server = Cluster(build, "plain", slot=38).start_empty()
    try:
        yield server
    finally:
        server.stop()
        server.destroy()


def sql_of_the_file() -> str:
    """The file without its comments (string literals kept)."""
    return re.sub(r"--[^\n]*", "", PORTABLE_SQL.read_text())


def identifiers() -> set[str]:
    """Every word of the file that could name something, folded to lower
    case as SQL folds it: its functions, types, keywords and the words of
    its messages alike."""
    return {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", sql_of_the_file())}


def operators() -> set[str]:
    """Every operator the file names, qualified or not."""
    sql = sql_of_the_file()
    named = set(re.findall(r"OPERATOR\(pg_catalog\.([^)\s]+)\)", sql))
    bare = set(re.findall(r"(?<![\w'])(<>|<=|>=|!~|\|\||<<|>>|[=<>+*/%&|~-])(?![\w'])", sql))
    return named | bare


def own_functions() -> list[tuple[str, str]]:
    """The file's own functions, as name and argument types (IN only)."""
    found = []
    for name, args in re.findall(r"CREATE OR REPLACE FUNCTION ulid_portable\.([\w%$]+)\(([^)]*)\)", sql_of_the_file()):
        # a type written in by format() (the overloads made when the
        # extension is there): as text, one of them
        types = [a.split()[-1].replace("%1$s", "pg_catalog.text")
                 for a in args.split(",") if a.strip() and not a.strip().startswith("OUT ")]
        for fn in ([name.replace("%1$s", w) for w in ("encrypt", "decrypt")] if "%1$s" in name else [name]):
            found.append((fn, ", ".join(types)))
    return found


TRAP_MARK = "search_path trap sprung"


def plant_traps(conn) -> int:
    """Schema `traps`, meant to come first on a caller's search_path: for
    every word of the file, a twin of each function of pg_catalog of that
    name (every overload without pseudo-types) and a domain of that name;
    a twin of every binary operator of pg_catalog the file names; a
    function named as each of the file's own. Each, when it runs, raises a
    WARNING (a line in the server log and a notice to the client, which no
    rollback takes back) and then an error. Returns how many objects were
    planted."""
    pseudo = "(SELECT oid FROM pg_type WHERE typtype = 'p')"
    # and `record`, PL/pgSQL's row of any shape, which the file may not use
    words = sorted(identifiers() | {"record"})
    functions = conn.execute(f"""
        SELECT p.proname, pg_get_function_identity_arguments(p.oid), format_type(p.prorettype, NULL)
        FROM pg_proc p
        WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.prokind = 'f' AND NOT p.proretset
          AND p.proname = ANY(%s) AND p.prorettype NOT IN {pseudo}
          AND NOT EXISTS (SELECT FROM unnest(p.proargtypes) t WHERE t IN {pseudo})""",
        [words]).fetchall()
    ops = conn.execute(f"""
        SELECT o.oprname, format_type(o.oprleft, NULL), format_type(o.oprright, NULL), format_type(o.oprresult, NULL)
        FROM pg_operator o
        WHERE o.oprnamespace = 'pg_catalog'::regnamespace AND o.oprkind = 'b' AND o.oprname = ANY(%s)
          AND o.oprleft NOT IN {pseudo} AND o.oprright NOT IN {pseudo} AND o.oprresult NOT IN {pseudo}""",
        [sorted(operators())]).fetchall()
    assert {"text", "int8", "uuid", "bytea", "substr", "left", "int4"} <= set(words)
    assert {"=", "||", "<<", "!~"} <= {o[0] for o in ops}
    ddl = ["CREATE SCHEMA traps", "GRANT USAGE ON SCHEMA traps TO PUBLIC",
           f"""CREATE FUNCTION traps.sprung(what pg_catalog.text) RETURNS pg_catalog.bool LANGUAGE plpgsql
               AS $$BEGIN RAISE WARNING '{TRAP_MARK}: %', what; RAISE EXCEPTION '{TRAP_MARK}: %', what; END$$"""]
    for name, args in {(n, a) for n, a, _ in functions} | set(own_functions()):
        result = next((r for n, a, r in functions if (n, a) == (name, args)), "pg_catalog.text")
        ddl.append(f"""CREATE FUNCTION traps."{name}"({args}) RETURNS {result} LANGUAGE plpgsql
                       AS $$BEGIN PERFORM traps.sprung('function {name}({args})'); RETURN NULL; END$$""")
    for k, (name, left, right, result) in enumerate(ops):
        what = f"operator {left} {name} {right}"
        ddl.append(f"""CREATE FUNCTION traps.operator_{k}({left}, {right}) RETURNS {result} LANGUAGE plpgsql
                       AS $$BEGIN PERFORM traps.sprung('{what}'); RETURN NULL; END$$""")
        ddl.append(f"CREATE OPERATOR traps.{name} (LEFTARG = {left}, RIGHTARG = {right}, FUNCTION = traps.operator_{k})")
    ddl += [f"""CREATE DOMAIN traps."{name}" AS pg_catalog.text CHECK (traps.sprung('domain {name}'))""" for name in words]
    # a collation "C" of its own: nondeterministic where the server has ICU,
    # under which a regular expression fails (test_every_collation_is_pg_catalogs)
    icu = conn.execute("SELECT count(*) FROM pg_catalog.pg_collation WHERE collname = 'und-x-icu'").fetchone()[0] > 0
    ddl.append("""CREATE COLLATION traps."C" (provider = icu, locale = 'und-u-ks-level2', deterministic = false)"""
               if icu else """CREATE COLLATION traps."C" (locale = 'C.utf8')""")
    conn.execute(";\n".join(ddl))
    return len(ddl) - 3


@pytest.fixture(scope="module")
def appdb(plain):
    """Databases with the traps, and roles: `app`, which may create schemas
    in appdb, and `app2`, which may not create any in appdb2, where an
    administrator made the schema ulid_portable for it, owned by app2; in
    appdb3 an administrator made the schema for itself and let `app` create
    in it, which the file refuses."""
    with plain.connect() as conn:
        for role in ("app", "app2"):
            conn.execute(f"DROP ROLE IF EXISTS {role}")
            conn.execute(f"CREATE ROLE {role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE")
    plain.create_database("traps", extension=False)
    with plain.connect("traps") as conn:
        planted = plant_traps(conn)
        assert planted > 300, planted
    with plain.connect() as conn:
        for name in ("appdb", "appdb2", "appdb3"):
            conn.execute(f"CREATE DATABASE {name} TEMPLATE traps")
    with plain.connect("appdb") as conn:
        conn.execute("GRANT CREATE ON DATABASE appdb TO app")
    with plain.connect("appdb2") as conn:
        conn.execute("CREATE SCHEMA ulid_portable AUTHORIZATION app2")
    with plain.connect("appdb3") as conn:
        conn.execute("CREATE SCHEMA ulid_portable")
        conn.execute("GRANT USAGE, CREATE ON SCHEMA ulid_portable TO app")
    return "appdb"


# every trap's warning that reached a session of hostile()
SPRUNG: list[str] = []


def hostile(plain, dbname: str, user: str) -> psycopg.Connection:
    conn = psycopg.connect(plain.conninfo(dbname, user=user), options=HOSTILE, autocommit=True)
    conn.add_notice_handler(lambda diag: SPRUNG.append(diag.message_primary or "")
                            if TRAP_MARK in (diag.message_primary or "") else None)
    return conn


def install_hostile(plain, dbname: str, user: str) -> None:
    result = install_portable(plain, dbname, user=user, options=HOSTILE)
    assert TRAP_MARK not in result.stderr, result.stderr


def test_the_server_has_no_ulid(plain):
    with plain.connect() as conn:
        assert conn.execute("SELECT count(*) FROM pg_available_extensions WHERE name = 'ulid'").fetchone() == (0,)
        with pytest.raises(psycopg.Error, match=r"ulid\.control|extension \"ulid\" is not available") as raised:
            conn.execute("CREATE EXTENSION ulid")
        # 58P01 up to PostgreSQL 15, 0A000 from 16 on
        assert raised.value.sqlstate in ("58P01", "0A000")


def test_every_collation_is_pg_catalogs():
    """A collation is found through the search_path like any other name:
    every COLLATE of the file names pg_catalog's (the traps plant a "C")."""
    named = re.findall(r"\bCOLLATE\s+(\S+)", sql_of_the_file())
    assert named and all(name.startswith('pg_catalog."') for name in named), named


def test_the_traps_spring(plain, appdb):
    """The control: unqualified names under this search_path do hit them,
    and each leaves its warning behind, rolled back or not: a function, an
    operator, a type in a cast and a type declared in PL/pgSQL."""
    SPRUNG.clear()
    sqls = ["SELECT substr('abc', 1, 1)", "SELECT 'a'::pg_catalog.text || 'b'::pg_catalog.text",
            "SELECT 1::pg_catalog.int8 + 1::pg_catalog.int8", "SELECT encode(E'\\\\x00'::pg_catalog.bytea, 'hex')",
            "SELECT 1::int8", "DO $$DECLARE r record; BEGIN r := NULL; END$$",
            "DO $$DECLARE t text; BEGIN END$$"]
    with hostile(plain, appdb, "app") as conn:
        for sql in sqls:
            with pytest.raises(psycopg.errors.RaiseException, match=TRAP_MARK):
                with conn.transaction():
                    conn.execute(sql)
    assert len(SPRUNG) == len(sqls), SPRUNG
    assert any("domain record" in w for w in SPRUNG) and any("domain int8" in w for w in SPRUNG), SPRUNG


def test_a_schema_another_role_owns_is_refused(plain, appdb):
    """Whoever owns the schema could replace the functions: the file stops,
    and leaves the schema as it was."""
    result = subprocess.run(
        [str(plain.bindir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", str(PORTABLE_SQL)],
        env={**plain.env(), "PGDATABASE": "appdb3", "PGUSER": "app", "PGOPTIONS": HOSTILE},
        capture_output=True, text=True)
    assert result.returncode == 3, result.stderr
    assert 'schema "ulid_portable" belongs to role "postgres", not to "app"' in result.stderr, result.stderr
    with plain.connect("appdb3") as conn:
        assert conn.execute("SELECT count(*) FROM pg_proc WHERE pronamespace = 'ulid_portable'::regnamespace").fetchone() == (0,)


@pytest.mark.parametrize("stop", [False, True])
def test_a_failed_install_leaves_nothing(plain, appdb, stop):
    """A role that may not create the schema: the file stops at its first
    error and leaves nothing behind, whether psql stops at errors or not
    (it is one statement); with ON_ERROR_STOP psql says so in its exit
    status."""
    args = ["-v", "ON_ERROR_STOP=1"] if stop else []
    result = subprocess.run(
        [str(plain.bindir / "psql"), "-X", "-q", *args, "-f", str(PORTABLE_SQL)],
        env={**plain.env(), "PGDATABASE": "traps", "PGUSER": "app", "PGOPTIONS": HOSTILE},
        capture_output=True, text=True)
    assert result.returncode == (3 if stop else 0), result.stderr
    errors = [line for line in result.stderr.splitlines() if "ERROR:" in line]
    assert len(errors) == 1 and "permission denied for database traps" in errors[0], result.stderr
    with plain.connect("traps") as conn:
        assert conn.execute("SELECT to_regnamespace('ulid_portable')").fetchone() == (None,)
        assert conn.execute("""SELECT count(*) FROM pg_proc p JOIN pg_roles r ON r.oid = p.proowner
                               WHERE r.rolname = 'app'""").fetchone() == (0,)


def test_the_file_says_which_release_it_is(plain, appdb):
    install_hostile(plain, appdb, "app")
    with hostile(plain, appdb, "app") as conn:
        assert conn.execute("SELECT ulid_portable.version()").fetchone() == (VERSION,)


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
    # a value the extension would refuse: the default layout, with a warning
    conn.execute("SET ulid.layout = bogus")
    warned: list[tuple] = []

    def warning(diag):
        if diag.severity_nonlocalized == "WARNING":
            warned.append((diag.sqlstate, diag.message_primary, diag.message_detail, diag.message_hint))
    conn.add_notice_handler(warning)
    try:
        out["bad layout"] = (q("SELECT ulid_portable.gen_ulid('2025-01-01 00:00:00+00')::pg_catalog.text")[:13], warned)
    except psycopg.Error as error:
        out["bad layout"] = (error.sqlstate, error.diag.message_primary)
    finally:
        conn.remove_notice_handler(warning)
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
    assert len(errors) == 6, errors
    assert out["bad layout"] == ("01941f29-7c00", [("22023", 'invalid value for parameter "ulid.layout": "bogus"',
                                                    "The default, ulid, is used instead.", "Available values: ulid, uuidv7.")])


@pytest.mark.parametrize("user, dbname", [("app", "appdb"), ("app2", "appdb2")])
def test_an_ordinary_role_installs_and_uses_it_under_a_hostile_search_path(plain, appdb, user, dbname):
    SPRUNG.clear()
    install_hostile(plain, dbname, user)
    # and again: the file can be run over an earlier install of itself
    install_hostile(plain, dbname, user)
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
    assert SPRUNG == []


@pytest.mark.extensions("pgcrypto")
def test_public_ids_once_pgcrypto_is_there(plain, appdb, build):
    """An ordinary role creates pgcrypto (a trusted extension) in a schema of
    its own, runs the file again, and gets AES as FIPS-197 gives it."""
    with hostile(plain, appdb, "app") as conn:
        conn.execute("CREATE SCHEMA app_crypto")
        conn.execute("CREATE EXTENSION pgcrypto SCHEMA app_crypto")
    SPRUNG.clear()
    install_hostile(plain, appdb, "app")
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
    assert SPRUNG == []


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
