"""Every test, as CI runs it (scripts/test, which .ci/run calls), on the builds named, or every build of
inputs.manifest: docs/development.md, "Running the tests" (what runs beside what: `run`)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from ulidtools import builds, cargo_env, earlier_releases, package, project, tested
from ulidtools.clusters import Cluster, pg_user
from ulidtools.base import ROOT, ToolError, log

TARGET = ROOT / "target"


def step(command: list[str], locked: bool = False, **kwargs) -> None:
    """LOCKED: a build into the shared cargo target directory, under its build lock."""
    run = (lambda *a, **k: cargo_env.run_locked(ROOT, *a, **k)) if locked else subprocess.run
    if run(command, cwd=ROOT, **kwargs).returncode != 0:
        raise ToolError(f"{' '.join(map(str, command))} failed")


def pytest(*args: str) -> list[str]:
    return [str(project.VENV / "bin" / "pytest"), "-q", "-p", "no:cacheprovider", *args]


def clippy_compiles() -> dict[str, str]:
    """The workspace's crates compiled by clippy with warnings as errors, as `cargo clippy` does it: a test
    build under it is linted, with no second compile for clippy alone."""
    driver = shutil.which("clippy-driver")
    if not driver:
        raise ToolError("clippy-driver is not in PATH (scripts/setup links it)")
    return {"RUSTC_WORKSPACE_WRAPPER": driver, "CLIPPY_ARGS": "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"}


def prepare(build: str, lint: bool) -> None:
    """What a build needs before its server tests; on a lint build, its #[pg_test] tests too."""
    if lint:
        env = {**os.environ, **cargo_env.pgrx_env(build), **clippy_compiles()}
        log(f"PostgreSQL {build}: unit, property and #[pg_test] tests, built by clippy -D warnings")
        pgdata = builds.cluster_root() / f"pgrx-{build}"
        pgdata.mkdir(parents=True, exist_ok=True)
        shutil.chown(pgdata, pg_user())
        step(["cargo", "pgrx", "test", f"pg{builds.major_version(build)}", "--runas", pg_user(), "--pgdata", pgdata],
             True, env=env)
    log(f"PostgreSQL {build}: installing the extension")
    package.install(build)
    # what harness/upgrading.py installs, made here, beside the group before: the tests would wait for the build lock
    releases = list(project.RELEASE_COMMITS)
    wanted = releases if build in builds.ends_of_run() else releases[-1:]
    log(f"PostgreSQL {build}: ulid {', '.join(wanted)} built for the upgrade tests")
    for version in wanted:
        earlier_releases.build(version, build)


