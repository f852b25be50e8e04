"""The install and update scripts cannot be turned against the server.

ulid is trusted: a role with CREATE on a database installs it, and the
scripts then run as the bootstrap superuser, with the target schema (where
that role may create objects) on the search_path. PostgreSQL's manual
("Security Considerations for Extension Scripts") lists how such a script
gets hijacked: objects made beforehand with the names and argument types of
functions, operators or casts the script refers to, in a schema on the
search path or in the target schema, which name resolution then prefers to
pg_catalog's; `CREATE OR REPLACE` taking over an object; resolution through
search_path inside DO blocks and SQL functions.

Here an ordinary role, mallory, with CREATE on the database and owning the
target schema, plants every decoy such a role can plant before each step:
functions and operators with the names and argument types the scripts use,
in the target schema, in her own schema (first on her search_path), in
public and in pg_temp; types named like ours; casts on those types (a role
may only make casts on a type it owns). Each decoy, if ever run, counts
itself in a sequence (which no rollback undoes), logs who ran it, and tries
ALTER ROLE mallory SUPERUSER. After CREATE EXTENSION, after ALTER EXTENSION
UPDATE from every earlier release and after the resync command: no decoy
ran, mallory is no superuser, and every object the extension owns refers
only to pg_catalog and the extension's own schema (pg_depend).

A base type, an operator family or class, or a function taking `internal`,
`cstring` or `unknown` cannot be made without superuser, so none is
planted; `test_each_decoy_fires_when_reached` shows that the ones planted
are live and would be picked over pg_catalog's by an unqualified reference.
"""

from __future__ import annotations

import psycopg
import pytest

from harness.pgcluster import Cluster, ends_of_run
from harness.upgrading import RELEASES, RESYNC, VERSION, earlier_releases

ROLE = "mallory"

# Sets the decoys up in LOG: a counter, a log table, and ran(), which every
# decoy calls first. ran() also tries to make mallory a superuser; it
# succeeds only when a superuser runs the decoy.
LOG_SETUP = f"""
CREATE SCHEMA mallory_log;
CREATE SEQUENCE mallory_log.calls;
CREATE TABLE mallory_log.log (decoy text, ran_as text, at timestamptz DEFAULT pg_catalog.now());
GRANT USAGE ON SCHEMA mallory_log TO PUBLIC;
GRANT USAGE, UPDATE ON SEQUENCE mallory_log.calls TO PUBLIC;
GRANT INSERT ON mallory_log.log TO PUBLIC;
CREATE FUNCTION mallory_log.ran(decoy text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_catalog.nextval('mallory_log.calls');
    INSERT INTO mallory_log.log (decoy, ran_as) VALUES (decoy, current_user);
    BEGIN
        EXECUTE 'ALTER ROLE {ROLE} SUPERUSER';
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
END
$$;
"""

# Functions the scripts call, with the argument types a call could resolve
# to: (name, argument types, result type, what the decoy returns).
FUNCTIONS = [
    ("current_setting", "text", "text", "pg_catalog.current_setting($1)"),
    ("current_setting", "text, boolean", "text", "pg_catalog.current_setting($1, $2)"),
    ("current_setting", "name", "text", "pg_catalog.current_setting($1::text)"),
    ("current_setting", "character varying", "text", "pg_catalog.current_setting($1::text)"),
    ("current_setting", "character", "text", "pg_catalog.current_setting($1::text)"),
    ("to_regprocedure", "text", "regprocedure", "pg_catalog.to_regprocedure($1)"),
    ("to_regprocedure", "character varying", "regprocedure", "pg_catalog.to_regprocedure($1::text)"),
    ("btequalimage", "oid", "boolean", "pg_catalog.btequalimage($1)"),
    ("set_config", "text, text, boolean", "text", "pg_catalog.set_config($1, $2, $3)"),
    ("int4", "text", "integer", "pg_catalog.int4($1::numeric)"),
    ("regnamespace", "text", "regnamespace", "pg_catalog.to_regnamespace($1)"),
    ("now", "", "timestamptz", "pg_catalog.now()"),
]

