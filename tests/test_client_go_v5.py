"""Go clients on pgx v5 and GORM against the server, through the adapters
users copy: examples/go/ulidpgx5 (a pgx v5 codec) and examples/go/ulidgorm
(a GORM field type), with oklog/ulid v2.

Go 1.27 and the modules' sources are what inputs.manifest pins, installed
outside the checkout by scripts/setup-go; this test asks that script where
they are (`--print-env`) and skips, saying why, where they are not there.
It builds in module mode with one `replace` per module and no module
proxy; the module is assembled in target/go-v5-client from links to the
test directory and the adapters, so the file users copy is the file
compiled."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests" / "clients" / "go-v5"
ADAPTERS = {"ulidpgx5": ROOT / "examples" / "go" / "ulidpgx5", "ulidgorm": ROOT / "examples" / "go" / "ulidgorm"}
BUILD = ROOT / "target" / "go-v5-client"
MODULE = "ulidclients"
PACKAGES = [f"{MODULE}/{name}" for name in (*ADAPTERS, "clients")]


def go_env() -> dict[str, str]:
    """The environment scripts/setup-go prints; skips when it has nothing."""
    result = subprocess.run([str(ROOT / "scripts" / "setup-go"), "--print-env"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        why = re.sub(r"\x1b\[[0-9;]*m", "", result.stderr).strip()
        pytest.skip(f"Go and the pinned pgx v5 and GORM sources are not installed (scripts/setup-go installs them): {why}")
    env = {}
    for line in result.stdout.splitlines():
        key, _, value = line.removeprefix("export ").partition("=")
        env[key] = value
    return env


def module_tree(gocode: Path) -> Path:
    """A module with the tests and the adapters linked in, requiring the
    pinned modules through the replace directives scripts/setup-go wrote."""
    tree = BUILD / "module"
    tree.mkdir(parents=True, exist_ok=True)
    replaces = (gocode / "replace.mod").read_text()
    (tree / "go.mod").write_text(f"module {MODULE}\n\ngo 1.25\n\n{replaces}")
    (tree / "go.sum").unlink(missing_ok=True)
    for name, source in (*ADAPTERS.items(), ("clients", TESTS)):
        link = tree / name
        if link.is_symlink() and Path(os.readlink(link)) == source:
            continue
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(source, target_is_directory=True)
    return tree


def test_go_v5_clients(cluster, db):
    tools = go_env()
    tree = module_tree(Path(tools["ULID_GOCODE"]))
    env = cluster.env()
    env.update(tools)
    env["PGDATABASE"] = db

    vet = subprocess.run([tools["ULID_GO"], "vet", *PACKAGES], cwd=tree, env=env,
                         capture_output=True, text=True, timeout=900)
    assert vet.returncode == 0, vet.stdout + vet.stderr

    result = subprocess.run(
        [tools["ULID_GO"], "test", "-count=1", "-v", f"{MODULE}/clients"],
        cwd=tree, env=env, capture_output=True, text=True, timeout=900,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output

    # Every test function ran and passed: none skipped, none missing.
    declared = {
        name
        for path in TESTS.glob("*_test.go")
        for name in re.findall(r"^func (Test\w+)\(t \*testing\.T\)", path.read_text(), re.M)
    }
    passed = set(re.findall(r"^--- PASS: (Test\w+)", result.stdout, re.M))
    assert {n for n in declared if n.startswith("TestPgx")} and {n for n in declared if n.startswith("TestGorm")}, declared
    assert len(declared) >= 12, declared
    assert passed == declared, output
    assert not re.search(r"^\s*--- (FAIL|SKIP)", result.stdout, re.M), output
