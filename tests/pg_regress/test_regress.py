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
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.pgcluster import major_version

REGRESS = Path(__file__).resolve().parent


def required_version(sql: Path) -> int:
    for line in sql.read_text().splitlines()[:5]:
        m = re.match(r"--\s*requires:\s*pg(\d+)", line)
        if m:
            return int(m.group(1))
    return 0


def pytest_generate_tests(metafunc):
    if "regress_test" in metafunc.fixturenames:
        version = major_version(metafunc.config.getoption("--pg"))
        names = sorted(
            p.stem for p in (REGRESS / "sql").glob("*.sql") if required_version(p) <= version
        )
        metafunc.parametrize("regress_test", names)


def expected_file(name: str, version: int) -> Path:
    """NAME.pgNN.out for the newest NN at or below this version, else NAME.out:
    an output that changed in some release holds for the releases after it."""
    variants = sorted(
        (int(p.name.split(".pg")[1].split(".")[0]), p)
        for p in (REGRESS / "expected").glob(f"{name}.pg*.out")
    )
    chosen = [p for v, p in variants if v <= version]
    return chosen[-1] if chosen else REGRESS / "expected" / f"{name}.out"


def test_every_sql_file_has_expected_output():
    for sql in (REGRESS / "sql").glob("*.sql"):
        assert (REGRESS / "expected" / f"{sql.stem}.out").exists(), f"{sql.name} has no expected output"
    for out in (REGRESS / "expected").glob("*.out"):
        assert (REGRESS / "sql" / f"{out.name.split('.')[0]}.sql").exists(), f"{out.name} has no test"


def test_regress(regress_test, cluster, tmp_path):
    name = regress_test
    work_in = tmp_path / "in"
    (work_in / "sql").mkdir(parents=True)
    (work_in / "expected").mkdir()
    shutil.copy(REGRESS / "sql" / f"{name}.sql", work_in / "sql")
    expected = expected_file(name, cluster.version)
    accept = os.environ.get("ULID_REGRESS_ACCEPT") == "1"
    if expected.exists():
        shutil.copy(expected, work_in / "expected" / f"{name}.out")
    elif not accept:
        pytest.fail(f"no expected output for {name}")
    else:
        (work_in / "expected" / f"{name}.out").write_text("")

    dbname = cluster.create_database("regress_" + name, extension=False)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    os.chmod(tmp_path, 0o755)
    result = subprocess.run(
        [
            str(cluster.pkglibdir / "pgxs" / "src" / "test" / "regress" / "pg_regress"),
            f"--bindir={cluster.bindir}",
            f"--host={cluster.dir}",
            f"--port={cluster.port}",
            "--user=postgres",
            "--use-existing",
            f"--dbname={dbname}",
            f"--inputdir={work_in}",
            f"--outputdir={out_dir}",
            name,
        ],
        capture_output=True,
        text=True,
    )
    actual = out_dir / "results" / f"{name}.out"
    if accept and actual.exists():
        target = expected if expected.exists() else REGRESS / "expected" / f"{name}.out"
        shutil.copy(actual, target)
        return
    diffs = out_dir / "regression.diffs"
    if result.returncode != 0:
        detail = diffs.read_text() if diffs.exists() else result.stdout + result.stderr
        pytest.fail(f"pg_regress {name} failed on PostgreSQL {cluster.version}:\n{detail}")