# Operators the scripts use, between the types they are used on and the
# types an unqualified reference could resolve to: (operator, left, right).
OPERATORS_ON_BUILTINS = [
    ("=", "oid", "regnamespace"),
    ("=", "regnamespace", "oid"),
    ("=", "oid", "regclass"),
    ("=", "oid", "regprocedure"),
    ("=", "oid", "oid"),
    ("=", "name", "text"),
    ("=", "text", "name"),
    ("=", "name", "name"),
    ("=", "name", "character varying"),
    ("=", "smallint", "integer"),
    ("=", "smallint", "bigint"),
    (">=", "integer", "integer"),
    (">=", "integer", "bigint"),
    (">=", "integer", "numeric"),
    ("=", "uuid", "uuid"),
    ("<>", "uuid", "uuid"),
    ("<", "uuid", "uuid"),
    ("<=", "uuid", "uuid"),
    (">", "uuid", "uuid"),
    (">=", "uuid", "uuid"),
    ("=", "uuid", "text"),
    ("=", "bytea", "bytea"),
    ("=", "timestamptz", "timestamptz"),
]

# Once the extension exists (before an update): operators on ulid with
# other types, in the extension's schema; on ulid itself and between ulid
# and uuid only elsewhere, as the extension's own take those names there
# (the update to 0.4.0 adds the ulid-uuid ones, and one made beforehand in
# the extension's schema stops it: test_own_ulid_uuid_operators_stop_the_update).
def operators_on_ulid(extschema: str, elsewhere: bool) -> list[tuple[str, str, str]]:
    ulid = f"{extschema}.ulid"
    ops = [("=", ulid, "text"), ("=", ulid, "bytea"), ("=", "oid", ulid)]
    if elsewhere:
        ops += [(op, ulid, ulid) for op in ("=", "<>", "<", "<=", ">", ">=")]
        ops += [("=", ulid, "uuid"), ("=", "uuid", ulid), ("<", ulid, "uuid")]
    return ops


