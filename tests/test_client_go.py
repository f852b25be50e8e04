"""Go clients against the server: pgx v4 (native and database/sql), lib/pq,
oklog/ulid v2, and the adapter users copy, examples/go/ulidsql.

Everything comes from Debian (golang-go, golang-github-oklog-ulid-dev,
golang-github-jackc-pgx-v4-dev, golang-github-lib-pq-dev), built in GOPATH
mode: no module proxy is needed. The build goes to target/go-client."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests" / "clients" / "go"
ADAPTER = ROOT / "examples" / "go" / "ulidsql"
BUILD = ROOT / "target" / "go-client"
DEBIAN_GOPATH = "/usr/share/gocode"


def package_tree() -> Path:
    """A GOPATH with one package tree, ulidclients, that links the tests and
    the adapter in place, so that the file users copy is the file compiled.
    The tree's go.mod is what lets GOPATH mode read the import path
    github.com/oklog/ulid/v2 as Debian's github.com/oklog/ulid."""
    tree = BUILD / "gopath" / "src" / "ulidclients"
    tree.mkdir(parents=True, exist_ok=True)
    (tree / "go.mod").write_text("module ulidclients\n\ngo 1.19\n")
    for name, source in (("ulidsql", ADAPTER), ("clients", TESTS)):
        link = tree / name
        if link.is_symlink() and Path(os.readlink(link)) == source:
            continue
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(source, target_is_directory=True)
    return BUILD / "gopath"


def test_go_clients(cluster, db):
    go = shutil.which("go")
    assert go, "Go is missing: apt-get install golang-go and the golang-github-* packages the module docstring names"
    assert Path(DEBIAN_GOPATH, "src/github.com/oklog/ulid/ulid.go").exists(), "golang-github-oklog-ulid-dev is missing"

    env = cluster.env()
    env.update(
        PGDATABASE=db,
        GO111MODULE="off",
        GOPROXY="off",
        GOFLAGS="",
        GOPATH=f"{package_tree()}:{DEBIAN_GOPATH}",
        GOCACHE=str(BUILD / "cache"),
    )
    result = subprocess.run(
        [go, "test", "-count=1", "-v", "ulidclients/clients"],
        cwd=BUILD, env=env, capture_output=True, text=True, timeout=900,
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
    assert len(declared) >= 10, declared
    assert passed == declared, output
    assert not re.search(r"^\s*--- (FAIL|SKIP)", result.stdout, re.M), output
