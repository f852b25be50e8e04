"""JavaScript clients against the server: node-postgres (pg 8) and the ulid
package, with the adapter users copy, examples/js/pg-ulid.js.

tests/clients/js/package-lock.json pins the packages; `npm ci` installs them
into target/js-client, outside the source tree, and the tests find them
through NODE_PATH."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from harness.clientrun import run_node_tests
from harness.pgcluster import ROOT

TESTS = ROOT / "tests" / "clients" / "js"
BUILD = ROOT / "target" / "js-client"


def node_modules() -> Path:
    """Installs the locked packages once, and again whenever the lock changes."""
    manifests = [TESTS / "package.json", TESTS / "package-lock.json"]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in manifests)).hexdigest()
    stamp = BUILD / "installed.sha256"
    if not (stamp.exists() and stamp.read_text() == digest and (BUILD / "node_modules").is_dir()):
        BUILD.mkdir(parents=True, exist_ok=True)
        for p in manifests:
            shutil.copyfile(p, BUILD / p.name)
        result = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--prefix", str(BUILD)],
            capture_output=True, text=True, timeout=600,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        stamp.write_text(digest)
    return BUILD / "node_modules"


def test_js_clients(cluster, db):
    assert shutil.which("node") and shutil.which("npm"), "node and npm are missing"
    env = cluster.env()
    env.update(PGDATABASE=db, NODE_PATH=str(node_modules()))
    run_node_tests(sorted(TESTS.glob("*.test.js")), TESTS, env, minimum=10)
