"""The portable public ids against roles that may do more with pgcrypto than
call it: ulid_encrypt and ulid_decrypt pass the key to pgcrypto's encrypt
and decrypt, so whatever those calls run gets every key.

- The calls are bound to pgcrypto's functions when the file runs (a
  SQL-standard body from PostgreSQL 14 on, an aggregate whose final
  function is pgcrypto's on 13), so a function that a role plants in
  pgcrypto's schema later, once pgcrypto is gone or moved, is never
  called: pgcrypto cannot be dropped while the layer calls it, and
  DROP EXTENSION pgcrypto CASCADE takes the calls with it. The planted
  functions record every key they get in a table, which stays empty.
- The file refuses, with SQLSTATE 42501 and nothing installed or replaced,
  a pgcrypto that another role owns (than the one that runs the file, or
  a superuser): its owner can drop it, and the layer's functions with it.
"""

from __future__ import annotations

import os

import psycopg
import pytest

from test_portable_install import FIPS_197
from test_portable_schema_roles import CALLER, OTHER, OWNER, appdb, as_role, refused, roles, run_file  # noqa: F401

pytestmark = pytest.mark.extensions("pgcrypto")

SPEC = "00112233-4455-6677-8899-aabbccddeeff"
KEY = bytes(range(16))


def plant_recorders(conn, schema: str) -> None:
    """As OTHER: encrypt and decrypt of pgcrypto's signature in SCHEMA, each
    of which records its arguments in OTHER's table (as its owner: SECURITY
    DEFINER), then returns its data, so that a call that reaches one goes
    on quietly."""
    conn.execute(f"CREATE TABLE {schema}.seen (fn text, data bytea, key bytea)")
    for fn in ("encrypt", "decrypt"):
        conn.execute(f"""
            CREATE FUNCTION {schema}.{fn}(data bytea, key bytea, kind text) RETURNS bytea
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
            BEGIN
                INSERT INTO {schema}.seen VALUES ('{fn}', data, key);
                RETURN data;
            END $$""")
        conn.execute(f"GRANT EXECUTE ON FUNCTION {schema}.{fn}(bytea, bytea, text) TO PUBLIC")


def functions(cluster, dbname: str) -> list[tuple[str, str]]:
    """The functions in the schema ulid_portable, if there is one, each with
    the transaction that last wrote it."""
    with cluster.connect(dbname) as conn:
        return conn.execute("""SELECT oid::regprocedure::text, xmin::text FROM pg_proc
                               WHERE pronamespace = to_regnamespace('ulid_portable') ORDER BY 1""").fetchall()


def install(cluster, dbname: str) -> None:
    """The file run by OWNER, which lets every role use the schema."""
    result = run_file(cluster, dbname)
    assert result.returncode == 0, result.stderr
    with as_role(cluster, dbname, OWNER) as conn:
        conn.execute("GRANT USAGE ON SCHEMA ulid_portable TO PUBLIC")


def calls(cluster, dbname: str) -> list:
    """CALLER's ulid_encrypt and ulid_decrypt: each value, or the SQLSTATE
    of its error."""
    out = []
    with as_role(cluster, dbname, CALLER) as conn:
        for sql in (f"SELECT ulid_portable.ulid_encrypt('{SPEC}', %s)::text",
                    f"SELECT ulid_portable.ulid_decrypt('{FIPS_197[16]}', %s)::text"):
            try:
                out.append(conn.execute(sql, [KEY]).fetchone()[0])
            except psycopg.Error as error:
                out.append(error.sqlstate)
    return out


# schemas where pgcrypto is and another role may create functions: one made
# for it with CREATE granted to that role or to PUBLIC, and `public` as
# PostgreSQL 13 and 14 make it (PUBLIC may create in it)
WRITABLE = ["granted to the other role", "granted to PUBLIC", "public up to 14"]


