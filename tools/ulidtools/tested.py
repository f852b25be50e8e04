"""The pages' generated tables, written again by `tables --write` with builds.py's: what is tested on which build
(docs/versions.md), from the tests' markers as pytest collects them (the Rust tests: builds.lint_builds), and the
pairs pg_upgrade is tested between: docs/development.md, "The PostgreSQL builds".
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import NamedTuple

from ulidtools import builds, project
from ulidtools.base import ROOT

START = "<!-- tested where: generated from the tests' markers (python3 -m ulidtools tables) -->"
END = "<!-- /tested where -->"
UPGRADES_START = "<!-- pg_upgrade pairs: generated from inputs.manifest (python3 -m ulidtools tables) -->"
UPGRADES_END = "<!-- /pg_upgrade pairs -->"
CARGO_PGRX_TEST = "cargo pgrx test"  # a row's tests that are not pytest's: they run on builds.lint_builds


class Row(NamedTuple):
    anchor: str
    what: str
    tests: tuple[str, ...]  # pytest node id prefixes, from the repository's root


ROWS = (
    Row("tested-sql", "the type, casts, operators, indexes, generators, settings and errors (the pg_regress suite; the "
        "server, security and upgrade tests of what differs between versions; the pages' examples, but for the "
        "time-series page's, which the TimescaleDB row's build runs)", ("tests/pg_regress/",)),
    Row("tested-same-everywhere", "what is the same on every version: public ids against pgcrypto's AES, "
        "the command-line tool beside a server, the moves from uuid and from pgx_ulid, a backend's memory "
        "over two million rows", ("tests/server/test_public_ids.py", "tests/cli/test_cli_server.py",
                                  "tests/operations/test_migration.py", "tests/operations/test_migrating.py",
                                  "tests/server/test_hostile.py::test_two_million_values_keep_memory_flat")),
    Row("tested-in-server", "the extension's own unit, property and in-server (`#[pg_test]`) tests "
        "(`cargo pgrx test`), compiled by clippy: on the builds whose features reach every version-dependent "
        "`#[cfg]`", (CARGO_PGRX_TEST,)),
    Row("tested-shared-state", "the monotonic state shared by the sessions of a database, and databases "
        "kept apart", ("tests/server/test_databases.py::test_a_database_cannot_watch_another",)),
    Row("tested-many-databases", "more databases than the shared table has places, made by an ordinary role",
        ("tests/server/test_databases.py::test_a_tenant_cannot_fill_the_table",)),
    Row("tested-shared-faults", "a backend terminated, timed out or killed at a wait of the shared table",
        ("tests/server/test_shared_faults.py",)),
    Row("tested-go", "Go: pgx v4 and lib/pq", ("tests/clients/test_client_go.py",)),
    Row("tested-go-v5", "Go: pgx v5 and GORM", ("tests/clients/test_client_go_v5.py",)),
    Row("tested-node-postgres", "JavaScript: node-postgres", ("tests/clients/test_client_js.py",)),
    Row("tested-js-orms", "JavaScript: Prisma, Drizzle, postgres.js and TypeORM",
        ("tests/clients/test_client_js_orm.py",)),
    Row("tested-rust", "Rust: postgres, tokio-postgres and sqlx", ("tests/clients/test_client_rust.py",)),
    Row("tested-psycopg", "Python: psycopg 3", ("tests/clients/test_client_psycopg.py",)),
    Row("tested-sqlalchemy", "Python: SQLAlchemy 2", ("tests/clients/test_client_sqlalchemy.py",)),
    Row("tested-django", "Python: Django", ("tests/clients/test_client_django.py",)),
    Row("tested-java", "Java: pgjdbc 42.5, in text and in binary", ("tests/clients/test_client_java.py",)),
    Row("tested-ruby", "Ruby: ruby-pg and ActiveRecord 6.1 and 7.2 (7.2 on 19 only)",
        ("tests/clients/test_client_ruby.py",)),
    Row("tested-php", "PHP: PDO pgsql, Doctrine DBAL 3.6 and ORM 2.14", ("tests/clients/test_client_php.py",)),
    Row("tested-portable", "the portable layer", ("tests/portable/test_portable_generators.py",)),
    Row("tested-portable-public-ids", "the portable layer's public ids (with pgcrypto)",
        ("tests/portable/test_portable_public_ids.py",)),
    Row("tested-replication", "logical replication and pg_dump", ("tests/operations/test_replication.py",
                                                                  "tests/operations/test_dump.py")),
    Row("tested-failover", "a standby promoted after its primary stops", ("tests/operations/test_failover.py",)),
    Row("tested-auto-failover", "failover with pg_auto_failover (Debian's)",
        ("tests/operations/test_auto_failover.py",)),
    Row("tested-two-writers", "two servers writing and replicating to each other",
        ("tests/operations/test_two_writers.py",)),
    Row("tested-postgres-fdw", "postgres_fdw, and sharding over it", ("tests/operations/test_fdw.py",)),
    Row("tested-timescaledb", "TimescaleDB (Debian's)", ("tests/timeseries/test_timescaledb.py",)),
    Row("tested-pg-partman", "pg_partman (Debian's)", ("tests/timeseries/test_partman.py",)),
    Row("tested-citus", "Citus, wherever it is installed into the build", ("tests/citus/",)),
    Row("tested-update", "`ALTER EXTENSION ulid UPDATE` from the previous release",
        (f"tests/upgrades/test_upgrade.py::test_update_from_an_earlier_release[{project.RELEASED[0]}]",)),
    Row("tested-update-older", "`ALTER EXTENSION ulid UPDATE` from every release before it",
        tuple(f"tests/upgrades/test_upgrade.py::test_update_from_an_earlier_release[{old}]"
              for old in project.RELEASED[1:])),
    Row("tested-tarball", "a tarball made and installed with its install.sh",
        ("tests/packaging/test_package.py::test_package_installs_on_a_server_without_rust",)),
    Row("tested-deb", "the Debian package, installed and removed with apt",
        ("tests/packaging/test_debian_package.py",)),
)


def collect() -> dict[str, dict]:
    """Every test pytest collects, with its builds (--builds-report), in a run of every build."""
    env = {k: v for k, v in os.environ.items() if k != "ULID_BUILDS"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tools"), str(ROOT / "tests")])
    with tempfile.TemporaryDirectory() as work:
        report = Path(work) / "builds.json"
        done = subprocess.run([str(project.VENV / "bin" / "pytest"), "--collect-only", "-q", "-p", "no:cacheprovider",
                               "tests", "--builds-report", str(report)], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        if done.returncode != 0 or not report.exists():
            raise RuntimeError(f"pytest could not collect the tests:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        return json.loads(report.read_text())


def builds_of(row: Row, collected: dict[str, dict]) -> list[str]:
    if row.tests == (CARGO_PGRX_TEST,):
        return builds.lint_builds(list(builds.BUILDS))
    tests = [t for node, t in collected.items() if node.startswith(row.tests)]
    if not tests:
        raise ValueError(f"{row.anchor}: no test is {' or '.join(row.tests)}")
    return [name for name in builds.BUILDS if any(name in t["builds"] for t in tests)]


def table(collected: dict[str, dict]) -> list[list[str]]:
    rows = []
    for row in ROWS:
        on = set(builds_of(row, collected))
        rows.append([f'<a id="{row.anchor}"></a>{row.what}', *("✓" if name in on else "" for name in builds.BUILDS)])
    return rows


def marked(page: str) -> dict[str, set[str]]:
    """The builds the page's table of what is tested where marks (✓), by row anchor."""
    lines = page[page.index(START):page.index(END)].splitlines()[1:]
    names = [cell.strip() for cell in lines[0].strip().strip("|").split("|")][1:]
    marks = {}
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        anchor = re.match(r'<a id="([^"]+)"></a>', cells[0])
        if anchor:
            marks[anchor.group(1)] = {name for name, cell in zip(names, cells[1:]) if cell == "✓"}
    return marks


