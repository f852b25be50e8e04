"""The installable tarball: built by scripts/package, installed by its own
install.sh into a PostgreSQL that has no ulid files, usable at once.

On the oldest and the newest build of a run (harness.pgcluster.ends_of_run):
scripts/package and install.sh take the same steps for every major version,
and the release checks install the release builds of 13 and 15 (tests/release).
A test-only build (18-assert) is checked to be refused, which takes no build.
"""

from __future__ import annotations

import subprocess
import tarfile

import pytest

from harness.pgcluster import BUILDS, ROOT, Cluster, build_of, ends_of_run
from ulidtools.project import VERSION

TEST_ONLY_BUILDS = [name for name, build in BUILDS.items() if name != str(build.major)]
PACKAGED_BUILDS = [name for name in ends_of_run() if name not in TEST_ONLY_BUILDS]


@pytest.mark.builds(*TEST_ONLY_BUILDS)
def test_a_test_only_build_is_never_packaged(build):
    # its install.sh would take any PostgreSQL of its major version
    made = subprocess.run([str(ROOT / "scripts" / "package"), "--debug", build], capture_output=True, text=True)
    assert made.returncode != 0 and "is a test-only build" in made.stderr, made.stderr
    assert not list((ROOT / "dist").glob(f"ulid-{VERSION}-pg{build}-*"))


@pytest.mark.builds(*PACKAGED_BUILDS)
def test_package_installs_on_a_server_without_rust(build, major, tmp_path):
    version = VERSION
    made = subprocess.run([str(ROOT / "scripts" / "package"), "--debug", build], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    tarball = next((ROOT / "dist").glob(f"ulid-{version}-pg{build}-linux-*.tar.gz"))
    with tarfile.open(tarball) as tar:
        names = sorted(m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile())
        # the "data" filter exists from Python 3.11.4; Debian 12 has 3.11.2
        extra = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(tmp_path, **extra)
    upgrades = [f"extension/{p.name}" for p in (ROOT / "sql").glob("ulid--*--*.sql")]
    assert len(upgrades) >= 3
    assert names == sorted([f"extension/ulid--{version}.sql", *upgrades, "extension/ulid.control",
                            "install.sh", "lib/ulid.so", "LICENSE"])
    top = next(tmp_path.glob("ulid-*"))
    assert (top / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()

    config = str(build_of(build).pg_config)
    libdir, extdir = build_of(build).pkglibdir, build_of(build).extdir
    for f in [libdir / "ulid.so", *extdir.glob("ulid*")]:
        f.unlink()
    installer = next(tmp_path.glob("ulid-*")) / "install.sh"
    try:
        out = subprocess.run([str(installer), config], check=True, capture_output=True, text=True).stdout
    finally:
        if not (libdir / "ulid.so").exists():
            # leave the server usable for the tests that follow
            subprocess.run([str(ROOT / "scripts" / "install"), build], check=True)
    assert "installed ulid" in out
    assert (libdir / "ulid.so").exists() and (extdir / f"ulid--{version}.sql").exists()

    # a package for another major version refuses to install
    other = 16 if major != 16 else 15
    wrong = subprocess.run([str(installer), str(build_of(other).pg_config)], capture_output=True, text=True)
    assert wrong.returncode != 0 and f"built for PostgreSQL {major}" in wrong.stderr

    cluster = Cluster(build, "package", slot=6).start()
    try:
        db = cluster.create_database("from_package")
        with cluster.connect(db) as conn:
            assert conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() == (version,)
            assert conn.execute("SELECT '01jgfjjz00xhf7e02jj03ae4t7'::ulid::text").fetchone() == (
                "01JGFJJZ00XHF7E02JJ03AE4T7",)
    finally:
        cluster.stop()
