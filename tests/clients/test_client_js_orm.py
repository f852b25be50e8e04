"""JavaScript ORMs and query builders against the server, each through the
adapter users copy from examples/js: Prisma 7 (@prisma/adapter-pg), Drizzle
0.45 (with drizzle-kit), postgres.js 3.4 and TypeORM 1.x.

tests/clients/js-orm/package-lock.json pins the packages; `npm ci` installs
them into target/js-orm, outside the source tree, without install scripts
(Prisma's would download engines), and the tests find them through
NODE_PATH. The Prisma client is generated there too: `prisma generate` needs
no engine, but the CLI insists on finding a schema engine binary, so it is
given a stub that says it is one (the tests never migrate with Prisma).
node and npm are the ones inputs.manifest pins (harness.clientrun.node_tool):
the tests fail, not skip, when that node is missing or older than 20.19,
which Prisma 7 and TypeORM 1 need."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from harness.clientrun import node_env, node_tool, npm, run_node_tests
from harness.pgcluster import ROOT
from ulidtools.base import sha256_hex

import pytest

TESTS = ROOT / "tests" / "clients" / "js-orm"
BUILD = ROOT / "target" / "js-orm"
SUITES = ["prisma", "drizzle", "postgres-js", "typeorm"]

# npm's words for "the registry cannot be reached", as opposed to a bad lock
OFFLINE = re.compile(r"\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH)\b")

STUB_ENGINE = """#!/bin/sh
echo "no Prisma schema engine here: prisma generate does not need one; migrate and db do" >&2
exit 1
"""


# what Prisma 7 and TypeORM 1 need
MINIMUM_NODE = (20, 19)


def node_version() -> tuple[int, ...]:
    """The pinned node's version; fails when it or its npm is missing."""
    node_tool("npm")
    out = subprocess.run([str(node_tool("node")), "--version"], capture_output=True, text=True).stdout
    return tuple(int(x) for x in out.strip().lstrip("v").split("."))


def prisma_env() -> dict[str, str]:
    env = node_env()
    env.update(
        PRISMA_SCHEMA_ENGINE_BINARY=str(BUILD / "schema-engine-stub"),
        CHECKPOINT_DISABLE="1",  # no version check over the network
        PRISMA_HIDE_UPDATE_MESSAGE="1",
    )
    return env


def install() -> Path:
    """Installs the locked packages and generates the Prisma client, once, and
    again whenever the lock or the Prisma schema changes."""
    inputs = [TESTS / "package.json", TESTS / "package-lock.json", TESTS / "prisma" / "schema.prisma"]
    digest = sha256_hex(b"".join(p.read_bytes() for p in inputs))
    stamp = BUILD / "installed.sha256"
    if stamp.exists() and stamp.read_text() == digest and (BUILD / "node_modules").is_dir():
        return BUILD

    BUILD.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    for p in inputs[:2]:
        shutil.copyfile(p, BUILD / p.name)
    result = subprocess.run(
        npm("ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", str(BUILD)),
        env=node_env(), capture_output=True, text=True, timeout=900,
    )
    if result.returncode != 0 and OFFLINE.search(result.stdout + result.stderr):
        pytest.skip("npm cannot reach its registry to install the ORM packages:\n" + result.stderr[-2000:])
    assert result.returncode == 0, result.stdout + result.stderr

    schema = BUILD / "prisma" / "schema.prisma"
    schema.parent.mkdir(exist_ok=True)
    shutil.copyfile(inputs[2], schema)
    shutil.rmtree(schema.parent / "client", ignore_errors=True)
    stub = BUILD / "schema-engine-stub"
    stub.write_text(STUB_ENGINE)
    stub.chmod(0o755)
    result = subprocess.run(
        [str(node_tool("node")), str(BUILD / "node_modules" / "prisma" / "build" / "index.js"), "generate", "--schema",
         str(schema)],
        cwd=BUILD, env=prisma_env(), capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    stamp.write_text(digest)
    return BUILD


@pytest.fixture(scope="module")
def packages() -> Path:
    version = node_version()
    if version < MINIMUM_NODE:
        pytest.fail(f"Prisma 7 and TypeORM 1 need node {'.'.join(map(str, MINIMUM_NODE))} or later; the node "
                    f"inputs.manifest pins is {'.'.join(map(str, version))}", pytrace=False)
    return install()


@pytest.mark.parametrize("suite", SUITES)
def test_js_orm(packages, cluster, db, suite):
    env = cluster.env()
    env.update(
        PGDATABASE=db,
        NODE_PATH=str(packages / "node_modules"),
        ULID_PRISMA_CLIENT=str(packages / "prisma" / "client"),
    )
    run_node_tests([TESTS / f"{suite}.test.js"], TESTS, env, minimum=6)
