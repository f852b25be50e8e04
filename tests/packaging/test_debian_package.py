"""The Debian package: built by scripts/package, installed with apt into
Debian's own PostgreSQL, usable at once, and gone without a trace after
apt-get remove.

Two builds are Debian's own PostgreSQL:
- 15 is Debian 12's postgresql-15, on this system. While the test runs, the
  ulid files `scripts/install 15` put in place are moved aside (so that the
  package alone provides the extension) and put back afterwards, whatever
  happens.
- 19 is Debian experimental's postgresql-19, installed with apt into a sid
  system that scripts/debian-system makes (Debian 12 cannot have it): the
  package is copied in and installed there with that system's apt and dpkg.

In both, the server is a cluster made the Debian way, with
pg_createcluster, and dropped afterwards. The other builds deselect the
test (the builds marker below).
"""

from __future__ import annotations

import gzip
import hashlib
import re
import shutil
from pathlib import Path

import psycopg
import pytest

from ulidtools.base import sha256_of
from ulidtools.debian_servers import DEB_VERSION, VERSION, System, build_deb, run_captured
from harness.pgcluster import ROOT, cluster_port

# Debian's own PostgreSQL: 15 on this system, 19 in the sid system
# scripts/debian-system makes
pytestmark = pytest.mark.builds("15", "19")

# the cluster pg_createcluster makes for the test
CLUSTER = "ulid-deb-test"


@pytest.fixture(scope="module")
def system(build) -> System:
    return System.of(build)


@pytest.fixture(scope="module")
def deb(build, system) -> Path:
    return build_deb(build, system)


def test_deb_metadata_and_contents(deb, system, tmp_path):
    def field(name: str) -> str:
        return run_captured("dpkg-deb", "--field", deb, name).stdout.strip()

    assert field("Package") == system.package
    assert field("Version") == DEB_VERSION
    assert field("Architecture") == run_captured("dpkg", "--print-architecture").stdout.strip()
    assert field("Section") == "database"
    assert field("Priority") == "optional"
    assert re.fullmatch(r".+ <[^ @]+@[^ @]+>", field("Maintainer"))
    assert field("Description").startswith(f"ULID type for PostgreSQL {system.major}\n")
    depends = field("Depends").split(", ")
    assert f"postgresql-{system.major}" in depends
    # the library's own dependencies, from dpkg-shlibdeps
    assert any(re.fullmatch(r"libc6 \(>= 2\.\d+\)", d) for d in depends), depends

    # exactly these files, each root's and 0644, in directories that are
    # root's and 0755
    listing = run_captured("dpkg-deb", "--contents", deb).stdout.splitlines()
    entries = {}
    for line in listing:
        mode, owner, _size, _date, _time, path = line.split(maxsplit=5)
        entries["/" + path.removeprefix("./").rstrip("/")] = (mode, owner)
    files = sorted(p for p, (mode, _) in entries.items() if not mode.startswith("d"))
    assert files == system.expected_files()
    dirs = {p for p, (mode, _) in entries.items() if mode.startswith("d")}
    assert dirs == {"/"} | {str(parent) for f in files for parent in Path(f).parents}
    for path, (mode, owner) in entries.items():
        assert owner == "root/root", path
        assert mode == ("drwxr-xr-x" if path in dirs else "-rw-r--r--"), path

    # md5sums lists every file with its checksum
    tree = tmp_path / "tree"
    run_captured("dpkg-deb", "--raw-extract", deb, tree)
    md5sums = dict(reversed(line.split("  ", 1))
                   for line in (tree / "DEBIAN" / "md5sums").read_text().splitlines())
    assert sorted("/" + p for p in md5sums) == files
    for path, md5 in md5sums.items():
        assert hashlib.md5((tree / path).read_bytes()).hexdigest() == md5, path
    assert int(field("Installed-Size")) >= sum((tree / p).stat().st_size for p in md5sums) // 1024

    control = (tree / system.extdir.relative_to("/") / "ulid.control").read_text()
    assert f"default_version = '{VERSION}'" in control
    changelog = gzip.decompress((tree / system.docdir.relative_to("/") / "changelog.Debian.gz").read_bytes())
    assert changelog.decode().startswith(f"{system.package} ({DEB_VERSION}) ")
    upstream = gzip.decompress((tree / system.docdir.relative_to("/") / "changelog.gz").read_bytes())
    assert upstream.decode() == (ROOT / "CHANGELOG.md").read_text()
    copyright = (tree / system.docdir.relative_to("/") / "copyright").read_text()
    assert "License: Expat" in copyright and "Permission is hereby granted" in copyright
    assert "\nCopyright: 2026 the ulid for PostgreSQL contributors\n" in copyright


