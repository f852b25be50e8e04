"""A release's files installed the way its users install them, each in a
clean copy of a Debian system (scripts/debian-system), then the pg_regress
suite on Debian's own server there:

- the x86-64 tarball for 13 with its install.sh into Debian 11's
  postgresql-13 (glibc 2.31: older than the glibc the files were built on);
- the apt repository, added as a signed source of Debian 12 for each
  architecture it has a package for 15: `apt install postgresql-15-ulid`
  (for arm64, Debian's arm64 postgresql-15 running through qemu).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from harness import regress
from harness.debian import DebianCluster, System
from harness.pgcluster import cluster_port

pytestmark = pytest.mark.once_per_run

# each a port of its own, among the 13 and 15 builds' slots
PORTS = {"bullseye": cluster_port("13", 25), "bookworm-arm64": cluster_port("15", 26), "bookworm": cluster_port("15", 27)}


@pytest.fixture
def clone(tmp_path_factory):
    made = []

    def make(name: str, major: str) -> System:
        system = System.clone(name, major, tmp_path_factory.mktemp(name) / "root")
        made.append(system)
        return system

    yield make
    for system in made:
        system.discard()


def regress_suite(server, tmp_path: Path) -> None:
    failures = {}
    for name in regress.names_for(server.version):
        failure = regress.run(name, server, tmp_path / name)
        if failure:
            failures[name] = failure
    assert not failures, "\n".join(f"--- {name}\n{text}" for name, text in failures.items())


def one_row(server, sql: str):
    with server.connect() as conn:
        return conn.execute(sql).fetchone()


def test_the_x86_64_tarball_on_debian_11(release, clone, tmp_path):
    tarball = release.one("ulid-*-pg13-linux-x86_64.tar.gz")
    system = clone("bullseye", "13")
    assert re.search(r"GLIBC 2\.31", system("ldd", "--version").stdout), "Debian 11 has glibc 2.31"
    with tarfile.open(tarball) as tar:
        tar.extractall(system.here("/tmp"))
    top = f"/tmp/{tarball.name.removesuffix('.tar.gz')}"
    installed = system(f"{top}/install.sh", "/usr/lib/postgresql/13/bin/pg_config").stdout
    assert "installed ulid into /usr/lib/postgresql/13/lib" in installed
    server = system.create_cluster("ulid", PORTS["bullseye"])
    assert "Debian" in one_row(server, "SELECT version()")[0]
    regress_suite(server, tmp_path)


# Debian 12 for each architecture the release's apt repository has a
# package for 15 (scripts/test: amd64; scripts/test-release: arm64 too,
# through qemu)
SYSTEMS = {"amd64": "bookworm", "arm64": "bookworm-arm64"}


def test_the_apt_repository_on_debian_12(release, clone, tmp_path):
    assert release.keyring, "the checked release's apt repository is signed"
    arches = [arch for arch in SYSTEMS if release.has(f"postgresql-15-ulid_*_{arch}.deb")]
    assert arches, "the release has no package for 15"
    for arch in arches:
        system = clone(SYSTEMS[arch], "15")
        assert system("dpkg", "--print-architecture").stdout.strip() == arch
        shutil.copytree(release.dir / "apt", system.here("/srv/ulid-release"))
        keyring = system.here("/etc/apt/keyrings/ulid.gpg")
        keyring.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(release.keyring, keyring)
        source = system.here("/etc/apt/sources.list.d/ulid.list")
        # a key that is not the release's: apt refuses the repository
        system.here("/etc/apt/keyrings/other.gpg").write_bytes(b"")
        source.write_text("deb [signed-by=/etc/apt/keyrings/other.gpg] file:/srv/ulid-release stable main\n")
        refused = system(*System.APT, "update", check=False)
        assert refused.returncode != 0, refused.stdout + refused.stderr
        # the release's key, as the install page says
        source.write_text("deb [signed-by=/etc/apt/keyrings/ulid.gpg] file:/srv/ulid-release stable main\n")
        updated = system(*System.APT, "update")
        assert "W: " not in updated.stdout + updated.stderr, updated.stdout + updated.stderr
        system(*System.APT, "install", "-y", "--no-install-recommends", "postgresql-15-ulid")
        assert system.dpkg_status() == "install ok installed"
        # it brought Debian's own server with it
        assert system("dpkg-query", "-W", "-f", "${Status}", "postgresql-15").stdout == "install ok installed"
        server = system.create_cluster("main", PORTS[SYSTEMS[arch]])
        machine = {"amd64": "x86_64", "arm64": "aarch64"}[arch]
        assert f"on {machine}-" in one_row(server, "SELECT version()")[0]
        regress_suite(server, tmp_path / arch)
        # removing it leaves none of its files
        system(*System.APT, "purge", "-y", "postgresql-15-ulid")
        assert not system.present(system.expected_files())
        system.discard()
