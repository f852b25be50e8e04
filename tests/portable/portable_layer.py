"""What the tests of the portable layer (portable/ulid_portable.sql) share:
installing the file as a user would, and running calls that may fail,
each with the error it raised."""

from __future__ import annotations

import subprocess

import psycopg

from harness.pgcluster import ROOT, Cluster

PORTABLE_SQL = ROOT / "portable" / "ulid_portable.sql"


def install_portable(cluster: Cluster, dbname: str, user: str = "postgres",
                     options: str | None = None) -> subprocess.CompletedProcess:
    """Runs the file with psql, as a user would, stopping at the first error."""
    env = cluster.env()
    env.update(PGDATABASE=dbname, PGUSER=user)
    if options is not None:
        env["PGOPTIONS"] = options
    result = subprocess.run(
        [str(cluster.bindir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", str(PORTABLE_SQL)],
        env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result


def has_pgcrypto(conn) -> bool:
    return conn.execute(
        "SELECT count(*) FROM pg_available_extensions WHERE name = 'pgcrypto'").fetchone()[0] == 1


def errors_of(conn, calls: list[str], inputs: list) -> list[tuple]:
    """Each call (an SQL expression of its one parameter, $1) on each input,
    in a loop in the server: the SQLSTATE, message, detail and hint of the
    error it raised, or ('accepted', its value as text) when it raised none.
    Returns (input's index, call, outcome) for every pair."""
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
                        INSERT INTO pg_temp.error_outcomes VALUES (c.n, {k}, ARRAY[st, msg, det, hnt]);
                    END;
                END LOOP;
            END $$""")
    rows = conn.execute("SELECT n, call, outcome FROM pg_temp.error_outcomes ORDER BY n, call").fetchall()
    return [(n, calls[k], tuple(outcome)) for n, k, outcome in rows]


# Session settings that change how SQL reads a literal, prints a value or
# finds a name, all at once: the layer and the type must answer in such a
# session as in a default one (test_portable_sessions.py tries each alone).
ALL_AT_ONCE = [("standard_conforming_strings", "off"), ("bytea_output", "escape"), ("DateStyle", "German"),
               ("IntervalStyle", "sql_standard"), ("TimeZone", "America/St_Johns"), ("extra_float_digits", "-15"),
               ("lc_numeric", "C.utf8"), ("lc_time", "C.utf8"), ("client_encoding", "LATIN1"),
               ("search_path", "")]


# PostgreSQL 19 reads every string literal as the standard does: it refuses
# to turn standard_conforming_strings off (0A000, "non-standard string
# literals are not supported"), so sessions there cannot have that setting.
def server_takes(cluster: Cluster, name: str, value: str) -> bool:
    return not (cluster.version >= 19 and name.lower() == "standard_conforming_strings"
                and value.lower() in ("off", "false", "0", "no"))


def all_at_once(cluster: Cluster) -> list[tuple[str, str]]:
    """ALL_AT_ONCE less what this build's server refuses to set."""
    return [(name, value) for name, value in ALL_AT_ONCE if server_takes(cluster, name, value)]


def session(cluster: Cluster, dbname: str, settings) -> psycopg.Connection:
    """A new session with the settings, made before its first call of
    either implementation (which is when PL/pgSQL reads a function)."""
    conn = psycopg.connect(cluster.conninfo(dbname), autocommit=True)
    for name, value in settings:
        conn.execute("SELECT pg_catalog.set_config(%s, %s, false)", [name, value])
    return conn
