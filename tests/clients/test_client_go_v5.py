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

import re
import subprocess
from pathlib import Path

from harness.clientrun import link_tree, run_go_tests
from harness.pgcluster import ROOT

import pytest

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
    link_tree(tree, {**ADAPTERS, "clients": TESTS})
    replaces = (gocode / "replace.mod").read_text()
    (tree / "go.mod").write_text(f"module {MODULE}\n\ngo 1.25\n\n{replaces}")
    (tree / "go.sum").unlink(missing_ok=True)
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

    declared = run_go_tests(tools["ULID_GO"], f"{MODULE}/clients", TESTS, tree, env, minimum=12)
    assert {n for n in declared if n.startswith("TestPgx")} and {n for n in declared if n.startswith("TestGorm")}, declared
