"""Go clients against the server: pgx v4 (native and database/sql), lib/pq,
oklog/ulid v2, and the adapter users copy, examples/go/ulidsql.

Everything comes from Debian (golang-go, golang-github-oklog-ulid-dev,
golang-github-jackc-pgx-v4-dev, golang-github-lib-pq-dev), built in GOPATH
mode: no module proxy is needed. The build goes to target/go-client."""

from __future__ import annotations

import shutil
from pathlib import Path

from harness.clientrun import link_tree, run_go_tests
from harness.pgcluster import ROOT

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
    link_tree(tree, {"ulidsql": ADAPTER, "clients": TESTS})
    (tree / "go.mod").write_text("module ulidclients\n\ngo 1.19\n")
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
    run_go_tests(go, "ulidclients/clients", TESTS, BUILD, env, minimum=10)
