"""pg_uuidv7 (uuid_generate_v7(), the C extension most UUIDv7 users install), put into the PostgreSQL builds the
benchmarks compare against (bench/pg_uuidv7 VERSION..., and bench/run first) unless installed: built from Debian's
source package, else Debian's binary package for that major version (a library built for another would not load),
as inputs.manifest pins them, then loaded once, so that a copy that does not work stops the run here. Each build's
origin, or why there is none, goes to CACHE/status-BUILD (ULID_PG_UUIDV7_CACHE, target/pg_uuidv7 unless set).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from ulidtools import builds, debian_archive, manifest
from ulidtools.base import ROOT, ToolError, error, log, run
from ulidtools.clusters import as_pg, own

CACHE = Path(os.environ.get("ULID_PG_UUIDV7_CACHE") or ROOT / "target" / "pg_uuidv7")


class PgUuidv7Error(ToolError):
    """A copy of pg_uuidv7 that was had but does not build, install or work."""


def origin(build: str) -> str:
    """Where this build's copy came from, or why there is none."""
    status = CACHE / f"status-{build}"
    return status.read_text().strip() if status.exists() else "origin not recorded"


def _installed(libdir: Path, extdir: Path) -> bool:
    return (libdir / "pg_uuidv7.so").is_file() and (extdir / "pg_uuidv7.control").is_file()


def _from_source(build: str) -> str | None:
    try:
        [tarball] = debian_archive.fetch_named(["pg-uuidv7"], CACHE / "source")
    except ToolError as gone:
        log(f"PostgreSQL {build}: no source of pg_uuidv7 ({gone})")
        return None
    config = str(builds.build_of(build).pg_config)
    directory = CACHE / f"build-{build}"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    run(["tar", "-xf", tarball, "-C", directory, "--strip-components=1"], check=True)
    log_file = Path(f"{directory}.log")
    with log_file.open("w") as out:
        for target in ([], ["install"]):
            if run(["make", "-C", directory, f"PG_CONFIG={config}", "USE_PGXS=1", *target], stdout=out,
                   stderr=subprocess.STDOUT).returncode != 0:
                sys.stderr.write("\n".join(log_file.read_text().splitlines()[-20:]) + "\n")
                raise PgUuidv7Error(f"pg_uuidv7 did not build against {config} (log: {log_file})")
    return f"built from Debian's source package {Path(tarball).name}"


def _from_binary(build: str, libdir: Path, extdir: Path) -> str | None:
    major = builds.major_version(build)
    package = f"postgresql-{major}-pg-uuidv7"
    if not any(r.package.partition("/")[0] == package for r in manifest.of_kind("debian-binary")):
        log(f"inputs.manifest pins no {package}")
        return None
    try:
        [deb] = debian_archive.fetch_named([package], CACHE)
    except ToolError as gone:
        log(f"PostgreSQL {build}: no {package} ({gone})")
        return None
    root = CACHE / f"deb-{major}"
    shutil.rmtree(root, ignore_errors=True)
    run(["dpkg-deb", "-x", deb, root], check=True)
    lib = root / "usr" / "lib" / "postgresql" / str(major) / "lib"
    ext = root / "usr" / "share" / "postgresql" / str(major) / "extension"
    if not _installed(lib, ext):
        raise PgUuidv7Error(f"{deb} does not hold pg_uuidv7 for PostgreSQL {major} where expected")
    run(["install", "-m", "755", lib / "pg_uuidv7.so", libdir], check=True)
    run(["install", "-m", "644", ext / "pg_uuidv7.control", *sorted(ext.glob("pg_uuidv7--*.sql")), extdir], check=True)
    name, version, _ = Path(deb).stem.split("_")
    return f"Debian's binary package {name} {version}, unpacked (the source could not be downloaded)"


def _check_loads(build: str) -> None:
    bindir = builds.build_of(build).bindir
    with tempfile.TemporaryDirectory(prefix="pg_uuidv7-check.", dir="/tmp") as directory:
        own(Path(directory))
        data = Path(directory) / "data"
        if run(as_pg([bindir / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync"]),
               capture_output=True).returncode != 0:
            raise PgUuidv7Error(f"initdb failed while checking pg_uuidv7 on {build}")
        said = run(as_pg([bindir / "postgres", "--single", "-D", data, "-c", "search_path=public", "postgres"]),
                   input="CREATE EXTENSION pg_uuidv7; SELECT substr(uuid_generate_v7()::text, 15, 1) = '7' AS v7;\n",
                   capture_output=True, text=True)
        if 'v7 = "t"' not in said.stdout:
            raise PgUuidv7Error(f"pg_uuidv7 does not work on PostgreSQL {build}:\n{said.stdout}{said.stderr}")


def install(build: str) -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    status = CACHE / f"status-{build}"
    libdir, extdir = builds.build_of(build).pkglibdir, builds.build_of(build).extdir
    if _installed(libdir, extdir):
        log(f"PostgreSQL {build}: pg_uuidv7 already installed")
        if not status.exists():
            status.write_text("installed before, origin not recorded\n")
        return
    came = _from_source(build) or _from_binary(build, libdir, extdir)
    if came:
        _check_loads(build)
    else:
        came = ("not available: Debian's source package pg-uuidv7 could not be downloaded, and inputs.manifest pins "
                f"no Debian build of it for PostgreSQL {builds.major_version(build)}")
    log(f"PostgreSQL {build}: pg_uuidv7 {came}")
    status.write_text(f"{came}\n")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # a reader that stops early (`| head`) ends this quietly
    if not sys.argv[1:] or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if sys.argv[1:] else 2)
    try:
        for name in sys.argv[1:]:
            install(str(builds.build_of(name).name))
    except (ToolError, ValueError, OSError, subprocess.CalledProcessError) as failure:
        error(str(failure))
        sys.exit(1)