class Mallory:
    """An ordinary role with CREATE on one database and a schema of its own,
    planting decoys from her own session."""

    def __init__(self, server: Cluster, db: str):
        self.server = server
        self.db = db
        drop_role(server)
        with server.connect() as conn:
            conn.execute(f"CREATE ROLE {ROLE} LOGIN NOSUPERUSER")
        with server.connect(db) as conn:
            conn.execute(f'GRANT CREATE ON DATABASE "{db}" TO {ROLE}')
            conn.execute(f"GRANT CREATE ON SCHEMA public TO {ROLE}")
        self.planted: set[tuple[str, ...]] = set()
        self.reconnect()
        self.conn.execute(f"CREATE SCHEMA {ROLE}")  # first on her search_path ("$user")
        self.conn.execute("CREATE SCHEMA target")
        self.conn.execute(LOG_SETUP)

    def reconnect(self) -> None:
        """A new session: her temporary decoys are gone with the old one."""
        if getattr(self, "conn", None) is not None:
            self.conn.close()
        self.planted = {key for key in self.planted if key[0] != "pg_temp"}
        self.conn = self.server.connect(self.db, user=ROLE)

    def plant(self, schema: str, tag: str, operators: list[tuple[str, str, str]]) -> int:
        """Plants the decoys `schema` lacks; returns how many it has."""
        for name, args, result, body in FUNCTIONS:
            if (schema, name, args) in self.planted:
                continue
            params = ", ".join(f"a{n} {t.strip()}" for n, t in enumerate(args.split(","))) if args else ""
            body = body.replace("$1", "a0").replace("$2", "a1").replace("$3", "a2")
            self.conn.execute(f"""
                CREATE FUNCTION {schema}.{name}({params}) RETURNS {result} LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM mallory_log.ran('{tag} {schema}.{name}({args})');
                    RETURN {body};
                END $$""")
            self.planted.add((schema, name, args))
        for op, left, right in operators:
            if (schema, op, left, right) in self.planted:
                continue
            fn = f"{schema}.decoy_{len(self.planted)}"
            # the decoy answers as pg_catalog's operator would, where there
            # is one, so a script it fools runs on and commits
            self.conn.execute(f"""
                CREATE FUNCTION {fn}(a {left}, b {right}) RETURNS boolean LANGUAGE plpgsql AS $$
                DECLARE answer boolean;
                BEGIN
                    PERFORM mallory_log.ran('{tag} {schema}.{op}({left}, {right})');
                    BEGIN
                        EXECUTE 'SELECT $1 OPERATOR(pg_catalog.{op}) $2' INTO answer USING a, b;
                    EXCEPTION WHEN undefined_function THEN
                        answer := false;
                    END;
                    RETURN answer;
                END $$""")
            self.conn.execute(f"CREATE OPERATOR {schema}.{op} (LEFTARG = {left}, RIGHTARG = {right}, FUNCTION = {fn})")
            self.planted.add((schema, op, left, right))
        return sum(1 for key in self.planted if key[0] == schema)

    def plant_everywhere(self, target: str, step: str, extension_exists: bool) -> int:
        """Decoys in every schema the scripts could look in, before one step:
        the target schema, her own, public and pg_temp."""
        planted = 0
        for schema in dict.fromkeys([target, ROLE, "public", "pg_temp"]):
            ops = list(OPERATORS_ON_BUILTINS)
            if extension_exists:
                ops += operators_on_ulid(target, elsewhere=schema != target)
            planted += self.plant(schema, step, ops)
        return planted

    def close(self) -> None:
        self.conn.close()
        with self.server.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.db}" WITH (FORCE)')
        drop_role(self.server)


def drop_role(server: Cluster) -> None:
    """Drops mallory and whatever she owns, in every database."""
    with server.connect() as conn:
        if not conn.execute("SELECT count(*) FROM pg_roles WHERE rolname = %s", [ROLE]).fetchone()[0]:
            return
        databases = [r[0] for r in conn.execute("SELECT datname FROM pg_database WHERE datallowconn").fetchall()]
    for db in databases:
        with server.connect(db) as conn:
            conn.execute(f"DROP OWNED BY {ROLE} CASCADE")
    with server.connect() as conn:
        conn.execute(f"DROP ROLE {ROLE}")


@pytest.fixture(scope="module")
def server(build):
    c = Cluster(build, "hijack", slot=34).start_empty()
    yield c
    c.stop()


@pytest.fixture
def mallory(server, request):
    db = server.create_database("hijack_" + request.node.name.split("[")[0][5:][:40], extension=False)
    m = Mallory(server, db)
    yield m
    m.close()


