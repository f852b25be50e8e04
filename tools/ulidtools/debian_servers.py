"""Debian's own PostgreSQL, as its users have it: Debian 12's postgresql-15 on this machine, and the servers of the
Debian systems (debian_systems), the sid system itself or a throwaway copy of another. `DebianCluster` is a cluster
made with pg_createcluster, with the part of `ulidtools.clusters.Cluster`'s interface the tests and benchmarks use.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ulidtools.base import ROOT, ToolError, run
from ulidtools import package
from ulidtools.builds import build_of
from ulidtools.clusters import Cluster
from ulidtools.project import VERSION  # the extension's version

# as debian_package.Package.deb_version: 0.2.0-rc.1 is 0.2.0~rc.1-1
DEB_VERSION = VERSION.replace("-", "~") + "-1"
# run by this Python, which finds ulidtools as this process did
DEBIAN_SYSTEM = [sys.executable, "-m", "ulidtools", "debian-system"]


def run_captured(*args, check: bool = True, **kw) -> subprocess.CompletedProcess:
    p = run(list(args), capture_output=True, text=True, **kw)
    if check and p.returncode != 0:
        raise ToolError(f"{' '.join(map(str, args))} failed:\n{p.stdout}\n{p.stderr}")
    return p


class System:
    """A Debian system at ROOT with postgresql-MAJOR; COMMAND runs a command in it."""
    # wait for dpkg's lock rather than fail while something else uses apt
    APT = ["apt-get", "-o", "DPkg::Lock::Timeout=300"]

    def __init__(self, major: str, root: Path, command: list[str]):
        self.major, self.root, self.command = major, root, command
        self.package = f"postgresql-{major}-ulid"
        self.libdir = Path(f"/usr/lib/postgresql/{major}/lib")
        self.extdir = Path(f"/usr/share/postgresql/{major}/extension")
        self.docdir = Path("/usr/share/doc") / self.package

    @classmethod
    def clone(cls, name: str, major: str, directory: Path) -> "System":
        """A copy of the Debian system NAME in DIRECTORY, to throw away (`discard`)."""
        run_captured(*DEBIAN_SYSTEM, "-s", name, "clone", directory)
        return cls(major, directory, [*DEBIAN_SYSTEM, "-s", name, "-r", str(directory), "run"])

    def discard(self) -> None:
        self("sh", "-c", "pg_lsclusters -h | while read -r v n _; do pg_ctlcluster --mode immediate $v $n stop; done",
             check=False)
        run_captured("rm", "-rf", "--one-file-system", self.root)

    @classmethod
    def of(cls, major: str) -> "System":
        if major == "15":
            return cls("15", Path("/"), [])
        root = Path(run_captured(*DEBIAN_SYSTEM, "root").stdout.strip())
        if not (root / f"usr/lib/postgresql/{major}/bin/postgres").is_file():
            raise ToolError(f"no postgresql-{major} in the sid system {root}: scripts/setup makes it")
        return cls(major, root, [*DEBIAN_SYSTEM, "run"])

    def __call__(self, *args, check: bool = True) -> subprocess.CompletedProcess:
        return run_captured(*self.command, *args, check=check, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})

    def here(self, path: str | Path) -> Path:
        return self.root / Path(path).relative_to("/")

    def expected_files(self) -> list[str]:
        return sorted(str(p) for p in [
            self.libdir / "ulid.so", self.extdir / "ulid.control", self.extdir / f"ulid--{VERSION}.sql",
            *(self.extdir / p.name for p in (ROOT / "sql").glob("ulid--*--*.sql")),
            *(self.docdir / name for name in ("copyright", "changelog.Debian.gz", "changelog.gz"))])

    def present(self, files: list[str]) -> list[str]:
        return [f for f in files if self.here(f).exists()]

    def dpkg_status(self) -> str:
        p = self("dpkg", "-s", self.package, check=False)
        if p.returncode != 0:
            if "not installed" not in p.stderr:
                raise ToolError(f"dpkg -s {self.package} failed:\n{p.stderr}")
            return "not-installed"
        return re.search(r"^Status: (.*)$", p.stdout, re.M).group(1)

    def purge(self) -> None:
        if self.dpkg_status() != "not-installed":
            self("dpkg", "--purge", self.package)

    def install_deb(self, deb: Path) -> None:
        inside = deb if self.root == Path("/") else Path("/tmp") / deb.name
        if inside != deb:
            shutil.copy(deb, self.here(inside))
        try:
            self(*System.APT, "install", "-y", "--no-install-recommends", inside)
        finally:
            if inside != deb:
                self.here(inside).unlink()

    def drop_cluster(self, name: str) -> None:
        if self("pg_lsclusters", "-h", self.major, name, check=False).stdout.strip():
            self("pg_dropcluster", "--stop", self.major, name)

    def create_cluster(self, name: str, port: int, settings: dict[str, str] | None = None) -> "DebianCluster":
        """Local connections trusted, since peer would map our uid to the system's users."""
        self.drop_cluster(name)
        options = [arg for key, value in (settings or {}).items() for arg in ("-o", f"{key}={value}")]
        self("pg_createcluster", self.major, name, "--port", port, "--start", *options,
             "--", "--auth-local=trust", "--auth-host=scram-sha-256")
        return DebianCluster(self, name, port)


def build_deb(build: str, system: System, release: bool = False) -> Path:
    arch = run_captured("dpkg", "--print-architecture").stdout.strip()
    deb = package.Artifact(build, arch, "release" if release else "debug").make(ROOT / "dist")[1]
    if deb.name != f"{system.package}_{DEB_VERSION}_{arch}.deb":
        raise ToolError(f"{deb} is not the package of {system.package}")
    return deb


class DebianCluster:
    """A cluster of Debian's server in SYSTEM, reached over its Unix socket."""

    def __init__(self, system: System, name: str, port: int):
        self.system, self.name, self.port = system, name, port
        self.version = int(system.major)
        # its socket's directory, as a private cluster's is its data directory
        self.dir = system.here("/run/postgresql")
        # a client (and pg_regress) of the same major
        self.bindir = build_of(system.major).bindir
        self.pkglibdir = build_of(system.major).pkglibdir

    def drop(self) -> None:
        self.system.drop_cluster(self.name)

    # what needs only the socket and the port: the same as a private cluster's
    conninfo = Cluster.conninfo
    connect = Cluster.connect
    env = Cluster.env
    create_database = Cluster.create_database
    has_extension = Cluster.has_extension
