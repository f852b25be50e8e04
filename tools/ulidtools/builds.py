"""The PostgreSQL builds as inputs.manifest's `build` lines declare them (the one list scripts/lib.sh, the
tests, the benchmarks and the docs read): their ports, the groups tested side by side, and the pages' tables of
them (docs/development.md, "The PostgreSQL builds").
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from ulidtools import manifest
from ulidtools.manifest import Build

TABLE_START = "<!-- builds: generated from the build lines of inputs.manifest (python3 -m ulidtools tables) -->"
TABLE_END = "<!-- /builds -->"
ORIGINS_START = "<!-- build origins: generated from inputs.manifest (python3 -m ulidtools tables) -->"
ORIGINS_END = "<!-- /build origins -->"
TABLE_PAGES = ("docs/versions.md", "docs/development.md")

BUILDS: dict[str, Build] = {r.name: r for r in manifest.of_kind("build")}
# pg_upgrade to each build (key) from the older ones (value): the `upgrade` lines
UPGRADES = {r.new: list(r.olds) for r in manifest.of_kind("upgrade")}
# the builds a full benchmark run measures: the `bench` line
BENCH_BUILDS = [name for r in manifest.of_kind("bench") for name in r.builds]


def build_of(build: int | str) -> Build:
    try:
        return BUILDS[str(build)]
    except KeyError:
        raise ValueError(f"PostgreSQL {build} is not a build inputs.manifest declares ({', '.join(BUILDS)})") from None


def ends_of_run(oldest_major: int = 0) -> tuple[str, str]:
    """The oldest and the newest build of asked() (of OLDEST_MAJOR or newer, when there are any), for the tests
    that need not run on every build."""
    names = asked()
    names = [name for name in names if BUILDS[name].major >= oldest_major] or names
    return names[0], names[-1]


def asked() -> list[str]:
    """The builds of ULID_BUILDS (blank-separated), in the manifest's order; all if unset."""
    wanted = (os.environ.get("ULID_BUILDS") or "").split()
    for name in wanted:
        build_of(name)
    return [name for name in BUILDS if not wanted or name in wanted]


# Private clusters listen on ULID_PORT_BASE + the build's port + a slot below SLOTS, the gap between two builds'
# ports, all below the kernel's ephemeral ports (32768 and up), which an outgoing connection may hold.
_PORTS = sorted(b.port for b in BUILDS.values())
SLOTS = min(b - a for a, b in zip(_PORTS, _PORTS[1:]))


def port_base() -> int:
    text = os.environ.get("ULID_PORT_BASE") or "20000"
    if not text.isdigit():
        raise ValueError(f"ULID_PORT_BASE={text} is not a port number")
    try:
        start = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        start = 32768
    base = int(text)
    top = base + _PORTS[-1] + SLOTS - 1
    if base < 1024 or top >= start:
        raise ValueError(f"ULID_PORT_BASE={base} gives ports {base + _PORTS[0]} to {top}; they must stay between "
                         f"1024 and the kernel's ephemeral ports ({start} and up), where a server may fail to bind at "
                         f"random: choose a base from 1024 to {start - SLOTS - _PORTS[-1]}")
    return base


def cluster_port(build: int | str, slot: int = 0) -> int:
    if not 0 <= slot < SLOTS:
        raise ValueError(f"cluster slot {slot} is not below {SLOTS}")
    return port_base() + build_of(build).port + slot


def cluster_root() -> Path:
    # one per ULID_PORT_BASE, so that two runs side by side never restart each other's servers
    base = os.environ.get("ULID_PORT_BASE")
    return Path(os.environ.get("ULID_CLUSTER_ROOT") or f"/tmp/ulid-clusters{f'-{base}' if base else ''}")


def major_version(build: int | str) -> int:
    """18 for "18" and for "18-assert"."""
    return build_of(build).major


# Where clippy and `cargo pgrx test` run (docs/development.md, "Running the tests"). 14, not 13, whose arms it
# takes: the first group's preparation, beside which only a release's files are made, then only installs.
LINT_BUILDS = ("14", "18-assert", "19")


