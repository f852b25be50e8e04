"""The PostgreSQL builds, as the `build` lines of inputs.manifest declare
them: the one list of builds that scripts/lib.sh, the tests and the docs'
tables of versions all read.

    python3 tests/harness/builds.py --write docs/versions.md docs/development.md

rewrites those pages' tables from the manifest (a test checks they are
current): the versions every test runs on (docs/versions.md), and where each
build comes from (docs/development.md).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "inputs.manifest"
# The generated table stands between these lines of a page.
TABLE_START = "<!-- builds: generated from the build lines of inputs.manifest (tests/harness/builds.py) -->"
TABLE_END = "<!-- /builds -->"
ORIGINS_START = "<!-- build origins: generated from inputs.manifest (tests/harness/builds.py) -->"
ORIGINS_END = "<!-- /build origins -->"
# the pages that hold a generated table
TABLE_PAGES = ("docs/versions.md", "docs/development.md")


@dataclass(frozen=True)
class Build:
    """A PostgreSQL build, as a `build` line of inputs.manifest declares it."""

    name: str  # "15", "18-assert"
    major: int
    version: str  # what the server reports: "15.20", "19rc1"
    origin: str  # debian, wheel, source, source+assert, debian-binary
    port: int  # its clusters listen on ULID_PORT_BASE + port + slot

    @property
    def assertions(self) -> bool:
        return self.origin.endswith("+assert")


def _manifest_lines() -> list[list[str]]:
    return [line.split() for line in MANIFEST.read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def _read_builds() -> dict[str, Build]:
    builds = {}
    for fields in _manifest_lines():
        if fields[0] == "build":
            _, name, major, version, origin, port = fields
            builds[name] = Build(name, int(major), version, origin, int(port))
    return builds


# Every build the tests can run on, in the manifest's order.
BUILDS = _read_builds()


def _read_lists(kind: str) -> list[list[str]]:
    """The builds each line of KIND names, checked against the build lines."""
    lists = [fields[1:] for fields in _manifest_lines() if fields[0] == kind]
    for names in lists:
        for name in names:
            if name not in BUILDS:
                raise ValueError(f"inputs.manifest: {kind} {' '.join(names)}: {name} is not a build")
    return lists


# pg_upgrade to each build (key) from the older ones (value), as the
# `upgrade` lines say
UPGRADES = {new: olds for new, *olds in _read_lists("upgrade")}
# the builds a full benchmark run measures, as the `bench` line says
BENCH_BUILDS = [name for names in _read_lists("bench") for name in names]


def build_of(build: int | str) -> Build:
    try:
        return BUILDS[str(build)]
    except KeyError:
        raise ValueError(f"PostgreSQL {build} is not a build inputs.manifest declares ({', '.join(BUILDS)})") from None


def major_version(build: int | str) -> int:
    """18 for "18" and for "18-assert"."""
    return build_of(build).major


def debian_release(suite: str) -> str:
    """The Debian release of a suite, as scripts/lib.sh's debian_release:
    bullseye-security -> bullseye; experimental, built against sid -> sid."""
    return "sid" if suite == "experimental" else suite.split("-")[0]


def origin_text(build: Build) -> str:
    """Where a build comes from, in words, from the manifest line it names."""
    lines = _manifest_lines()
    package = f"postgresql-{build.major}"

    def pinned(kind: str) -> list[str]:
        key = 3 if kind.startswith("debian-") else 1
        wanted = build.name if kind == "wheel" else package
        return next(fields for fields in lines if fields[0] == kind and fields[key] == wanted)

    if build.origin == "debian":
        return f"Debian 12's packages (`{package}`)"
    if build.origin == "wheel":
        _, _, project, version, *_ = pinned("wheel")
        return f"the PyPI wheel `{project}` {version}, a relocatable build with headers"
    if build.origin.startswith("source"):
        _, _, suite, _, version, *_ = pinned("debian-source")
        text = f"built from Debian's source archive (`{suite}`, {package} {version})"
        return text + (" with `--enable-cassert --enable-debug`" if build.assertions else "")
    if build.origin == "debian-binary":
        _, _, suite, _, version, *_ = pinned("debian-binary")
        release = debian_release(suite)
        # the packages of a release newer than Debian 12 bring its C library
        # (scripts/lib.sh: debian_binary_packages)
        if any(fields[0] == "debian-binary" and fields[3] == "libc6" and debian_release(fields[2]) == release
               for fields in lines):
            return (f"Debian {suite}'s binary packages (`{package}` {version}), unpacked with the "
                    f"libraries of {release} they need")
        return (f"Debian {suite}'s binary packages (`{package}` {version}), unpacked with the "
                f"libraries of {release} they need beside Debian 12's C library")
    raise ValueError(f"build {build.name}: unknown origin {build.origin}")


def markdown_table() -> str:
    """The versions every test runs on, for users (docs/versions.md)."""
    rows = ["| build | PostgreSQL |", "| --- | --- |"]
    rows += [f"| {b.name} | {b.version} |" for b in BUILDS.values()]
    return "\n".join([TABLE_START, *rows, TABLE_END])


def origins_table() -> str:
    """Where each build comes from, for developers (docs/development.md)."""
    rows = ["| build | PostgreSQL | where it comes from |", "| --- | --- | --- |"]
    rows += [f"| {b.name} | {b.version} | {origin_text(b)} |" for b in BUILDS.values()]
    return "\n".join([ORIGINS_START, *rows, ORIGINS_END])


def with_table(page: str) -> str:
    """The page with each generated table it has replaced by the current one."""
    for start_mark, end_mark, table in ((TABLE_START, TABLE_END, markdown_table),
                                        (ORIGINS_START, ORIGINS_END, origins_table)):
        if start_mark in page:
            start, end = page.index(start_mark), page.index(end_mark) + len(end_mark)
            page = page[:start] + table() + page[end:]
    return page


if __name__ == "__main__":
    if sys.argv[1:2] != ["--write"] or len(sys.argv) < 3:
        sys.exit("usage: tests/harness/builds.py --write PAGE...")
    for name in sys.argv[2:]:
        page = Path(name)
        page.write_text(with_table(page.read_text()))
