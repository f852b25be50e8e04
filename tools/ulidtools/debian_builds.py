"""PostgreSQL builds from another Debian release's binary packages (`debian-binary` builds of inputs.manifest),
unpacked to run on Debian 12 with nothing installed into the system: the server, its client, its headers and libpq5,
with what that release's programs need beyond Debian 12 (LIBRARIES; for sid and trixie, their C library).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ulidtools import manifest
from ulidtools.builds import debian_release
from ulidtools.base import ToolError, as_root, output
from ulidtools.manifest import DebianFile

# what each release's PostgreSQL needs that Debian 12 lacks or has older
LIBRARIES = {
    "sid": ["libc6", "libgcc-s1", "libstdc++6", "libicu78", "libxml2-16", "libldap2", "liburing2", "libssl3t64"],
    # libllvm19 and libz3-4 for llvmjit.so; libzstd1 for libssl3t64
    "trixie": ["libc6", "libgcc-s1", "libstdc++6", "libicu76", "libldap2", "liburing2", "libssl3t64", "libzstd1",
               "libllvm19", "libz3-4"],
    # libllvm11 and libffi7 for llvmjit.so
    "bullseye": ["libssl1.1", "libldap-2.4-2", "libicu67", "libllvm11", "libffi7"],
}
# pg_config's directories, which the wrapper reports under ROOT
PG_CONFIG_DIRS = ("BINDIR", "DOCDIR", "HTMLDIR", "INCLUDEDIR", "PKGINCLUDEDIR", "INCLUDEDIR-SERVER", "LIBDIR",
                  "PKGLIBDIR", "LOCALEDIR", "MANDIR", "SHAREDIR", "SYSCONFDIR", "PGXS")


def release_of(major: int | str) -> str:
    server = f"postgresql-{major}"
    suite = next((r.suite for r in manifest.of_kind("debian-binary") if r.package == server), None)
    if suite is None:
        raise ToolError(f"inputs.manifest pins no debian-binary {server}")
    return debian_release(suite)


def packages(major: int | str) -> list[str]:
    release = release_of(major)
    if release not in LIBRARIES:
        raise ToolError(f"PostgreSQL {major} from Debian {release}: no libraries of {release} are named")
    return [f"postgresql-{major}", f"postgresql-client-{major}", f"postgresql-server-dev-{major}", "libpq5",
            *LIBRARIES[release]]


def pins(major: int | str) -> list[DebianFile]:
    """Their manifest lines, in the manifest's order."""
    release, wanted = release_of(major), set(packages(major))
    return [r for r in manifest.of_kind("debian-binary") if r.package in wanted and debian_release(r.suite) == release]


def _pg_config_script(root: Path, bindir: Path) -> str:
    dirs = "|".join(PG_CONFIG_DIRS)
    options = " | ".join(f"--{d.lower()}" for d in PG_CONFIG_DIRS)
    return f"""#!/bin/sh
# Debian's pg_config of this PostgreSQL (pg_config.debian) reports the
# directories it was built for; unpacked by ulidtools.debian_builds, they
# are under {root}.
# Every other answer is Debian's.
real={bindir}/pg_config.debian
if [ $# = 0 ]; then
    "$real" | sed -E 's#^({dirs}) = /#\\1 = {root}/#'
    exit
fi
for option in "$@"; do
    case "$option" in
        {options})
            echo "{root}$("$real" "$option")" ;;
        *) "$real" "$option" || exit ;;
    esac
done
"""


def unpack(root: Path, major: int | str, debs: list[Path]) -> None:
    """Unpacks DEBS into ROOT so that its postgres starts like any build: each program, PGXS's test drivers too, gets
    an RPATH to the libraries beside it (a RUNPATH would not reach the libraries it loads) and, when the packages
    bring a C library, its loader. A pg_config reporting /usr/... is wrapped to report ROOT/usr/..."""
    as_root(["rm", "-rf", str(root)])
    as_root(["mkdir", "-p", str(root)])
    for deb in debs:
        as_root(["dpkg-deb", "-x", str(deb), str(root)])
    pg = root / "usr" / "lib" / "postgresql" / str(major)
    dirs = [d for d in (pg / "bin", pg / "lib" / "pgxs" / "src" / "test") if d.is_dir()]
    # (a release before the /usr merge keeps some libraries in /lib)
    libdirs = [d for d in (root / "usr/lib/x86_64-linux-gnu", root / "lib/x86_64-linux-gnu") if d.is_dir()]
    rpath = ":".join(map(str, libdirs))
    loader = root / "usr" / "lib64" / "ld-linux-x86-64.so.2"
    interpreter = ["--set-interpreter", str(loader)] if loader.exists() else []
    for directory in dirs:
        for path in sorted(p for p in directory.rglob("*") if p.is_file() and not p.is_symlink()):
            # a program (file(1) says an ELF executable), not a library
            if re.match(r"ELF.*executable", output(["file", "-b", path])):
                as_root(["patchelf", *interpreter, "--force-rpath", "--set-rpath", rpath, str(path)])
    # a library with a RUNPATH of its own (bullseye's libLLVM-11) ignores the programs' RPATH: it gets them too
    for directory in libdirs:
        for path in sorted(p for p in directory.rglob("*.so*") if p.is_file() and not p.is_symlink()):
            if "(RUNPATH)" in output(["readelf", "-d", path]):
                as_root(["patchelf", "--add-rpath", rpath, str(path)])
    bindir = pg / "bin"
    pg_config = bindir / "pg_config"
    if os.access(pg_config, os.X_OK) and output([pg_config, "--bindir"]) != str(bindir):
        as_root(["mv", pg_config, bindir / "pg_config.debian"])
        as_root(["install", "-m", "755", "/dev/stdin", pg_config], input=_pg_config_script(root, bindir), text=True)
    as_root(["chmod", "-R", "a+rX", str(root)])