def lint_builds(names: list[str]) -> list[str]:
    """Of NAMES, each of LINT_BUILDS or else a build of its major version (18 for 18-assert); the first of NAMES
    when none is there."""
    chosen = []
    for lint in LINT_BUILDS:
        same = [n for n in names if n == lint] or [n for n in names if major_version(n) == major_version(lint)]
        chosen += same[:1]
    return chosen or names[:1]


WAVE_SIZE = 2  # builds whose server tests run at once: one build's tests leave about half of two cores idle


def touched_by(build: str) -> set[str]:
    """The builds BUILD's pg_upgrade tests install releases into (`upgrade` lines)."""
    return set(UPGRADES.get(build, []))


def waves(names: list[str]) -> list[list[str]]:
    """NAMES in groups whose server tests can run at once (docs/development.md, "Running the tests"), at most
    WAVE_SIZE each: the fewest groups, then NAMES' order as far as it can."""
    for name in names:
        build_of(name)
    order = {name: i for i, name in enumerate(names)}
    touches = {name: touched_by(name) for name in names}

    def together(a: str, b: str) -> bool:
        return a not in touches[b] and b not in touches[a] and not touches[a] & touches[b]

    def plans(rest: tuple[str, ...], before: frozenset[str]):
        # every way to place the builds REST after a group that touches BEFORE
        if not rest:
            yield []
            return
        for size in range(min(WAVE_SIZE, len(rest)), 0, -1):
            for group in itertools.combinations(rest, size):
                if before & set(group) or not all(together(a, b) for i, a in enumerate(group) for b in group[i + 1:]):
                    continue
                left = tuple(n for n in rest if n not in group)
                touched = frozenset().union(*(touches[n] for n in group))
                for tail in plans(left, touched):
                    yield [list(group), *tail]

    return min(plans(tuple(names), frozenset()),
               key=lambda plan: (len(plan), [order[n] for group in plan for n in group]))


def debian_release(suite: str) -> str:
    """A suite's Debian release: bullseye-security -> bullseye; experimental -> sid."""
    return "sid" if suite == "experimental" else suite.split("-")[0]


def origin_text(build: Build) -> str:
    package = f"postgresql-{build.major}"

    def pinned(kind: str):
        return next(r for r in manifest.of_kind(kind) if r.package == package)

    if build.origin == "debian":
        return f"Debian 12's packages (`{package}`)"
    if build.origin == "wheel":
        wheel = manifest.one("wheel", build.name)
        return f"the PyPI wheel `{wheel.project}` {wheel.version}, a relocatable build with headers"
    if build.origin.startswith("source"):
        source = pinned("debian-source")
        text = f"built from Debian's source archive (`{source.suite}`, {package} {source.version})"
        return text + (" with `--enable-cassert`" if build.assertions else "")
    if build.origin == "debian-binary":
        binary = pinned("debian-binary")
        release = debian_release(binary.suite)
        # a release newer than Debian 12 brings its C library (debian_builds.packages)
        own_libc = any(r.package == "libc6" and debian_release(r.suite) == release
                       for r in manifest.of_kind("debian-binary"))
        beside = "" if own_libc else " beside Debian 12's C library"
        return (f"Debian {binary.suite}'s binary packages (`{package}` {binary.version}), unpacked with the "
                f"libraries of {release} they need{beside}")
    raise ValueError(f"build {build.name}: unknown origin {build.origin}")


def replace_tables(page: str, tables) -> str:
    """PAGE with each table of TABLES (start mark, end mark, header, what makes its rows) it has made again."""
    for start_mark, end_mark, header, rows in tables:
        if start_mark in page:
            lines = [f"| {' | '.join(cells)} |" for cells in (header, *rows())]
            table = "\n".join([start_mark, lines[0], f"|{' --- |' * len(header)}", *lines[1:], end_mark])
            start, end = page.index(start_mark), page.index(end_mark) + len(end_mark)
            page = page[:start] + table + page[end:]
    return page


def with_table(page: str) -> str:
    """The page with its generated tables made again: the builds (docs/versions.md), their origins (development.md)."""
    return replace_tables(page, (
        (TABLE_START, TABLE_END, ["build", "PostgreSQL"], lambda: [[b.name, b.version] for b in BUILDS.values()]),
        (ORIGINS_START, ORIGINS_END, ["build", "PostgreSQL", "where it comes from"],
         lambda: [[b.name, b.version, origin_text(b)] for b in BUILDS.values()])))
