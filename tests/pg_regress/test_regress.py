"""The pg_regress suite: user-facing behaviour as SQL with expected output.

Each `sql/NAME.sql` beside this file runs through the server's own
pg_regress in a fresh database and must reproduce `expected/NAME.out`
exactly. Where a PostgreSQL version prints something differently,
`expected/NAME.pgNN.out` holds the output from that version on. A file whose first
lines say `-- requires: pg16` runs on PostgreSQL 16 and later only.

Set ULID_REGRESS_ACCEPT=1 to write the actual output over the expected file
(then review the diff in git). README.md here says how to add a test.
"""

from __future__ import annotations

import os

import pytest

from harness import regress
from harness.pgcluster import major_version


def pytest_generate_tests(metafunc):
    if "regress_test" in metafunc.fixturenames:
        metafunc.parametrize("regress_test", regress.names_for(major_version(metafunc.config.getoption("--build"))))


def test_every_sql_file_has_expected_output():
    for sql in (regress.REGRESS / "sql").glob("*.sql"):
        assert (regress.REGRESS / "expected" / f"{sql.stem}.out").exists(), f"{sql.name} has no expected output"
    for out in (regress.REGRESS / "expected").glob("*.out"):
        assert (regress.REGRESS / "sql" / f"{out.name.split('.')[0]}.sql").exists(), f"{out.name} has no test"


def test_regress(regress_test, cluster, tmp_path):
    failure = regress.run(regress_test, cluster, tmp_path, accept=os.environ.get("ULID_REGRESS_ACCEPT") == "1")
    if failure:
        pytest.fail(f"pg_regress {regress_test} failed on PostgreSQL {cluster.version}:\n{failure}")