def assert_nothing_ran(server: Cluster, db: str, step: str) -> None:
    """No decoy ran, mallory is no superuser, and every member of the
    extension refers only to pg_catalog and its own schema."""
    with server.connect(db) as conn:
        conn.execute("SET search_path = pg_catalog")
        called, log = conn.execute(
            "SELECT (SELECT is_called FROM mallory_log.calls), "
            "(SELECT array_agg(decoy || ' as ' || ran_as) FROM mallory_log.log)").fetchone()
        assert not called and log is None, f"after {step}, decoys ran: {log}"
        assert conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [ROLE]).fetchone() == (False,)
        foreign = conn.execute("""
            WITH ext AS (SELECT oid, extnamespace FROM pg_extension WHERE extname = 'ulid'),
            members AS (
                SELECT classid, objid FROM pg_depend
                WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e' AND refobjid = (SELECT oid FROM ext)
            ), families AS (SELECT objid FROM members WHERE classid = 'pg_opfamily'::regclass),
            parts AS (
                SELECT classid, objid FROM members
                UNION ALL SELECT 'pg_amop'::regclass, oid FROM pg_amop WHERE amopfamily IN (SELECT objid FROM families)
                UNION ALL SELECT 'pg_amproc'::regclass, oid FROM pg_amproc WHERE amprocfamily IN (SELECT objid FROM families)
            )
            SELECT pg_describe_object(d.classid, d.objid, d.objsubid) || ' -> '
                   || pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid)
            FROM pg_depend d JOIN parts p ON p.classid = d.classid AND p.objid = d.objid
            CROSS JOIN LATERAL pg_identify_object(d.refclassid, d.refobjid, d.refobjsubid) r
            WHERE NOT (d.refclassid = 'pg_extension'::regclass AND d.refobjid = (SELECT oid FROM ext))
              AND NOT (d.refclassid = 'pg_namespace'::regclass
                       AND d.refobjid IN ((SELECT extnamespace FROM ext), 'pg_catalog'::regnamespace))
              AND r.schema IS DISTINCT FROM 'pg_catalog'
              AND r.schema IS DISTINCT FROM (SELECT extnamespace::regnamespace::text FROM ext)
            ORDER BY 1""").fetchall()
        assert not foreign, f"after {step}, members refer elsewhere: {[r[0] for r in foreign]}"
        # and the check looked at something
        members = conn.execute("""
            SELECT count(*) FROM pg_depend d JOIN pg_depend m ON m.classid = d.classid AND m.objid = d.objid
            WHERE m.refclassid = 'pg_extension'::regclass AND m.deptype = 'e'
              AND m.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ulid')
              AND d.refclassid = 'pg_type'::regclass""").fetchone()[0]
        assert members >= 30, members


def extension_works(conn: psycopg.Connection, schema: str) -> None:
    row = conn.execute(f"""
        SELECT a OPERATOR({schema}.<) b, a::pg_catalog.uuid::{schema}.ulid OPERATOR({schema}.=) a
        FROM (SELECT {schema}.gen_monotonic_ulid() AS a, {schema}.gen_monotonic_ulid() AS b) s""").fetchone()
    assert row == (True, True)


@pytest.mark.parametrize("target", ["target", None], ids=["schema", "default"])
def test_create_extension_among_decoys(mallory, server, target):
    schema = target or ROLE  # without SCHEMA: the first schema on her search_path
    planted = mallory.plant_everywhere(schema, "install", extension_exists=False)
    assert planted == 4 * (len(FUNCTIONS) + len(OPERATORS_ON_BUILTINS)) - (
        len(FUNCTIONS) + len(OPERATORS_ON_BUILTINS) if target is None else 0)
    mallory.conn.execute("CREATE EXTENSION ulid" + (f" SCHEMA {target}" if target else ""))
    assert mallory.conn.execute(
        "SELECT extnamespace::regnamespace::text, extowner::regrole::text FROM pg_extension "
        "WHERE extname = 'ulid'").fetchone() == (schema, ROLE)
    assert_nothing_ran(server, mallory.db, "CREATE EXTENSION")
    extension_works(mallory.conn, schema)
    assert_nothing_ran(server, mallory.db, "using it")