@pytest.mark.parametrize("where", WRITABLE)
def test_a_function_planted_where_pgcrypto_was_never_gets_the_key(cluster, appdb, major, where):
    """pgcrypto in a schema where OTHER may create; the layer installed over
    it. pgcrypto cannot be dropped while the layer calls it (before, it
    could, and OTHER's encrypt then got the key of the next call); once it is
    dropped with CASCADE, and made again in another schema, OTHER plants
    encrypt and decrypt where it was: calls of the layer fail, or find
    pgcrypto where it is now once the file has run again, and never reach
    OTHER's."""
    if where == "public up to 14":
        if major >= 15:
            pytest.skip("from PostgreSQL 15 on, PUBLIC may not create in schema public")
        schema = "public"
    else:
        schema = "crypto"
        grantee = OTHER if where == "granted to the other role" else "PUBLIC"
        with cluster.connect(appdb) as conn:
            conn.execute("CREATE SCHEMA crypto")
            conn.execute(f"GRANT USAGE ON SCHEMA crypto TO PUBLIC; GRANT CREATE ON SCHEMA crypto TO {grantee}")
    with cluster.connect(appdb) as conn:
        conn.execute(f"CREATE EXTENSION pgcrypto SCHEMA {schema}")
    install(cluster, appdb)
    assert calls(cluster, appdb) == [FIPS_197[16], SPEC]

    with cluster.connect(appdb) as conn:
        try:
            conn.execute("DROP EXTENSION pgcrypto")
            plain_drop = "dropped"
        except psycopg.errors.DependentObjectsStillExist as error:
            plain_drop = (error.sqlstate, "ulid_portable." in (error.diag.message_detail or ""))
        conn.execute("DROP EXTENSION IF EXISTS pgcrypto CASCADE")
        conn.execute("CREATE SCHEMA crypto2; GRANT USAGE ON SCHEMA crypto2 TO PUBLIC")
        conn.execute("CREATE EXTENSION pgcrypto SCHEMA crypto2")
    with as_role(cluster, appdb, OTHER) as conn:
        plant_recorders(conn, schema)
        # the control: a call by name in that schema reaches OTHER's function
        conn.execute(f"SELECT {schema}.encrypt('\\x00'::bytea, '\\x01'::bytea, 'aes'::text)")
        assert conn.execute(f"DELETE FROM {schema}.seen RETURNING key").fetchall() == [(b"\x01",)]

    got = calls(cluster, appdb)
    with cluster.connect(appdb) as conn:
        assert conn.execute(f"SELECT fn, key FROM {schema}.seen").fetchall() == []
    # pgcrypto could not be dropped while the layer called it; with CASCADE
    # the calls went with it (42883: no such function)
    assert plain_drop == ("2BP01", True)
    assert got == ["42883", "42883"]
    # and come back, bound to pgcrypto in its new schema, when the file runs again
    install(cluster, appdb)
    assert calls(cluster, appdb) == [FIPS_197[16], SPEC]
    with cluster.connect(appdb) as conn:
        assert conn.execute(f"SELECT fn, key FROM {schema}.seen").fetchall() == []


def test_pgcrypto_moved_to_another_schema_is_still_the_one_called(cluster, appdb):
    """The calls name pgcrypto's functions, not a schema: after ALTER
    EXTENSION ... SET SCHEMA they find them where they went, and a function
    planted where they were is not called."""
    with cluster.connect(appdb) as conn:
        conn.execute(f"CREATE SCHEMA crypto; GRANT USAGE ON SCHEMA crypto TO PUBLIC; GRANT CREATE ON SCHEMA crypto TO {OTHER}")
        conn.execute("CREATE SCHEMA crypto2; GRANT USAGE ON SCHEMA crypto2 TO PUBLIC")
        conn.execute("CREATE EXTENSION pgcrypto SCHEMA crypto")
    install(cluster, appdb)
    with cluster.connect(appdb) as conn:
        conn.execute("ALTER EXTENSION pgcrypto SET SCHEMA crypto2")
    with as_role(cluster, appdb, OTHER) as conn:
        plant_recorders(conn, "crypto")
    assert calls(cluster, appdb) == [FIPS_197[16], SPEC]
    with cluster.connect(appdb) as conn:
        assert conn.execute("SELECT fn, key FROM crypto.seen").fetchall() == []


OWNED_DETAIL = ("ulid_encrypt and ulid_decrypt pass the key to pgcrypto's encrypt and decrypt: the owner of pgcrypto "
                "can drop it and them with it, and the owner of a function can replace it with code of its own, "
                "which would get the key.")
OWNED_HINT = ("Have pgcrypto created by a superuser or by the role that runs this file (DROP EXTENSION pgcrypto, "
              "then CREATE EXTENSION pgcrypto as that role), then run the file again.")