def rows_not_run(build: str, ran: dict[str, dict], page: str) -> list[str]:
    """The rows the page marks for BUILD whose every test a run of BUILD (RAN: conftest.py's --ran-report) skipped,
    with the reasons given; a row with no test in the run (tests that run once per run) is not judged."""
    marks = marked(page)
    problems = []
    for row in ROWS:
        if build not in marks.get(row.anchor, set()):
            continue
        mine = [result for node, result in ran.items() if node.startswith(row.tests)]
        if mine and all(result["outcome"] == "skipped" for result in mine):
            reasons = "; ".join(sorted({result.get("reason", "") for result in mine}))
            problems.append(f"{row.anchor} ({row.what}): the table marks {build}, and every test of it "
                            f"was skipped there: {reasons}")
    return problems


def with_tables(page: str, collected: dict[str, dict] | None) -> str:
    """The page with its generated tables made again (COLLECTED: collect()'s, needed only for the table of tests)."""
    return builds.replace_tables(page, (
        (START, END, ["what", *builds.BUILDS], lambda: table(collected)),
        (UPGRADES_START, UPGRADES_END, ['<a id="tested-pg-upgrade"></a>to', "from"],
         lambda: [[new, ", ".join(olds)] for new, olds in builds.UPGRADES.items()])))


def write_tables(pages: list[str]) -> None:
    texts = {name: (ROOT / name).read_text() for name in pages}  # (an absolute NAME stays as it is)
    collected = collect() if any(START in text for text in texts.values()) else None
    for name, text in texts.items():
        (ROOT / name).write_text(with_tables(builds.with_table(text), collected))
