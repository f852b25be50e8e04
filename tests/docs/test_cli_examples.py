"""Every example of the command-line tool, `ulid-tool`, in the documentation
runs, and prints what the page shows.

A fenced block whose info string is `sh` and whose first line starts with
`$ ` is a shell transcript: a line starting `$ ` is a command, and the
lines up to the next `$ ` are what it prints (standard output and standard
error together). Comparison is exact except for trailing whitespace and
trailing blank lines; `…` (U+2026) in an expected line matches any run of
characters within that line, for values that vary (a new id, the current
time). Other `sh` blocks (install instructions) are not run.

A page says `sh`, so its commands must work in any POSIX shell, not in
bash alone: each page runs twice, once with bash and once with dash (or
`sh`, where dash is not installed), which has none of bash's extensions
($'...', [[ ]], arrays, <(...), `source`, brace expansion). Every `sh`
block, run or not, must also be read by that shell without a syntax error
(`-n`).

The commands of a page run one after the other in a directory of their
own (a file one makes, the next can read), with the `ulid-tool` that
scripts/test built first in PATH, and psql connected to a database of the
build under test with the extension created (anew for each shell), so that
a page can show `psql -Atc '...' | ulid-tool parse`.
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.cli import ulid_binary
from harness.pages import fenced_blocks, normalized, output_matches, sh_blocks
from harness.pgcluster import ROOT

# the tool prints the same on every version (tests/conftest.py)
pytestmark = pytest.mark.same_on_every_version

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DATABASE = "cli_docs"
# a POSIX shell without bash's extensions; Debian's /bin/sh is dash
POSIX_SH = shutil.which("dash") or "sh"
# how each shell runs a command: bash fails a pipeline when any part does
# (dash has no pipefail; the output compared tells a failure there)
SHELLS = {"bash": ["bash", "-o", "pipefail", "-c"], "sh": [POSIX_SH, "-c"]}


@dataclass
class Command:
    line: int  # where it is on the page, 1-based
    shell: str
    expected: list[str] = field(default_factory=list)


def transcripts(path: Path) -> list[Command]:
    """The commands of the page's shell transcripts, in page order."""
    lines = path.read_text().split("\n")
    commands: list[Command] = []
    for i, block in fenced_blocks(lines, path.name).items():
        body = block.body(lines)
        if block.info == "sh" and body and body[0].startswith("$ "):
            for k, line in enumerate(body):
                if line.startswith("$ "):
                    commands.append(Command(i + 2 + k, line[2:]))
                else:
                    commands[-1].expected.append(line)
    return commands


PAGES_WITH_EXAMPLES = [page for page in PAGES if transcripts(page)]
PAGES_WITH_SH = [page for page in PAGES if sh_blocks(page)]


def test_the_cli_page_has_examples():
    """The page that documents the tool is checked here (and not by mistake
    written in a format this test does not read)."""
    assert ROOT / "docs" / "cli.md" in PAGES_WITH_EXAMPLES


@pytest.fixture(scope="module")
def cli_env(cluster):
    cluster.create_database(DATABASE)
    env = cluster.env()
    env.update(PATH=f"{ulid_binary().parent}:{cluster.bindir}:{os.environ['PATH']}",
               PGDATABASE=DATABASE, PGOPTIONS="-c TimeZone=UTC -c DateStyle=ISO", LC_ALL="C.UTF-8")
    env.pop("PSQLRC", None)
    env.pop("NO_COLOR", None)
    yield env
    with cluster.connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')


@pytest.mark.parametrize("page", PAGES_WITH_SH, ids=lambda p: str(p.relative_to(ROOT)))
def test_sh_blocks_are_posix_sh(page):
    """Syntax only (`-n`): what it can find of bash's extensions without
    running a block (<(...), arrays)."""
    failures = []
    for line, script in sh_blocks(page):
        check = subprocess.run([POSIX_SH, "-n"], input=script, text=True, capture_output=True)
        if check.returncode != 0:
            failures.append(f"{page.relative_to(ROOT)}:{line}: {check.stderr.strip()}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("page", PAGES_WITH_EXAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_cli_examples(page, shell, cluster, cli_env, tmp_path):
    # a database of its own for each run: a page may create tables
    cluster.create_database(DATABASE)
    failures = []
    for command in transcripts(page):
        run = subprocess.run([*SHELLS[shell], command.shell], cwd=tmp_path, env=cli_env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        actual = run.stdout.split("\n")
        expected, got = normalized(command.expected), normalized(actual)
        if not output_matches(expected, got):
            diff = "\n".join(difflib.unified_diff(expected, got, "page", "actual", lineterm=""))
            failures.append(f"{page.relative_to(ROOT)}:{command.line} ({shell}): $ {command.shell}\n{diff}")
    assert not failures, "\n\n".join(failures)