@pytest.mark.parametrize("installed", [False, True], ids=["first install", "run again"])
def test_a_pgcrypto_another_role_owns_is_refused(cluster, appdb, installed):
    """OTHER, which may create in the database, creates pgcrypto (a trusted
    extension) in a schema of its own: the file stops with 42501 and
    installs or replaces nothing; OTHER's encrypt and decrypt, planted once
    it has dropped its pgcrypto, never get a key. Once pgcrypto is the
    owner's, the file installs."""
    if installed:
        install(cluster, appdb)
    with cluster.connect(appdb) as conn:
        conn.execute(f'GRANT CREATE ON DATABASE "{appdb}" TO {OTHER}')
    with as_role(cluster, appdb, OTHER) as conn:
        conn.execute("CREATE SCHEMA other_crypto")
        conn.execute("GRANT USAGE ON SCHEMA other_crypto TO PUBLIC")
        conn.execute("CREATE EXTENSION pgcrypto SCHEMA other_crypto")
    before = functions(cluster, appdb)
    assert len(before) == (18 if installed else 0)
    assert refused(run_file(cluster, appdb)) == (
        "42501", f'extension "pgcrypto", or its encrypt or decrypt, belongs to another role than "{OWNER}" '
                 f'or a superuser: {OTHER}', OWNED_DETAIL, OWNED_HINT)
    assert functions(cluster, appdb) == before

    with as_role(cluster, appdb, OTHER) as conn:
        conn.execute("DROP EXTENSION pgcrypto")
        plant_recorders(conn, "other_crypto")
    got = calls(cluster, appdb)
    with cluster.connect(appdb) as conn:
        assert conn.execute("SELECT fn, key FROM other_crypto.seen").fetchall() == []
    # installed before pgcrypto was there: the functions that say to create
    # it; never installed: no schema ulid_portable
    assert got == (["55000", "55000"] if installed else ["3F000", "3F000"]), got
    with cluster.connect(appdb) as conn:
        conn.execute("CREATE SCHEMA crypto")
        conn.execute("CREATE EXTENSION pgcrypto SCHEMA crypto")
        conn.execute("GRANT USAGE ON SCHEMA crypto TO PUBLIC")
    install(cluster, appdb)
    assert calls(cluster, appdb) == [FIPS_197[16], SPEC]


def test_public_ids_are_bound_to_pgcrypto(cluster, appdb, major):
    """What binds the calls: on 14 and later the functions' bodies are the
    SQL standard's (prosqlbody) and depend on pgcrypto's functions; on 13,
    aggregates of the schema whose final functions are pgcrypto's do. And
    they are still AES of the block, for keys of every length."""
    with cluster.connect(appdb) as conn:
        conn.execute("CREATE SCHEMA crypto")
        conn.execute("CREATE EXTENSION pgcrypto SCHEMA crypto")
        conn.execute("GRANT USAGE ON SCHEMA crypto TO PUBLIC")
    install(cluster, appdb)
    with cluster.connect(appdb) as conn:
        depends = conn.execute("""
            SELECT pg_describe_object(classid, objid, 0), pg_describe_object(refclassid, refobjid, 0)
            FROM pg_depend
            WHERE refclassid = 'pg_proc'::regclass
              AND refobjid IN ('crypto.encrypt(bytea, bytea, text)'::regprocedure, 'crypto.decrypt(bytea, bytea, text)'::regprocedure)
              AND classid = 'pg_proc'::regclass AND deptype = 'n'
            ORDER BY 1""").fetchall()
        if major >= 14:
            assert depends == [("function ulid_portable.ulid_decrypt(uuid,bytea)", "function crypto.decrypt(bytea,bytea,text)"),
                               ("function ulid_portable.ulid_encrypt(uuid,bytea)", "function crypto.encrypt(bytea,bytea,text)")]
            assert conn.execute("""SELECT count(*) FROM pg_proc WHERE prosqlbody IS NOT NULL
                                   AND oid IN ('ulid_portable.ulid_encrypt(uuid, bytea)'::regprocedure,
                                               'ulid_portable.ulid_decrypt(uuid, bytea)'::regprocedure)""").fetchone() == (2,)
        else:
            assert depends == [("function ulid_portable._aes_decrypt(bytea,text,bytea)", "function crypto.decrypt(bytea,bytea,text)"),
                               ("function ulid_portable._aes_encrypt(bytea,text,bytea)", "function crypto.encrypt(bytea,bytea,text)")]
    with as_role(cluster, appdb, CALLER) as conn:
        for length, expected in FIPS_197.items():
            key = bytes(range(length))
            assert conn.execute(f"SELECT ulid_portable.ulid_encrypt('{SPEC}', %s)::text", [key]).fetchone() == (expected,)
            assert conn.execute("SELECT ulid_portable.ulid_decrypt(%s::uuid, %s)::text", [expected, key]).fetchone() == (SPEC,)
        rows = [(os.urandom(16).hex(), os.urandom(32)) for _ in range(200)]
        for raw, key in rows:
            assert conn.execute("""SELECT ulid_portable.ulid_decrypt(ulid_portable.ulid_encrypt(%s::uuid, %s), %s)::text
                                       = %s::uuid::text""", [raw, key, key, raw]).fetchone() == (True,)