@pytest.fixture
def without_installed_ulid(deb, system, tmp_path):
    """Leaves the package as the only source of the extension: on this
    system, moves the ulid files `scripts/install 15` put in place aside,
    and puts them back afterwards exactly as they were (renames only: a
    server of this session may have ulid.so mapped, and a file is never
    written in place); in the sid system, which has no other ulid, removes
    what an interrupted run may have left."""
    if system.major == "19":
        system.drop_cluster(CLUSTER)
        system.purge()
    originals = [system.libdir / "ulid.so", system.extdir / "ulid.control", *system.extdir.glob("ulid--*.sql")]
    originals = [system.here(p) for p in originals if system.here(p).exists()]
    if system.major == "15":
        assert system.libdir / "ulid.so" in originals, "scripts/install 15 has not run"
    else:
        assert originals == [], "the sid system has ulid files no package owns"
    checksums = {p: sha256_of(p) for p in originals}
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
        system.drop_cluster(CLUSTER)
        system.purge()
        for saved, p in moved:
            shutil.move(saved, p)
    assert system.dpkg_status() == "not-installed"
    assert {p: sha256_of(p) for p in originals} == checksums


def test_deb_installs_with_apt_and_removes_cleanly(deb, system, without_installed_ulid, build):
    files = system.expected_files()
    assert system.present(files) == []

    system.install_deb(deb)
    assert system.dpkg_status() == "install ok installed"
    assert system("dpkg-query", "-W", "-f=${Version}", system.package).stdout == DEB_VERSION
    listed = set(system("dpkg", "-L", system.package).stdout.splitlines())
    assert set(files) <= listed
    assert all(system.here(f).is_file() for f in files)

    server = system.create_cluster(CLUSTER, cluster_port(build, 12))
    connect = server.connect
    try:
        with connect() as conn:
            conn.execute("CREATE DATABASE from_deb")
            assert conn.execute("SHOW server_version_num").fetchone()[0].startswith(system.major)
        with connect("from_deb") as conn:
            def one(sql, *params):
                return conn.execute(sql, params).fetchone()

            assert one("SELECT name, default_version, installed_version FROM pg_available_extensions "
                       "WHERE name = 'ulid'") == ("ulid", VERSION, None)
            conn.execute("CREATE EXTENSION ulid")
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
            with pytest.raises(psycopg.errors.InvalidTextRepresentation):
                conn.execute("SELECT '01JGFJJZ00XHF7E02JJ03AE4TU'::ulid")

            (middle,) = one("SELECT id::text FROM t WHERE n = 500")
            conn.execute("SET enable_seqscan = off")
            conn.execute("SET enable_bitmapscan = off")
            query = "SELECT n FROM t WHERE id >= %s::ulid ORDER BY id LIMIT 3"
            plan = "\n".join(r for r, in conn.execute("EXPLAIN " + query, [middle]))
            assert "Index Scan using t_pkey on t" in plan, plan
            assert [n for n, in conn.execute(query, [middle])] == [500, 501, 502]

        # removed while the server runs: the extension is no longer
        # available to a new database
        system(*System.APT, "remove", "-y", system.package)
        with connect() as conn:
            assert conn.execute("SELECT count(*) FROM pg_available_extensions "
                                "WHERE name = 'ulid'").fetchone() == (0,)
            conn.execute("CREATE DATABASE after_remove")
        with connect("after_remove") as conn:
            with pytest.raises(psycopg.errors.FeatureNotSupported, match='extension "ulid" is not available'):
                conn.execute("CREATE EXTENSION ulid")
    finally:
        server.drop()

    status = system.dpkg_status()
    assert status in ("not-installed", "deinstall ok config-files"), status
    if status != "not-installed":
        system("dpkg", "--purge", system.package)
        assert system.dpkg_status() == "not-installed"
    assert system.present(files) == []
    assert not system.here(system.docdir).exists()
