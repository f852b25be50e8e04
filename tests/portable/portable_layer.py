"""What the tests of the portable layer (portable/ulid_portable.sql) share:
installing the file as a user would, and running calls that may fail,
each with the error it raised."""

from __future__ import annotations

import subprocess

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
    """Each call (SQL with one parameter, $1) on each input, in one server
    round trip: the SQLSTATE, message, detail and hint of the error it
    raised, or ('accepted', value as text) when it raised none."""
    conn.execute("DROP TABLE IF EXISTS pg_temp.error_cases")
    conn.execute("CREATE TEMP TABLE error_cases (n int, call text, input text, outcome text[])")
    with conn.cursor().copy("COPY error_cases (n, call, input) FROM STDIN") as copy:
        for n, value in enumerate(inputs):
            for call in calls:
                copy.write_row((n, call, value))
    conn.execute("""
        DO $$
        DECLARE c record; result text; st text; msg text; det text; hnt text;
        BEGIN
            FOR c IN SELECT ctid, * FROM error_cases LOOP
                BEGIN
                    EXECUTE 'SELECT (' || c.call || ')::text' INTO result USING c.input;
                    UPDATE error_cases SET outcome = ARRAY['accepted', result] WHERE ctid = c.ctid;
                EXCEPTION WHEN OTHERS THEN
                    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                                            det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
                    UPDATE error_cases SET outcome = ARRAY[st, msg, det, hnt] WHERE ctid = c.ctid;
                END;
            END LOOP;
        END $$""")
    rows = conn.execute("SELECT n, call, outcome FROM error_cases ORDER BY n, call").fetchall()
    return [(n, call, tuple(outcome)) for n, call, outcome in rows]
