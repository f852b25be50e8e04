"""The portable layer against roles that may do more in the schema
ulid_portable than call its functions.

- Every literal the file passes to a function is typed, so that no
  overload can take a call of the file's: the calls are read from the file
  itself (portable_calls), and a role that may create in the schema plants
  `text` overloads of every function the file calls; none of them runs
  when an ordinary role uses every function of the layer.
- The file refuses a schema in which another role than its owner may
  create objects (a grant to a role or to PUBLIC), or that holds an object
  of another role, with SQLSTATE 42501 and nothing installed or replaced;
  once the owner has put that right, it installs again.
"""

from __future__ import annotations

import re
import subprocess
import uuid

import psycopg
import pytest

from portable_calls import Call, calls_in, file_calls, untyped_arguments
from portable_layer import PORTABLE_SQL, has_pgcrypto
from test_portable_install import check_values, values_of
from ulidtools.project import VERSION

OWNER, OTHER, CALLER = "pl_owner", "pl_other", "pl_caller"
PLANTED_MARK = "planted overload ran"


@pytest.fixture(scope="module")
def roles(cluster):
    """Three ordinary roles: the schema's owner, another role, and one
    that only calls the functions."""
    with cluster.connect() as conn:
        for role in (OWNER, OTHER, CALLER):
            conn.execute(f"DROP ROLE IF EXISTS {role}")
            conn.execute(f"CREATE ROLE {role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE")
    yield
    with cluster.connect() as conn:
        for role in (OWNER, OTHER, CALLER):
            conn.execute(f"DROP ROLE IF EXISTS {role}")


