"""The pg_regress suite of tests/pg_regress, against the private clusters (tests/pg_regress/test_regress.py)
or the Debian servers of tests/release. A server needs `version` (major), `dir` (socket directory), `port`,
`create_database`, and the `bindir` and `pkglibdir` of a local PostgreSQL of that version (its pg_regress)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

REGRESS = Path(__file__).resolve().parents[1] / "pg_regress"


def required_version(sql: Path) -> int:
    return next((int(m.group(1)) for line in sql.read_text().splitlines()[:5]
                 if (m := re.match(r"--\s*requires:\s*pg(\d+)", line))), 0)


def names_for(version: int) -> list[str]:
    return sorted(p.stem for p in (REGRESS / "sql").glob("*.sql") if required_version(p) <= version)


def expected_file(name: str, version: int) -> Path:
    """NAME.pgNN.out for the newest NN at or below this version, else NAME.out: an output that changed in some
    release holds for the releases after it."""
    variants = sorted((int(p.name.split(".pg")[1].split(".")[0]), p)
                      for p in (REGRESS / "expected").glob(f"{name}.pg*.out"))
    return ([p for v, p in variants if v <= version] or [REGRESS / "expected" / f"{name}.out"])[-1]


def run(name: str, server, work: Path, accept: bool = False) -> str | None:
    """NAME in a fresh database of SERVER: None if its output is as expected or accepted, else what differs."""
    work_in = work / "in"
    (work_in / "sql").mkdir(parents=True)
    (work_in / "expected").mkdir()
    shutil.copy(REGRESS / "sql" / f"{name}.sql", work_in / "sql")
    expected = expected_file(name, server.version)
    if not (expected.exists() or accept):
        return f"no expected output for {name}"
    (work_in / "expected" / f"{name}.out").write_bytes(expected.read_bytes() if expected.exists() else b"")

    dbname = server.create_database("regress_" + name, extension=False)
    out_dir = work / "out"
    out_dir.mkdir()
    os.chmod(work, 0o755)
    result = subprocess.run(
        [str(Path(server.pkglibdir) / "pgxs" / "src" / "test" / "regress" / "pg_regress"),
         f"--bindir={server.bindir}", f"--host={server.dir}", f"--port={server.port}", "--user=postgres",
         "--use-existing", f"--dbname={dbname}", f"--inputdir={work_in}", f"--outputdir={out_dir}", name],
        capture_output=True, text=True)
    actual = out_dir / "results" / f"{name}.out"
    if accept and actual.exists():
        shutil.copy(actual, expected)  # NAME.out when there is none yet (expected_file)
        return None
    if result.returncode != 0:
        diffs = out_dir / "regression.diffs"
        return diffs.read_text() if diffs.exists() else result.stdout + result.stderr
    return None
