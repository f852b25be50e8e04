"""JavaScript clients against the server: node-postgres (pg 8) and the ulid
package, with the adapter users copy, examples/js/pg-ulid.js.

tests/clients/js/package-lock.json pins the packages; `npm ci` installs them
into target/js-client, outside the source tree, and the tests find them
through NODE_PATH. node and npm are the ones inputs.manifest pins
(harness.clientrun.node_tool); the test fails without them."""

from __future__ import annotations

from pathlib import Path

from harness.clientrun import npm_ci, run_node_tests
from harness.pgcluster import ROOT

TESTS = ROOT / "tests" / "clients" / "js"
BUILD = ROOT / "target" / "js-client"


def node_modules() -> Path:
    return npm_ci(TESTS, BUILD)


def test_js_clients(cluster, db):
    env = cluster.env()
    env.update(PGDATABASE=db, NODE_PATH=str(node_modules()))
    run_node_tests(sorted(TESTS.glob("*.test.js")), TESTS, env, minimum=10)