@pytest.fixture
def appdb(cluster, roles):
    """A database without the extension in which the owner may create
    schemas; yields its name."""
    name = cluster.create_database("pl_" + uuid.uuid4().hex[:12], extension=False)
    with cluster.connect(name) as conn:
        conn.execute(f'GRANT CREATE ON DATABASE "{name}" TO {OWNER}')
    yield name
    with cluster.connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run_file(cluster, dbname: str, user: str = OWNER) -> subprocess.CompletedProcess:
    """The file run with psql as USER, stopping at the first error, which
    it prints with its SQLSTATE."""
    return subprocess.run(
        [str(cluster.bindir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose",
         "-f", str(PORTABLE_SQL)],
        env={**cluster.env(), "PGDATABASE": dbname, "PGUSER": user}, capture_output=True, text=True)


def refused(result: subprocess.CompletedProcess) -> tuple[str, str, str, str]:
    """A failed run's SQLSTATE, message, DETAIL and HINT."""
    assert result.returncode == 3, (result.returncode, result.stderr)
    error = re.search(r"ERROR:  (\w{5}): (.*)", result.stderr)
    detail = re.search(r"^DETAIL:  (.*)$", result.stderr, re.M)
    hint = re.search(r"^HINT:  (.*)$", result.stderr, re.M)
    assert error and detail and hint, result.stderr
    return error[1], error[2], detail[1], hint[1]


def functions(cluster, dbname: str) -> list[tuple[str, str]]:
    """The functions in the schema, each with the transaction that last
    wrote it (CREATE OR REPLACE writes a function anew)."""
    with cluster.connect(dbname) as conn:
        return conn.execute("""SELECT oid::regprocedure::text, xmin::text FROM pg_proc
                               WHERE pronamespace = 'ulid_portable'::regnamespace ORDER BY 1""").fetchall()


def as_role(cluster, dbname: str, user: str, **kw) -> psycopg.Connection:
    return psycopg.connect(cluster.conninfo(dbname, user=user), autocommit=True, **kw)


# ---- literals ------------------------------------------------------------------

def test_no_call_passes_an_untyped_literal():
    calls = file_calls()
    called = {f"{c.schema}.{c.function}" for c in calls}
    # the calls are found where the file makes them: in its own SQL, in the
    # functions' bodies and in the SQL its DO blocks write out
    assert {"pg_catalog.set_config", "pg_catalog.current_setting", "pg_catalog.format", "pg_catalog.encode",
            "ulid_portable._setting_is", "ulid_portable._timestamp_out_of_range", "ulid_portable._backend",
            "%2$s.%1$s"} <= called, called
    assert len(calls) > 250
    assert untyped_arguments(calls) == []


def test_an_untyped_literal_is_found():
    """The reader finds a literal passed on its own however it is written,
    in a body or a template inside the SQL, and takes a typed one, an
    operand, a type's modifier and what SQL's own constructs take as they
    are."""
    sql = """
        DO $do$ BEGIN
            PERFORM pg_catalog.set_config('a', 'b'::pg_catalog.text, false);
            EXECUTE pg_catalog.format($sql$
                CREATE FUNCTION f() RETURNS pg_catalog.text LANGUAGE sql
                AS $fn$ SELECT ulid_portable.g(E'\\x00' 'more', NULL, 3) $fn$
            $sql$, 'x'::pg_catalog.text);
            PERFORM %2$s.%1$s(k, 'aes-ecb/pad:none'::pg_catalog.text);
            x pg_catalog.bit(128) := COALESCE(y, '') OPERATOR(pg_catalog.||) pg_catalog.left('z' OPERATOR(pg_catalog.||) w, 1);
        END $do$;
    """
    calls = calls_in(sql)
    assert [(c.schema, c.function, len(c.arguments)) for c in calls] == [
        ("pg_catalog", "set_config", 3), ("pg_catalog", "format", 2), ("%2$s", "%1$s", 2),
        ("pg_catalog", "left", 2), ("ulid_portable", "g", 3)]
    assert untyped_arguments(calls) == [
        "3: pg_catalog.set_config(argument 1: 'a')",
        "4: pg_catalog.format(argument 1: $sql$)",
        "6: ulid_portable.g(argument 1: E'\\x00')",
        "6: ulid_portable.g(argument 2: NULL)",
    ]


# ---- planted overloads ---------------------------------------------------------

def planted_signatures(calls: list[Call], crypto: str | None) -> set[tuple[str, str, str]]:
    """Where to plant, for every function the file calls with arguments:
    (schema, name, arguments), all of them text, and once a VARIADIC text[]
    for each name. The file's own functions and pg_catalog's get theirs in
    ulid_portable; pgcrypto's (the file writes its schema in with format())
    in pgcrypto's schema."""
    found = set()
    for c in calls:
        if not c.arguments:
            continue
        if c.schema == "%2$s":
            if crypto is None:
                continue
            targets = [(crypto, name) for name in ("encrypt", "decrypt")]
        elif "%1$s" in c.function:
            # a helper of each of pgcrypto's two (ulid_portable._aes_%1$s)
            targets = [("ulid_portable", c.function.replace("%1$s", name)) for name in ("encrypt", "decrypt")]
        else:
            targets = [("ulid_portable", c.function)]
        for schema, name in targets:
            found.add((schema, name, ", ".join(["pg_catalog.text"] * len(c.arguments))))
            found.add((schema, name, "VARIADIC pg_catalog.text[]"))
    return found


def plant(conn, signatures: set[tuple[str, str, str]]) -> int:
    """A function of each signature that does not exist yet, returning what
    the function of that name returns, which warns (a notice no rollback
    takes back) and fails when it runs. Returns how many were planted."""
    planted = 0
    for schema, name, args in sorted(signatures):
        types = args.replace("VARIADIC ", "")
        if conn.execute("SELECT to_regprocedure(%s)", [f'{schema}."{name}"({types})']).fetchone()[0] is not None:
            continue
        returns = conn.execute("""
            SELECT format_type(p.prorettype, NULL) FROM pg_proc p JOIN pg_type t ON t.oid = p.prorettype
            WHERE p.proname = %s AND p.pronamespace IN ('pg_catalog'::regnamespace, %s::regnamespace)
              AND t.typtype <> 'p' AND NOT p.proretset
            ORDER BY p.pronamespace = 'pg_catalog'::regnamespace LIMIT 1""", [name, schema]).fetchone()
        conn.execute(f"""
            CREATE FUNCTION {schema}."{name}"({args}) RETURNS {returns[0] if returns else 'pg_catalog.text'}
            LANGUAGE plpgsql AS $$
            BEGIN
                RAISE WARNING '{PLANTED_MARK}: {schema}.{name}({args})';
                RAISE EXCEPTION '{PLANTED_MARK}: {schema}.{name}({args})';
            END $$""")
        planted += 1
    return planted


def extra_calls(conn, pgcrypto: bool) -> dict:
    """What values_of does not call: the layer's functions for the native
    type and for text, a round trip of public ids, a bad
    ulid.monotonic_step, and bad text whose DETAIL escapes a character."""
    q = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    spec = "'01941f29-7c00-ec5e-7700-529006a71347'"
    out = {
        "text": [q(f"SELECT ulid_portable.ulid_text({spec}::pg_catalog.text)"),
                 q(f"SELECT ulid_portable.ulid_text({spec}::pg_catalog.uuid::native.ulid)")],
        "timestamp": [q(f"SELECT ulid_portable.ulid_timestamp({spec}::pg_catalog.text)::pg_catalog.text"),
                      q(f"SELECT ulid_portable.ulid_timestamp({spec}::pg_catalog.uuid::native.ulid)::pg_catalog.text")],
    }
    if pgcrypto:
        key = "'\\x000102030405060708090a0b0c0d0e0f'::pg_catalog.bytea"
        out["public ids"] = [
            q(f"SELECT ulid_portable.ulid_decrypt(ulid_portable.ulid_encrypt({spec}::pg_catalog.uuid, {key}), {key})::pg_catalog.text"),
            q(f"SELECT ulid_portable.ulid_decrypt(ulid_portable.ulid_encrypt({spec}::pg_catalog.uuid::native.ulid, {key}), {key})::pg_catalog.text"),
        ]
    errors = []
    warned: list[tuple] = []

    def warning(diag):
        if diag.severity_nonlocalized == "WARNING":
            warned.append((diag.sqlstate, diag.message_hint))
    conn.add_notice_handler(warning)
    conn.execute("SET ulid.monotonic_step = 'two'")
    for sql in ("SELECT ulid_portable.gen_monotonic_ulid()",
                "SELECT ulid_portable.ulid_parse('01JGFJJZ00XHF7E02JJ03AE4T' OPERATOR(pg_catalog.||) pg_catalog.chr(9))"):
        try:
            conn.execute(sql)
            errors.append(("no error", list(warned)))
        except psycopg.Error as error:
            errors.append((error.sqlstate, error.diag.message_detail or error.diag.message_hint))
        warned.clear()
        conn.execute("RESET ulid.monotonic_step")
    conn.remove_notice_handler(warning)
    out["errors"] = errors
    return out


def test_planted_text_overloads_never_run(cluster, appdb):
    """The owner installs the layer (with the extension in `native`, so that
    the file adds its overloads for the type, and pgcrypto where the build
    has it) and lets another role create in the schema, as in pgcrypto's;
    that role plants a `text` overload of every function the file calls.
    Before the literals were typed, the first of them took the file's own
    calls (the control below shows one doing so); now an ordinary role uses
    every function, under the default search_path and with ulid_portable
    first on it, and none of them runs."""
    with cluster.connect(appdb) as conn:
        conn.execute("CREATE SCHEMA native")
        conn.execute("CREATE EXTENSION ulid SCHEMA native")
        conn.execute("GRANT USAGE ON SCHEMA native TO PUBLIC")
        pgcrypto = has_pgcrypto(conn)
        if pgcrypto:
            conn.execute("CREATE SCHEMA crypto")
            conn.execute("CREATE EXTENSION pgcrypto SCHEMA crypto")
            conn.execute(f"GRANT USAGE ON SCHEMA crypto TO PUBLIC; GRANT CREATE ON SCHEMA crypto TO {OTHER}")
    assert run_file(cluster, appdb).returncode == 0
    with as_role(cluster, appdb, OWNER) as conn:
        conn.execute(f"GRANT USAGE ON SCHEMA ulid_portable TO PUBLIC; GRANT CREATE ON SCHEMA ulid_portable TO {OTHER}")
    with as_role(cluster, appdb, OTHER) as conn:
        planted = plant(conn, planted_signatures(file_calls(), "crypto" if pgcrypto else None))
    assert planted > 60, planted

    ran: list[str] = []

    def caller(options: str | None = None) -> psycopg.Connection:
        conn = as_role(cluster, appdb, CALLER, **({"options": options} if options else {}))
        conn.add_notice_handler(lambda d: ran.append(d.message_primary or "")
                                if PLANTED_MARK in (d.message_primary or "") else None)
        return conn

    # the control: a call as the file made it before, with untyped
    # literals, runs the planted overload
    with caller() as conn, pytest.raises(psycopg.errors.RaiseException, match=PLANTED_MARK):
        conn.execute("SELECT ulid_portable._setting_is('ulid.layout', '{ulid,uuidv7}')")
    assert ran == [f"{PLANTED_MARK}: ulid_portable._setting_is(pg_catalog.text, pg_catalog.text)"]

    ran.clear()
    for options in (None, "-c search_path=ulid_portable,pg_catalog,public"):
        with caller(options) as conn:
            check_values(values_of(conn), pgcrypto=pgcrypto)
            extra = extra_calls(conn, pgcrypto)
        assert extra["text"] == ["01JGFJJZ00XHF7E02JJ03AE4T7"] * 2
        assert extra["timestamp"][0] == extra["timestamp"][1]
        if pgcrypto:
            assert extra["public ids"] == ["01941f29-7c00-ec5e-7700-529006a71347"] * 2
        # (a value the extension would refuse: the default, with a warning)
        assert extra["errors"] == [("no error", [("22023", "Available values: random, one.")]),
                                   ("22P02", 'Invalid character "\\t" at position 26.')]
    assert ran == []

    # and the file now refuses the schema: another role may create in it,
    # then (once that is revoked) it holds that role's functions
    assert refused(run_file(cluster, appdb))[:2] == (
        "42501", f'other roles than its owner may create objects in schema "ulid_portable": {OTHER}')
    with as_role(cluster, appdb, OWNER) as conn:
        conn.execute(f"REVOKE CREATE ON SCHEMA ulid_portable FROM {OTHER}")
    state, message, detail, _ = refused(run_file(cluster, appdb))
    assert state == "42501" and message.startswith('schema "ulid_portable" holds function ulid_portable.')
    assert message.endswith(f' owned by role "{OTHER}"')


# ---- schemas the file refuses ----------------------------------------------------

REFUSED_DETAIL = ("A role that may create objects in the schema can add functions there that calls of this "
                  "file's functions would run instead, with the rights of whoever called them.")


@pytest.mark.parametrize("installed", [False, True], ids=["first install", "run again"])
@pytest.mark.parametrize("grantee", [OTHER, "PUBLIC", f"{OTHER}, PUBLIC"])
def test_a_schema_others_may_create_in_is_refused(cluster, appdb, grantee, installed):
    """The owner made the schema and let others create in it: the file
    stops with 42501 and installs or replaces nothing; once the owner has
    revoked the privilege it installs."""
    with as_role(cluster, appdb, OWNER) as conn:
        conn.execute("CREATE SCHEMA ulid_portable")
    if installed:
        assert run_file(cluster, appdb).returncode == 0
    with as_role(cluster, appdb, OWNER) as conn:
        conn.execute(f"GRANT USAGE ON SCHEMA ulid_portable TO {CALLER}")  # USAGE alone is fine
        conn.execute(f"GRANT CREATE ON SCHEMA ulid_portable TO {grantee}")
    before = functions(cluster, appdb)
    assert len(before) == (18 if installed else 0)
    named = "PUBLIC, pl_other" if "," in grantee else grantee
    assert refused(run_file(cluster, appdb)) == (
        "42501", f'other roles than its owner may create objects in schema "ulid_portable": {named}', REFUSED_DETAIL,
        f"Revoke the privilege (REVOKE CREATE ON SCHEMA ulid_portable FROM {named}), then run the file again.")
    assert functions(cluster, appdb) == before
    with as_role(cluster, appdb, OWNER) as conn:
        conn.execute(f"REVOKE CREATE ON SCHEMA ulid_portable FROM {grantee}")
    result = run_file(cluster, appdb)
    assert result.returncode == 0, result.stderr
    with as_role(cluster, appdb, CALLER) as conn:
        assert conn.execute("SELECT ulid_portable.version()").fetchone() == (VERSION,)
    assert len(functions(cluster, appdb)) == 18


# another role's object in the schema, made while it could create there:
# what makes it, how the file names it, what drops it
OBJECTS = {
    "function": ("FUNCTION ulid_portable.planted(a text) RETURNS text LANGUAGE sql AS 'SELECT a'",
                 "function ulid_portable.planted(text)", "FUNCTION ulid_portable.planted(text)"),
    "table": ("TABLE ulid_portable.planted (a int)", "table ulid_portable.planted", "TABLE ulid_portable.planted"),
    "view": ("VIEW ulid_portable.planted AS SELECT 1 AS a", "view ulid_portable.planted", "VIEW ulid_portable.planted"),
    "sequence": ("SEQUENCE ulid_portable.planted", "sequence ulid_portable.planted", "SEQUENCE ulid_portable.planted"),
    "composite type": ("TYPE ulid_portable.planted AS (a int)", "composite type ulid_portable.planted",
                       "TYPE ulid_portable.planted"),
    "enum": ("TYPE ulid_portable.planted AS ENUM ('a')", "type ulid_portable.planted", "TYPE ulid_portable.planted"),
    "domain": ("DOMAIN ulid_portable.planted AS text", "type ulid_portable.planted", "DOMAIN ulid_portable.planted"),
    "operator": ("OPERATOR ulid_portable.=== (LEFTARG = text, RIGHTARG = text, FUNCTION = pg_catalog.texteq)",
                 "operator ulid_portable.===(text,text)", "OPERATOR ulid_portable.=== (text, text)"),
    "collation": ('COLLATION ulid_portable.planted FROM "C"', "collation ulid_portable.planted",
                  "COLLATION ulid_portable.planted"),
    "text search configuration": ("TEXT SEARCH CONFIGURATION ulid_portable.planted (COPY = pg_catalog.simple)",
                                  "text search configuration ulid_portable.planted",
                                  "TEXT SEARCH CONFIGURATION ulid_portable.planted"),
}


@pytest.mark.parametrize("kind", OBJECTS)
def test_a_schema_holding_another_roles_object_is_refused(cluster, appdb, kind):
    """Another role made an object in the owner's schema while it could
    create there; the privilege is gone, the object stays: the file stops
    with 42501, names the object and its owner, and replaces nothing. Once
    the owner has dropped it, the file installs again."""
    ddl, described, drop = OBJECTS[kind]
    with as_role(cluster, appdb, OWNER) as conn:
        conn.execute("CREATE SCHEMA ulid_portable")
    assert run_file(cluster, appdb).returncode == 0
    with as_role(cluster, appdb, OWNER) as conn:
        conn.execute(f"GRANT CREATE ON SCHEMA ulid_portable TO {OTHER}")
    with as_role(cluster, appdb, OTHER) as conn:
        conn.execute(f"CREATE {ddl}")
    with as_role(cluster, appdb, OWNER) as conn:
        conn.execute(f"REVOKE CREATE ON SCHEMA ulid_portable FROM {OTHER}")
    before = functions(cluster, appdb)
    assert refused(run_file(cluster, appdb)) == (
        "42501", f'schema "ulid_portable" holds {described} owned by role "{OTHER}"',
        "Objects in the schema that belong to other roles than its owner: 1. Their owners can change them, "
        "and a function among them could be called instead of one of this file's.",
        "Drop them, or give them to the schema's owner (ALTER ... OWNER TO), then run the file again.")
    assert functions(cluster, appdb) == before
    with as_role(cluster, appdb, OWNER) as conn:
        # the owner of a schema may drop what is in it
        conn.execute(f"DROP {drop}")
    result = run_file(cluster, appdb)
    assert result.returncode == 0, result.stderr
    assert len(functions(cluster, appdb)) == 18


def test_the_schemas_owner_runs_it_again(cluster, appdb):
    """The owner's own objects beside the layer's, USAGE for everyone and a
    grant to the owner itself are all fine: the file runs again and
    replaces its functions."""
    with as_role(cluster, appdb, OWNER) as conn:
        conn.execute("CREATE SCHEMA ulid_portable")
        conn.execute(f"GRANT USAGE ON SCHEMA ulid_portable TO PUBLIC; GRANT CREATE, USAGE ON SCHEMA ulid_portable TO {OWNER}")
        conn.execute("CREATE TABLE ulid_portable.notes (id uuid)")
    assert run_file(cluster, appdb).returncode == 0
    first = functions(cluster, appdb)
    result = run_file(cluster, appdb)
    assert result.returncode == 0, result.stderr
    again = functions(cluster, appdb)
    assert [f for f, _ in again] == [f for f, _ in first] and len(again) == 18
    assert all(a != b for (_, a), (_, b) in zip(first, again))  # each written anew