class Preparations(threading.Thread):
    """The later groups made ready (`test --prepare`, at nice 10), each once every earlier group whose tests touch one
    of its builds (builds.touched_by) has been tested: docs/development.md, "Running the tests"."""

    def __init__(self, waves: list[list[str]], lint_builds: list[str]) -> None:
        super().__init__(daemon=True)
        self.waves, self.lint_builds = waves, lint_builds
        self.done = [threading.Event() for _ in waves]
        self.ready = [threading.Event() for _ in waves]
        self.status = [1] * len(waves)
        self.stopping, self.process, self.lock = False, None, threading.Lock()
        self.start()

    def log_of(self, k: int) -> Path:
        return TARGET / f"prepare-{'-'.join(self.waves[k])}.log"

    def run(self) -> None:
        for k in range(1, len(self.waves)):
            for i in range(k):
                if any(b in builds.touched_by(t) for t in self.waves[i] for b in self.waves[k]):
                    self.done[i].wait()
            with self.lock:
                if self.stopping:
                    break
                with open(self.log_of(k), "w") as out:
                    self.process = subprocess.Popen(
                        ["nice", "-n", "10", sys.executable, "-S", "-m", "ulidtools", "test", "--prepare",
                         ",".join(self.lint_builds), *self.waves[k]], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
            self.status[k] = self.process.wait()
            self.ready[k].set()
            if self.status[k] != 0:
                break
        for event in self.ready:
            event.set()

    def wait_for(self, k: int) -> None:
        self.ready[k].wait()
        made = self.log_of(k)
        sys.stderr.write(made.read_text() if made.exists() else "")
        if self.status[k] != 0:
            raise ToolError(f"PostgreSQL {' '.join(self.waves[k])}: their preparation failed (above)")

    def stop(self) -> None:
        with self.lock:
            self.stopping = True
        for event in self.done:
            event.set()
        if self.process:
            self.process.wait()


class InBackground(threading.Thread):
    """COMMANDS run one after another beside the run at nice 10, their output into LOG, until one fails."""

    def __init__(self, commands: list[list[str]], log_file: Path, env: dict[str, str]) -> None:
        super().__init__(daemon=True)
        self.commands, self.log_file, self.env, self.status = commands, log_file, env, 1
        self.start()

    def run(self) -> None:
        with open(self.log_file, "w") as out:
            for command in self.commands:
                self.status = subprocess.run(["nice", "-n", "10", *command], cwd=ROOT, stdout=out,
                                             stderr=subprocess.STDOUT, env=self.env).returncode
                if self.status != 0:
                    return

    def wait_or_fail(self, what: str, tail: int) -> None:
        """If a command failed, shows the last TAIL lines of the log and stops the run; else pytest's counts."""
        self.join()
        lines = self.log_file.read_text().splitlines()
        if self.status != 0:
            sys.stderr.write("\n".join(lines[-tail:]) + "\n")
            raise ToolError(f"{what} failed (log: {self.log_file})")
        sys.stderr.write("".join(f"{line}\n" for line in lines if re.match(r"^[0-9]+ passed", line)))


def server_tests(wave: list[str]) -> None:
    """A wave's pytest, side by side; then a row of the tested-where table (docs/versions.md) marked for a
    build whose every test there was skipped fails the run."""
    def tests(build: str) -> list[str]:
        return pytest("-rs", "--durations=12", "tests", "--build", build,
                      "--ran-report", str(TARGET / f"ran-{build}.json"))

    if len(wave) == 1:
        log(f"PostgreSQL {wave[0]}: pg_regress and client tests")
        failed = wave if subprocess.run(tests(wave[0]), cwd=ROOT).returncode != 0 else []
    else:
        log(f"PostgreSQL {' '.join(wave)}: pg_regress and client tests, side by side (logs: target/pytest-BUILD.log)")
        running = []
        for build in wave:
            with open(TARGET / f"pytest-{build}.log", "w") as out:
                running.append(subprocess.Popen(tests(build), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT))
        failed = [build for build, process in zip(wave, running) if process.wait() != 0]
        for build in wave:
            log(f"PostgreSQL {build}: pg_regress and client tests (target/pytest-{build}.log)")
            sys.stdout.write((TARGET / f"pytest-{build}.log").read_text())
            sys.stdout.flush()
    if failed:
        raise ToolError(f"PostgreSQL {' '.join(failed)}: the server tests failed")
    page = (ROOT / "docs" / "versions.md").read_text()
    not_run = [problem for build in wave
               for problem in tested.rows_not_run(build, json.loads((TARGET / f"ran-{build}.json").read_text()), page)]
    if not_run:
        raise ToolError("the table of what is tested where marks what did not run:\n  " + "\n  ".join(not_run))


def run(names: list[str]) -> None:
    started = time.monotonic()
    env = os.environ
    env["ULID_BUILDS"] = " ".join(names)
    step([sys.executable, "-S", "-m", "ulidtools", "setup"])

    lint_builds = builds.lint_builds(names)
    waves = builds.waves(names)
    log("cargo fmt --check")
    step(["cargo", "fmt", "--all", "--check"])
    step(["cargo", "fmt", "--manifest-path", "fuzz/Cargo.toml", "--check"])
    log("ulid-core: clippy -D warnings, unit and property tests")
    step(["cargo", "test", "--quiet", "-p", "ulid-core"], env={**env, **clippy_compiles()})
    # the binary its tests build is the one the server and docs tests use (ULID_CLI)
    log("the command-line tool, ulid-tool: clippy -D warnings, its tests")
    target = {**env, "CARGO_TARGET_DIR": str(cargo_env.cargo_target())}
    step(["cargo", "test", "--quiet", "-p", "ulid-tool"], True, env={**target, **clippy_compiles()})
    env["ULID_CLI"] = str(cargo_env.cargo_target() / "debug" / "ulid-tool")
    TARGET.mkdir(exist_ok=True)

    # with a cargo target and ports of their own, driving their servers with the 13 and 15 builds' clients;
    # what installs over a build waits for the loop (below); the rest of a release: scripts/test-release
    release_dist = TARGET / "release-check"
    release_log = TARGET / "release-check.log"
    release_checks = None
    if "13" in names and "15" in names:
        log(f"a release's files for 13 and 15 on amd64: built and installed in the background, META.json checked by "
            f"PGXN's validator and the pinned node run in a bare Debian 12 (log: {release_log.relative_to(ROOT)})")
        release_checks = InBackground(
            [[sys.executable, "-S", "-m", "ulidtools", "release-check", "--out", str(release_dist)],
             # (then the release-mode build for 15 the from-source test at the end makes, compiled here)
             ["env", f"CARGO_TARGET_DIR={cargo_env.native_release_target()}", "cargo", "pgrx", "package",
              "--pg-config", str(builds.build_of("15").pg_config), "--out-dir", str(TARGET / "from-source-made")],
             pytest("-rs", "tests/release/test_artifacts.py", "tests/release/test_installed.py",
                    "tests/release/test_install_pages.py", "tests/packaging/test_pgxn.py",
                    "tests/packaging/test_node_pin.py")],
            release_log, {**env, "ULID_CARGO_TARGET": f"{cargo_env.cargo_target()}-release",
                          "ULID_RELEASE_DIST": str(release_dist)})

    for build in waves[0]:
        prepare(build, build in lint_builds)
    ahead = Preparations(waves, lint_builds)
    # fuzzing, the tool's benchmark runner and the tooling's checks touch no build: beside the last group's idle core
    seconds = env.setdefault("ULID_FUZZ_SECONDS", "20")
    beside_last_log = TARGET / "fuzz-and-cli-bench.log"
    tooling_log = TARGET / "tooling-tests.log"
    try:
        for i, wave in enumerate(waves):
            if i:
                ahead.wait_for(i)
            if i == len(waves) - 1:
                log(f"fuzzing the codec, {seconds} s a target, and the command-line tool's benchmark runner in "
                    f"quick mode (debug builds, 20,000 ids), beside the last tests (log: "
                    f"{beside_last_log.relative_to(ROOT)})")
                beside_last = InBackground(
                    [[str(ROOT / "fuzz" / "run.sh"), seconds],
                     [str(project.VENV / "bin" / "python"), "-m", "bench.cli_bench", "--quick"]],
                    beside_last_log, dict(env))
                log(f"the pinned downloads and their fallbacks, against an archive on loopback; the manifest's "
                    f"reader; the tarball's install.sh against another user's directories; ulid-core and "
                    f"ulid-tool as crates; the release workflow; the tooling's imports and commands: beside the "
                    f"last tests (log: {tooling_log.relative_to(ROOT)})")
                tooling = InBackground(
                    [pytest("tests/packaging/test_debian_archive.py", "tests/packaging/test_manifest.py",
                            "tests/packaging/test_tarball_installer.py", "tests/packaging/test_crates.py",
                            "tests/packaging/test_release_workflow.py", "tests/packaging/test_tooling_imports.py",
                            "tests/packaging/test_tooling_commands.py")], tooling_log, dict(env))
            server_tests(wave)
            ahead.done[i].set()
            # a build's clusters (NAME-BUILD, gigabytes) go when its tests pass, stay when they fail
            for build in wave:
                for directory in sorted(builds.cluster_root().glob(f"*-{build}")):
                    if (directory / "PG_VERSION").is_file():
                        Cluster(build, directory.name.removesuffix(f"-{build}")).destroy()
    finally:
        ahead.stop()

    if release_checks:
        log("waiting for the release's files and their checks")
        release_checks.wait_or_fail("the release checks", 150)
        # (each installs over a build's own files, so after that build's tests)
        over_builds = ["tests/release/test_install_over_running.py", "tests/release/test_from_source.py"]
        log("a release's 13 tarball installed over a running server; the install page's commands")
        step(pytest("-rs", "-m", "not slow", *over_builds), env={**env, "ULID_RELEASE_DIST": str(release_dist)})

    beside_last.wait_or_fail("fuzzing or the command-line tool's benchmark runner", 80)
    tooling.wait_or_fail("the tooling's own checks", 150)

    # a build of the `bench` line, else one a release is made for: the benchmarks measure what users run
    bench = next((b for b in [*builds.BENCH_BUILDS, *names] if b in names and b == str(builds.major_version(b))), None)
    if bench is None:
        log(f"the benchmark runner is not run: {' '.join(names)} only has builds for the tests")
    else:
        log(f"the benchmark runner on PostgreSQL {bench}, quick mode (checks it runs; no timings are judged)")
        step([str(project.VENV / "bin" / "python"), "-m", "bench.run", "--quick", "--build", bench],
             stdout=subprocess.DEVNULL)
    log(f"all tests passed on PostgreSQL {' '.join(names)} in {round(time.monotonic() - started)} s")


def main(names: list[str], prepare_only: str | None = None) -> None:
    """The run on NAMES (else ULID_BUILDS', else every build); PREPARE_ONLY (the lint builds, LINT,...):
    only the builds made ready, as Preparations does."""
    if prepare_only is not None:
        for build in names:
            prepare(build, build in prepare_only.split(","))
        return
    for build in names:
        builds.build_of(build)
    if os.geteuid() != 0:
        raise ToolError(f"run as root: the tests install the extension into each PostgreSQL and run the "
                        f"servers as '{pg_user()}'")
    builds.port_base()  # the ports of every cluster this run starts are safe to bind
    cargo_env.claim(ROOT)
    names = names or os.environ.get("ULID_BUILDS", "").split() or list(builds.BUILDS)
    run(names)