@pytest.mark.parametrize("kind", ["domain", "enum", "composite", "table"])
def test_a_type_named_ulid_in_the_target_schema_stops_the_install(mallory, server, kind):
    """The install never adopts a type it did not make: a ulid type planted
    in the target schema (with casts, as its owner may make) makes CREATE
    EXTENSION fail, and nothing of it runs."""
    make = {
        "domain": "CREATE DOMAIN target.ulid AS uuid",
        "enum": "CREATE TYPE target.ulid AS ENUM ('a')",
        "composite": "CREATE TYPE target.ulid AS (bytes uuid)",
        "table": "CREATE TABLE target.ulid (bytes uuid)",
    }
    conn = mallory.conn
    conn.execute(make[kind])
    if kind != "domain":  # casts from or to a domain are ignored
        for n, (source, target) in enumerate((("target.ulid", "uuid"), ("uuid", "target.ulid"),
                                              ("target.ulid", "bytea"), ("bytea", "target.ulid"))):
            conn.execute(f"""
                CREATE FUNCTION target.decoy_cast_{n}({source}) RETURNS {target} LANGUAGE plpgsql AS $$
                BEGIN PERFORM mallory_log.ran('cast {source} -> {target}'); RETURN NULL; END $$""")
            conn.execute(f"CREATE CAST ({source} AS {target}) WITH FUNCTION target.decoy_cast_{n}({source})")
    mallory.plant_everywhere("target", "install", extension_exists=False)
    with pytest.raises(psycopg.errors.DuplicateObject, match='type "ulid" already exists'):
        conn.execute("CREATE EXTENSION ulid SCHEMA target")
    with server.connect(mallory.db) as su:
        assert su.execute("SELECT count(*) FROM pg_extension WHERE extname = 'ulid'").fetchone() == (0,)
        assert su.execute("SELECT is_called FROM mallory_log.calls").fetchone() == (False,)
        assert su.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [ROLE]).fetchone() == (False,)


@pytest.mark.builds(*ends_of_run())
def test_own_ulid_uuid_operators_stop_the_update(swap, mallory, server):
    """The update to 0.4.0 adds the operators between ulid and uuid. One the
    updating role made before, in the extension's schema, is never adopted:
    the update stops, names it and says what to do, and nothing of it runs;
    once it is dropped, the update goes through. From 0.3.0, the last
    release without them, on the oldest and the newest build of a run, as
    every update of an older release is tested (its script no longer
    changes)."""
    old = "0.3.0"
    assert old in RELEASES
    swap.install_release(old)
    try:
        mallory.conn.execute(f"CREATE EXTENSION ulid VERSION '{old}' SCHEMA target")
    finally:
        swap.restore()
    mallory.reconnect()
    mallory.plant("target", "squat", [("=", "uuid", "target.ulid")])
    with pytest.raises(psycopg.errors.DuplicateFunction) as refused:
        mallory.conn.execute("ALTER EXTENSION ulid UPDATE")
    assert "schema target already has =(uuid,ulid)" in str(refused.value)
    assert "Drop those operators" in refused.value.diag.message_hint
    assert mallory.conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() == (old,)
    assert_nothing_ran(server, mallory.db, "the refused update")

    mallory.conn.execute("DROP OPERATOR target.= (uuid, target.ulid)")
    mallory.conn.execute("ALTER EXTENSION ulid UPDATE")
    assert mallory.conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() == (VERSION,)
    assert_nothing_ran(server, mallory.db, "the update")
    extension_works(mallory.conn, "target")


def test_array_type_name_taken_in_the_target_schema(mallory, server):
    """A type holding the name the array type would get (`_ulid`) does not
    stop the install (PostgreSQL names the array otherwise) and is never
    referred to."""
    mallory.conn.execute("CREATE TYPE target._ulid AS ENUM ('a')")
    mallory.plant_everywhere("target", "install", extension_exists=False)
    mallory.conn.execute("CREATE EXTENSION ulid SCHEMA target")
    assert_nothing_ran(server, mallory.db, "CREATE EXTENSION")
    extension_works(mallory.conn, "target")


