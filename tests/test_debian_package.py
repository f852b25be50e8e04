"""The Debian package: built by scripts/package, installed with apt into
Debian's own PostgreSQL 15, usable at once, and gone without a trace after
apt-get remove.

Only the 15 build is Debian's own PostgreSQL; on the others the test is
skipped. While it runs, the ulid files `scripts/install 15` put in place are
moved aside (so that the package alone provides the extension) and put back
afterwards, whatever happens.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from pgcluster import Cluster

ROOT = Path(__file__).resolve().parent.parent
VERSION = tomllib.loads((ROOT / "Cargo.toml").read_text())["package"]["version"]
# scripts/package-deb: a Cargo pre-release 0.2.0-rc.1 is Debian's 0.2.0~rc.1
DEB_VERSION = VERSION.replace("-", "~") + "-1"
PACKAGE = "postgresql-15-ulid"
LIBDIR = Path("/usr/lib/postgresql/15/lib")
EXTDIR = Path("/usr/share/postgresql/15/extension")
DOCDIR = Path("/usr/share/doc") / PACKAGE
APT_ENV = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
# wait for dpkg's lock rather than fail when something else is using apt
APT = ["apt-get", "-o", "DPkg::Lock::Timeout=300"]


def run(*args: str, **kw) -> subprocess.CompletedProcess:
    """Runs a command; on failure the assertion shows its output."""
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, args))} failed:\n{p.stdout}\n{p.stderr}"
    return p


def expected_files() -> list[str]:
    """What the package must hold: the library, the control file, the
    install script of this version, every upgrade script in sql/ (which
    cargo-pgrx installs beside it) and the two Debian documents."""
    upgrades = [EXTDIR / p.name for p in (ROOT / "sql").glob("ulid--*--*.sql")]
    return sorted(str(p) for p in [
        LIBDIR / "ulid.so", EXTDIR / "ulid.control", EXTDIR / f"ulid--{VERSION}.sql", *upgrades,
        DOCDIR / "copyright", DOCDIR / "changelog.Debian.gz",
    ])


def dpkg_status(package: str) -> str:
    """The Status line of `dpkg -s`, or "not-installed" when dpkg knows
    nothing of the package."""
    p = subprocess.run(["dpkg", "-s", package], capture_output=True, text=True)
    if p.returncode != 0:
        assert "not installed" in p.stderr, p.stderr
        return "not-installed"
    return re.search(r"^Status: (.*)$", p.stdout, re.M).group(1)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def deb(pg_build) -> Path:
    """The 15 package, freshly built by scripts/package in the profile
    test_package.py builds its tarball in."""
    if pg_build != "15":
        pytest.skip("the Debian package is installed into Debian's own postgresql-15, "
                    "which only the 15 build is")
    arch = run("dpkg", "--print-architecture").stdout.strip()
    path = ROOT / "dist" / f"{PACKAGE}_{DEB_VERSION}_{arch}.deb"
    path.unlink(missing_ok=True)
    run(ROOT / "scripts" / "package", "--debug", "15")
    assert path.is_file()
    return path


def test_deb_metadata_and_contents(deb, tmp_path):
    def field(name: str) -> str:
        return run("dpkg-deb", "--field", deb, name).stdout.strip()

    assert field("Package") == PACKAGE
    assert field("Version") == DEB_VERSION
    assert field("Architecture") == run("dpkg", "--print-architecture").stdout.strip()
    assert field("Section") == "database"
    assert field("Priority") == "optional"
    assert re.fullmatch(r".+ <[^ @]+@[^ @]+>", field("Maintainer"))
    assert field("Description").startswith("ULID type for PostgreSQL 15\n")
    depends = field("Depends").split(", ")
    assert "postgresql-15" in depends
    # the library's own dependencies, from dpkg-shlibdeps
    assert any(re.fullmatch(r"libc6 \(>= 2\.\d+\)", d) for d in depends), depends

    # exactly these files, each root's and 0644, in directories that are
    # root's and 0755
    listing = run("dpkg-deb", "--contents", deb).stdout.splitlines()
    entries = {}
    for line in listing:
        mode, owner, _size, _date, _time, path = line.split(maxsplit=5)
        entries["/" + path.removeprefix("./").rstrip("/")] = (mode, owner)
    files = sorted(p for p, (mode, _) in entries.items() if not mode.startswith("d"))
    assert files == expected_files()
    dirs = {p for p, (mode, _) in entries.items() if mode.startswith("d")}
    assert dirs == {"/"} | {str(parent) for f in files for parent in Path(f).parents}
    for path, (mode, owner) in entries.items():
        assert owner == "root/root", path
        assert mode == ("drwxr-xr-x" if path in dirs else "-rw-r--r--"), path

    # md5sums lists every file with its checksum
    tree = tmp_path / "tree"
    run("dpkg-deb", "--raw-extract", deb, tree)
    md5sums = dict(reversed(line.split("  ", 1))
                   for line in (tree / "DEBIAN" / "md5sums").read_text().splitlines())
    assert sorted("/" + p for p in md5sums) == files
    for path, md5 in md5sums.items():
        assert hashlib.md5((tree / path).read_bytes()).hexdigest() == md5, path
    assert int(field("Installed-Size")) >= sum((tree / p).stat().st_size for p in md5sums) // 1024

    control = (tree / EXTDIR.relative_to("/") / "ulid.control").read_text()
    assert f"default_version = '{VERSION}'" in control
    changelog = gzip.decompress((tree / DOCDIR.relative_to("/") / "changelog.Debian.gz").read_bytes())
    assert changelog.decode().startswith(f"{PACKAGE} ({DEB_VERSION}) ")
    copyright = (tree / DOCDIR.relative_to("/") / "copyright").read_text()
    assert "License: Expat" in copyright and "Permission is hereby granted" in copyright


@pytest.fixture
def without_installed_ulid(deb, tmp_path):
    """Moves the ulid files of PostgreSQL 15 aside, and puts them back
    afterwards exactly as they were. Renames only: a server of this session
    may have ulid.so mapped, and a file is never written in place."""
    originals = [LIBDIR / "ulid.so", EXTDIR / "ulid.control", *EXTDIR.glob("ulid--*.sql")]
    originals = [p for p in originals if p.exists()]
    assert LIBDIR / "ulid.so" in originals, "scripts/install 15 has not run"
    checksums = {p: sha256(p) for p in originals}
    aside = tmp_path / "aside"
    aside.mkdir()
    moved = []
    try:
        for i, p in enumerate(originals):
            shutil.move(p, aside / f"{i}-{p.name}")
            moved.append((aside / f"{i}-{p.name}", p))
        yield
    finally:
        # a test that failed half way may have left the package installed
        if dpkg_status(PACKAGE) != "not-installed":
            subprocess.run(["dpkg", "--purge", PACKAGE], env=APT_ENV, capture_output=True)
        for saved, p in moved:
            shutil.move(saved, p)
    assert dpkg_status(PACKAGE) == "not-installed"
    assert {p: sha256(p) for p in originals} == checksums


def test_deb_installs_with_apt_and_removes_cleanly(deb, without_installed_ulid):
    files = expected_files()
    assert not [f for f in files if Path(f).exists()]

    run(*APT, "install", "-y", "--no-install-recommends", deb, env=APT_ENV)
    assert dpkg_status(PACKAGE) == "install ok installed"
    assert run("dpkg-query", "-W", "-f=${Version}", PACKAGE).stdout == DEB_VERSION
    listed = set(run("dpkg", "-L", PACKAGE).stdout.splitlines())
    assert set(files) <= listed
    assert all(Path(f).is_file() for f in files)

    cluster = Cluster("15", "debian-package", slot=12).start()
    try:
        db = cluster.create_database("from_deb")
        with cluster.connect(db) as conn:
            def one(sql, *params):
                return conn.execute(sql, params).fetchone()

            assert one("SELECT extversion FROM pg_extension WHERE extname = 'ulid'") == (VERSION,)
            assert one("SELECT probin FROM pg_proc WHERE proname = 'gen_ulid' LIMIT 1") == ("$libdir/ulid",)

            conn.execute("CREATE TABLE t (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), n int)")
            conn.execute("INSERT INTO t (n) SELECT generate_series(1, 1000)")
            conn.execute("ANALYZE t")
            # one statement's monotonic values increase: id order is row order
            assert [n for n, in conn.execute("SELECT n FROM t ORDER BY id")] == list(range(1, 1001))
            assert one("SELECT count(*) FROM t WHERE id::uuid::ulid = id "
                       "AND encode(id::bytea, 'hex') = replace(id::uuid::text, '-', '')") == (1000,)
            assert one("SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::uuid::text") == (
                "01941f29-7c00-ec5e-7700-529006a71347",)
            assert one("SELECT '01941f29-7c00-ec5e-7700-529006a71347'::uuid::ulid::text") == (
                "01JGFJJZ00XHF7E02JJ03AE4T7",)

            (middle,) = one("SELECT id::text FROM t WHERE n = 500")
            conn.execute("SET enable_seqscan = off")
            conn.execute("SET enable_bitmapscan = off")
            query = "SELECT n FROM t WHERE id >= %s::ulid ORDER BY id LIMIT 3"
            plan = "\n".join(r for r, in conn.execute("EXPLAIN " + query, [middle]))
            assert "Index Scan using t_pkey on t" in plan, plan
            assert [n for n, in conn.execute(query, [middle])] == [500, 501, 502]
    finally:
        cluster.stop()
        cluster.destroy()

    run(*APT, "remove", "-y", PACKAGE, env=APT_ENV)
    status = dpkg_status(PACKAGE)
    assert status in ("not-installed", "deinstall ok config-files"), status
    if status != "not-installed":
        run("dpkg", "--purge", PACKAGE, env=APT_ENV)
        assert dpkg_status(PACKAGE) == "not-installed"
    assert [f for f in files if Path(f).exists()] == []
    assert not DOCDIR.exists()
