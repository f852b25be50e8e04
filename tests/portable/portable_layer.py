"""What the tests of the portable layer (portable/ulid_portable.sql) share:
installing the file as a user would, and running calls that may fail,
each with the error it raised."""

from __future__ import annotations

import subprocess

import psycopg

from harness.pgcluster import ROOT, Cluster
from harness.vectors import outcomes as errors_of  # noqa: F401 (the portable tests' name)

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