@pytest.mark.parametrize("old", earlier_releases())
def test_update_and_resync_among_decoys(old, swap, mallory, server):
    swap.install_release(old)
    try:
        mallory.plant_everywhere("target", "old", extension_exists=False)
        mallory.conn.execute(f"CREATE EXTENSION ulid VERSION '{old}' SCHEMA target")
        assert_nothing_ran(server, mallory.db, f"CREATE EXTENSION ulid VERSION '{old}'")
    finally:
        swap.restore()

    # a new session, which loads the new library
    mallory.reconnect()
    mallory.plant_everywhere("target", "update", extension_exists=True)
    mallory.conn.execute("ALTER EXTENSION ulid UPDATE")
    assert mallory.conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() == (VERSION,)
    assert_nothing_ran(server, mallory.db, f"ALTER EXTENSION ulid UPDATE from {old}")

    mallory.plant_everywhere("target", "resync", extension_exists=True)
    mallory.conn.execute(RESYNC)
    assert mallory.conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() == (VERSION,)
    assert_nothing_ran(server, mallory.db, "the resync command")
    extension_works(mallory.conn, "target")


def test_resync_of_a_fresh_install_among_decoys(mallory, server):
    mallory.conn.execute("CREATE EXTENSION ulid SCHEMA target")
    mallory.plant_everywhere("target", "resync", extension_exists=True)
    mallory.conn.execute(RESYNC)
    assert_nothing_ran(server, mallory.db, "the resync command")


# an argument of each type the decoy functions take
ARGUMENT = {"text": "'server_version_num'::text", "boolean": "true", "name": "'server_version_num'::name",
            "character varying": "'server_version_num'::varchar", "character": "'server_version_num'::char(18)",
            "oid": "0::oid"}
SPECIAL_ARGUMENTS = {"to_regprocedure": "'pg_catalog.now()'", "set_config": "'application_name', 'x', true",
                     "int4": "'7'::text", "regnamespace": "'target'::text"}


def test_each_decoy_fires_when_reached(mallory, server):
    """The decoys are live: run by a superuser, each logs itself and makes
    mallory a superuser (rolled back here). And the one for
    `oid = regnamespace` in the target schema is what an unqualified `=` in
    a DO block, run with the search_path the scripts run with, picks over
    pg_catalog's: the update scripts of 0.2.0 had such an `=`, and now
    qualify every operator."""
    conn = mallory.conn
    conn.execute("CREATE EXTENSION ulid SCHEMA target")
    mallory.plant("target", "probe", OPERATORS_ON_BUILTINS + operators_on_ulid("target", elsewhere=False))
    with server.connect(mallory.db, autocommit=False) as su:
        calls = []
        for name, args, _, _ in FUNCTIONS:
            given = [ARGUMENT[t.strip()] for t in args.split(",")] if args else []
            if name in SPECIAL_ARGUMENTS:
                given = [SPECIAL_ARGUMENTS[name] + (f"::{args}" if name == "to_regprocedure" else "")]
            su.execute(f"SELECT target.{name}({', '.join(given)})")
            calls.append(f"target.{name}({args})")
        for op, left, right in OPERATORS_ON_BUILTINS + operators_on_ulid("target", elsewhere=False):
            su.execute(f"SELECT NULL::{left} OPERATOR(target.{op}) NULL::{right}")
            calls.append(f"target.{op}({left}, {right})")
        logged = [r[0] for r in su.execute("SELECT decoy FROM mallory_log.log ORDER BY at, ctid").fetchall()]
        assert logged == [f"probe {c}" for c in calls]
        assert su.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [ROLE]).fetchone() == (True,)
        su.rollback()

        su.execute("SET LOCAL search_path = target, pg_temp")  # as extension scripts run
        su.execute("""DO $$ BEGIN
            PERFORM FROM pg_catalog.pg_opfamily f WHERE f.opfnamespace = 'target'::pg_catalog.regnamespace;
        END $$""")
        fired = su.execute("SELECT array_agg(DISTINCT decoy) FROM mallory_log.log").fetchone()[0]
        assert fired == ["probe target.=(oid, regnamespace)"]
        assert su.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [ROLE]).fetchone() == (True,)
        su.rollback()
    with server.connect(mallory.db) as su:
        assert su.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [ROLE]).fetchone() == (False,)
        # the counter is not transactional: it saw every call
        assert su.execute("SELECT last_value FROM mallory_log.calls").fetchone()[0] > len(calls)
