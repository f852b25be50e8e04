"""Each PostgreSQL build is what inputs.manifest declares: the version its
line names, and assertions on exactly in the assert-enabled builds (an
assertion failure there kills the backend, so every other test doubles as
a check that no assertion fires); and made with the options
docs/development.md says it was (`pg_config --configure`, and LLVM's JIT
library beside it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.pgcluster import BUILDS, build_of

# about each build itself: on every one, 18 beside 18-assert included
pytestmark = pytest.mark.builds(*BUILDS)

# what docs/development.md's list under "The PostgreSQL builds" says of
# each build's options: those it names, and those it says the build lacks
CONFIGURED = {
    "14": ({"--with-openssl", "--with-lz4", "--with-libxml", "--without-icu"}, {"--with-llvm"}),
    "18-assert": ({"--with-openssl", "--with-icu", "--with-system-tzdata=/usr/share/zoneinfo", "--with-lz4",
                   "--with-zstd", "--enable-cassert"}, set()),
}
# the builds that have LLVM's JIT (llvmjit.so), as the page says
JIT = {"13", "15", "17"}


def test_server_is_the_declared_build(cluster, build, major):
    with cluster.connect() as conn:
        (version_num,) = conn.execute("SELECT current_setting('server_version_num')::int").fetchone()
        (version,) = conn.execute("SHOW server_version").fetchone()
        (assertions,) = conn.execute("SHOW debug_assertions").fetchone()
    record = build_of(build)
    assert version_num // 10000 == major == record.major
    # "15.20 (Debian 15.20-0+deb12u1)", "19rc1 (Debian 19~rc1-1)"
    assert version.split()[0] == record.version, (version, record)
    assert assertions == ("on" if record.assertions else "off")


def test_the_build_has_the_options_the_development_page_names(build):
    config = build_of(build).pg_config
    options = {option.strip("'") for option in
               subprocess.run([config, "--configure"], capture_output=True, text=True, check=True).stdout.split()}
    named, lacking = CONFIGURED.get(build, (set(), set()))
    assert named <= options and not lacking & options, (build, sorted(options))
    libdir = subprocess.run([config, "--pkglibdir"], capture_output=True, text=True, check=True).stdout.strip()
    assert (build in JIT) == (Path(libdir) / "llvmjit.so").is_file(), build
