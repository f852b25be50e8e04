"""Every example of the `ulid` command-line tool in the documentation runs,
and prints what the page shows.

A fenced block whose info string is `sh` and whose first line starts with
`$ ` is a shell transcript: a line starting `$ ` is a command, run with
bash, and the lines up to the next `$ ` are what it prints (standard output
and standard error together). Comparison is exact except for trailing
whitespace and trailing blank lines; `…` (U+2026) in an expected line
matches any run of characters within that line, for values that vary (a
new id, the current time). Other `sh` blocks (install instructions) are
not run.

The commands of a page run one after the other in a directory of their
own (a file one makes, the next can read), with the `ulid` that
scripts/test built first in PATH, and psql connected to a database of the
build under test with the extension created, so that a page can show
`psql -Atc '...' | ulid parse`.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.cli import ulid_binary
from harness.pages import normalized, output_matches
from harness.pgcluster import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DATABASE = "cli_docs"
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)")


@dataclass
class Command:
    line: int  # where it is on the page, 1-based
    shell: str
    expected: list[str] = field(default_factory=list)


def transcripts(path: Path) -> list[Command]:
    """The commands of the page's shell transcripts, in page order."""
    lines = path.read_text().split("\n")
    commands: list[Command] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, marker = fence.group("indent"), fence.group("fence")
        end = i + 1
        while end < len(lines) and lines[end].strip() != marker:
            end += 1
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip()
                for line in lines[i + 1:end]]
        if fence.group("info") == "sh" and body and body[0].startswith("$ "):
            for k, line in enumerate(body):
                if line.startswith("$ "):
                    commands.append(Command(i + 2 + k, line[2:]))
                else:
                    commands[-1].expected.append(line)
        i = end + 1
    return commands


PAGES_WITH_EXAMPLES = [page for page in PAGES if transcripts(page)]


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


@pytest.mark.parametrize("page", PAGES_WITH_EXAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_cli_examples(page, cli_env, tmp_path):
    failures = []
    for command in transcripts(page):
        run = subprocess.run(["bash", "-o", "pipefail", "-c", command.shell], cwd=tmp_path, env=cli_env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        actual = run.stdout.split("\n")
        expected, got = normalized(command.expected), normalized(actual)
        if not output_matches(expected, got):
            diff = "\n".join(difflib.unified_diff(expected, got, "page", "actual", lineterm=""))
            failures.append(f"{page.relative_to(ROOT)}:{command.line}: $ {command.shell}\n{diff}")
    assert not failures, "\n\n".join(failures)
