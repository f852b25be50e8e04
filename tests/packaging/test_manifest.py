"""inputs.manifest and its one reader, tools/ulidtools/manifest.py: the
repository's manifest reads (every line of a known kind with its fields, a
pin given once, every list of builds naming builds, every lock file
present), each build's input is pinned, and a line that is not well formed
stops the reader with its number; scripts/lib.sh's `ULID_ALL_BUILDS` and
`build_dir` give what the reader gives, and its `help_or_builds` refuses a name no build has.

Runs once (tools/ulidtools/testrun.py names this file): seconds.
"""

from __future__ import annotations

import re
import subprocess
import tomllib

import pytest

from harness.pgcluster import ROOT
from ulidtools import manifest
from ulidtools.manifest import Build, DebianFile, Lock, ManifestError, Wheel
from ulidtools.builds import build_of, cluster_port, cluster_root
from ulidtools.cargo_env import release_builds

pytestmark = pytest.mark.once_per_run

SHA = "ab" * 32


def test_the_repository_manifest_reads():
    records = manifest.read()
    kinds = {r.text.split()[0] for r in records}
    assert kinds == set(manifest.KINDS), kinds ^ set(manifest.KINDS)
    # every line that is not blank or a comment became a record
    lines = [line for line in manifest.PATH.read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert len(records) == len(lines)
    # a .deb is the architecture its name or system says
    for r in records:
        if isinstance(r, DebianFile) and r.path.endswith(".deb"):
            assert r.path.endswith((f"_{r.arch}.deb", "_all.deb")), r.text


def test_every_build_comes_from_a_pinned_input():
    """Each build's origin is pinned: the wheel of that build, the source
    tarball or the Debian packages of its major version; ports do not
    overlap."""
    records = manifest.read()
    builds = [r for r in records if isinstance(r, Build)]
    assert builds, "no build lines"
    debian = {r.package for r in manifest.of_kind("debian")}
    for build in builds:
        assert build.name == str(build.major) or build.name.startswith(f"{build.major}-"), build.name
        assert build.version.startswith(str(build.major)), build.text
        package = f"postgresql-{build.major}"
        if build.origin == "debian":
            assert package in debian, build.text
        elif build.origin == "wheel":
            assert any(isinstance(r, Wheel) and r.build == build.name for r in records), build.text
        else:
            kind = "debian-binary" if build.origin == "debian-binary" else "debian-source"
            assert build.origin in ("debian-binary", "source", "source+assert"), build.text
            assert any(isinstance(r, DebianFile) and (r.kind, r.package) == (kind, package) for r in records), \
                f"build {build.name}: inputs.manifest pins no {kind} {package}"
    # each build's slots (0 to 49) are its own
    ports = sorted(b.port for b in builds)
    assert all(b - a >= 50 for a, b in zip(ports, ports[1:])), ports


GOOD = [
    "build 15 15 15.20 debian 1500",
    "build 16 16 16.9 wheel 1550",
    "upgrade 16 15",
    "bench 15 16",
    f"debian-source debian sid postgresql-18 18.6 pool/main/p/postgresql-18/postgresql-18_18.6.orig.tar.bz2 10 {SHA}",
    f"debian-binary debian trixie libc6:arm64 2.41-12 pool/main/g/glibc/libc6_2.41-12_arm64.deb 10 {SHA}",
    f"system bookworm-arm64 debian bookworm libc6 2.36-9 pool/main/g/glibc/libc6_2.36-9_arm64.deb 10 {SHA}",
    "debian postgresql-15 15.20-0+deb12u1",
    f"wheel 16 some-project 1.0 some_project-1.0.whl {SHA} some_project/pginstall",
    f"crate cargo-pgrx 0.19.3 {SHA}",
    f"pypi ziglang 0.17.1 ziglang-0.17.1.whl {SHA}",
]


def test_a_well_formed_manifest_gives_typed_records():
    records = manifest.parse("# a comment\n\n" + "\n".join(GOOD) + "\n")
    assert [r.number for r in records] == list(range(3, 3 + len(GOOD)))
    build, wheel_build, upgrade, bench, source, binary, system, debian, wheel, crate, pypi = records
    assert (build.name, build.major, build.version, build.origin, build.port) == ("15", 15, "15.20", "debian", 1500)
    assert upgrade.new == "16" and upgrade.olds == ("15",)
    assert bench.builds == ("15", "16")
    assert (source.kind, source.package, source.size) == ("debian-source", "postgresql-18", 10)
    assert (binary.kind, binary.package, binary.suite) == ("debian-binary", "libc6:arm64", "trixie")
    assert (system.kind, system.package) == ("system:bookworm-arm64", "libc6")
    assert (wheel.build, wheel.directory) == ("16", "some_project/pginstall")
    assert (crate.name, crate.version, pypi.project) == ("cargo-pgrx", "0.19.3", "ziglang")
    assert system.rest() == GOOD[6].split(maxsplit=1)[1]
    assert (binary.arch, system.arch, source.arch) == ("arm64", "arm64", "amd64")


@pytest.mark.parametrize("line, message", [
    ("build 17 17 17.12 debian", "line 13: expected 6 fields"),
    ("build 17 17 17.12 debian port", "line 13: port is not a number"),
    ("crate cargo-fuzz 0.13.2 not-a-sha", "line 13: not a sha256"),
    ("wheels 16 x 1 y z w", "line 13: no kind of line is called wheels"),
    ("debian postgresql-15 15.21", "line 13: pinned twice (line 9 too)"),
    ("upgrade 19 15", "line 13: 19 is not a build"),
    # callers name a source tarball by its package alone
    (f"debian-source debian trixie postgresql-18 18.5 pool/main/p/postgresql-18/x.orig.tar.bz2 10 {SHA}",
     "line 13: pinned twice (line 6 too)"),
    (f"system bookworm-arm64 debian trixie libc6 2.41-12 pool/main/g/glibc/libc6_2.41-12_arm64.deb 10 {SHA}",
     "line 13: pinned twice (line 8 too)"),
    ("bench", "line 13: bench names no build"),
    ("lock no/such/file.lock", "line 13: no file no/such/file.lock"),
])
def test_a_line_that_is_not_well_formed_stops_the_reader(line, message):
    with pytest.raises(ManifestError) as raised:
        manifest.parse("\n".join(["# a comment", *GOOD, line]) + "\n", ROOT)
    assert str(raised.value).startswith(message), raised.value


def lib_sh(command: str) -> str:
    run = subprocess.run(["bash", "-c", f"source scripts/lib.sh; {command}"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_lib_sh_prints_what_the_reader_gives():
    builds = [r for r in manifest.read() if isinstance(r, Build)]
    # one shell, each command's output after a line of its own
    commands = ["echo $ULID_ALL_BUILDS", "for b in $ULID_ALL_BUILDS; do build_dir $b pg_config; done",
                f"help_or_builds {' '.join(b.name for b in builds)} && echo known"]
    out = lib_sh("; ".join(f"echo '>>> {c}'; {c}" for c in commands))
    printed = dict(part.split("\n", 1) for part in out.split(">>> ")[1:])
    assert printed[commands[0]].split() == [b.name for b in builds]
    # (lib.sh's build_dir asks ulidtools)
    assert printed[commands[1]].split() == [str(build_of(b.name).pg_config) for b in builds]
    assert printed[commands[2]] == "known\n"
    assert release_builds() == [b.name for b in builds if b.name == str(b.major)]


@pytest.mark.parametrize("base", [None, "24000"])
def test_the_scripts_keep_the_clusters_where_the_harness_looks(base, monkeypatch):
    """scripts/cluster and lib.sh's cluster_port ask ulidtools, which the
    tests and the test run read too (builds.cluster_root, cluster_port)."""
    monkeypatch.delenv("ULID_CLUSTER_ROOT", raising=False)
    if base:
        monkeypatch.setenv("ULID_PORT_BASE", base)
    else:
        monkeypatch.delenv("ULID_PORT_BASE", raising=False)
    assert lib_sh("scripts/cluster dir 15 somewhere").strip() == str(cluster_root() / "somewhere-15")
    assert lib_sh("cluster_port 15 3").strip() == str(cluster_port("15", 3))


def test_lib_sh_follows_where_the_tools_are(tmp_path, monkeypatch):
    """lib.sh asks ulidtools in the environment it runs in: another
    ULID_TOOLS moves the tools' directories (cargo_env.tool_dirs)."""
    monkeypatch.delenv("ULID_TOOLS", raising=False)
    default = lib_sh("echo $CARGO_PGRX").strip()
    monkeypatch.setenv("ULID_TOOLS", str(tmp_path))
    moved = lib_sh("echo $CARGO_PGRX; echo $PATH").split("\n")
    assert moved[0] == str(tmp_path / f"cargo-pgrx-{manifest.one('crate', 'cargo-pgrx').version}" / "bin" / "cargo-pgrx")
    assert moved[1].startswith(f"{tmp_path}/cargo-pgrx-"), moved[1]
    monkeypatch.delenv("ULID_TOOLS")
    assert lib_sh("echo $CARGO_PGRX").strip() == default


def test_a_cluster_slot_stays_within_its_builds_ports(monkeypatch):
    """18 and 18-assert run side by side: a slot as wide as the gap between
    their ports would give a cluster of one a port of the other."""
    monkeypatch.delenv("ULID_PORT_BASE", raising=False)
    ports = sorted(b.port for b in manifest.read() if isinstance(b, Build))
    gap = min(b - a for a, b in zip(ports, ports[1:]))
    assert cluster_port("18", gap - 1) < cluster_port("18-assert", 0)
    with pytest.raises(ValueError, match="slot"):
        cluster_port("18", gap)


@pytest.mark.parametrize("base", ["40000", "31000", "80", "x"])
def test_a_port_base_whose_ports_reach_the_ephemeral_range_is_refused(base, monkeypatch):
    monkeypatch.setenv("ULID_PORT_BASE", base)
    with pytest.raises(ValueError, match="ULID_PORT_BASE"):
        cluster_port("15", 0)


@pytest.mark.parametrize("name", ["12345", "18-", "1", "15 16", "18 18-assert"])
def test_a_script_stops_on_a_build_the_manifest_does_not_declare(name):
    run = subprocess.run(["bash", "-c", f"source scripts/lib.sh; help_or_builds 15 '{name}'; echo reached"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode != 0 and "reached" not in run.stdout
    assert f"PostgreSQL {name} is not a build inputs.manifest declares" in run.stderr


def test_the_groups_of_builds_tested_side_by_side():
    """builds.waves for every build, and for some runs of a few: each build
    once, at most two in a group; none of a group installs into another
    build of it or into one another of it installs into; no group installs
    into the next one (made ready while the group is tested)."""
    from ulidtools import builds

    def check(names):
        plan = builds.waves(names)
        assert sorted(n for group in plan for n in group) == sorted(names)
        for group, after in zip(plan, plan[1:] + [[]]):
            assert 1 <= len(group) <= builds.WAVE_SIZE
            touched = [builds.touched_by(n) for n in group]
            assert not set(group) & set().union(*touched), plan
            assert all(not a & b for i, a in enumerate(touched) for b in touched[i + 1:]), plan
            assert not set(after) & set().union(*touched), plan
        return plan

    every = check(list(builds.BUILDS))
    # the pg_upgrade tests install into older builds: two that upgrade from
    # the same build, or a build and one it upgrades from, are never together
    for new, olds in builds.UPGRADES.items():
        for group in every:
            if new in group:
                assert not set(olds) & set(group), every
    # fewer groups than builds: some run side by side
    assert len(every) < len(builds.BUILDS)
    assert check(["18", "19"]) == [["18"], ["19"]]
    assert check(["15", "16"]) == [["15", "16"]]
    assert check(["16"]) == [["16"]]
    # lib.sh's scripts read the same groups, a line each
    out = subprocess.run(["python3", "-S", "-m", "ulidtools", "waves", *builds.BUILDS],
                         cwd=ROOT / "tools", capture_output=True, text=True, check=True).stdout
    assert [line.split() for line in out.splitlines()] == every


def test_every_lock_file_is_listed():
    """A lock file pins what its tests download from a registry: each one
    the repository holds is a `lock` line, so that the manifest lists every
    outside input."""
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files"], check=True, capture_output=True,
                             text=True).stdout.split()
    locks = sorted(p for p in tracked
                   if p.rsplit("/", 1)[-1] in ("Cargo.lock", "package-lock.json", "requirements.txt"))
    listed = sorted(r.path for r in manifest.read() if isinstance(r, Lock))
    assert locks == listed


def test_the_python_project_needs_only_pinned_packages():
    """pyproject.toml's dependencies, and what builds it, are each pinned in
    tests/requirements.txt: setup installs those first, with their hashes,
    then the project without resolving anything (--no-deps, --no-index)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    pinned = {m[1].lower() for m in re.finditer(r"^([A-Za-z0-9_.-]+)==\S+ --hash=sha256:[0-9a-f]{64}$",
                                                (ROOT / "tests" / "requirements.txt").read_text(), re.M)}
    wanted = [*project["project"]["dependencies"], *project["build-system"]["requires"]]
    names = [re.match(r"[A-Za-z0-9_.-]+", want)[0].lower() for want in wanted]
    assert "setuptools" in names and "pytest" in names
    assert [name for name in names if name not in pinned] == []

