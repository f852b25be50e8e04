"""The tooling's commands, `python3 -m ulidtools COMMAND` (the scripts in
scripts/ run them): each declared once with argparse; `--help` of every
one answers, with the docstring of the module that does it; a command
line that cannot be read stops with status 2, the usage and the error
line; what stops the work itself, with status 1 and the error line; the
scripts that run a command are one line that passes their arguments on.

Runs once (tools/ulidtools/testrun.py names this file): seconds.
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess

import pytest

from harness.pgcluster import ROOT
from ulidtools.__main__ import parser

pytestmark = pytest.mark.once_per_run

# every command the scripts, the tests and the release workflow run
COMMANDS = {"cargo-field", "shell", "tables", "waves", "package-deb",
            "package", "release", "release-check", "sign-release",
            "test", "setup", "setup-go", "fetch-debian", "pin-system",
            "debian-system", "install", "build-dir", "cluster-port", "cluster", "build-release"}
# the scripts that are a command of it, and the command
SCRIPTS = {"fetch-debian": "fetch-debian", "pin-system": "pin-system", "setup": "setup", "setup-go": "setup-go",
           "test": "test", "release": "release", "release-check": "release-check", "sign-release": "sign-release",
           "package": "package", "package-deb": "package-deb", "debian-system": "debian-system",
           "install": "install", "cluster": "cluster", "build-release": "build-release"}
ERROR = "\033[1;31merror:\033[0m "


def ulidtools(*args: str) -> subprocess.CompletedProcess:
    """The command as scripts/lib.sh runs it."""
    return subprocess.run(["python3", "-S", "-m", "ulidtools", *args], cwd=ROOT / "tools", capture_output=True,
                          text=True, timeout=120)


def subcommands(of: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found = [action for action in of._actions if isinstance(action, argparse._SubParsersAction)]
    return dict(found[0].choices) if found else {}


def test_every_command_is_declared():
    assert set(subcommands(parser())) == COMMANDS


def helps() -> list[tuple[str, ...]]:
    """Every command, and every action of a command that has them."""
    found = []
    for name, command in sorted(subcommands(parser()).items()):
        found.append((name,))
        found += [(name, action) for action in sorted(subcommands(command))]
    return found


@pytest.mark.parametrize("words", helps(), ids=" ".join)
def test_help_of_every_command(words):
    done = ulidtools(*words, "--help")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith(f"usage: python3 -m ulidtools {' '.join(words)} "), done.stdout
    module = subcommands(parser())[words[0]].module
    if module and len(words) == 1:
        # the module's own account follows the options
        source = (ROOT / "tools" / "ulidtools" / f"{module}.py").read_text()
        first = ast.get_docstring(ast.parse(source)).splitlines()[0]
        assert f"tools/ulidtools/{module}.py:\n\n{first}\n" in done.stdout


def test_help_lists_every_command():
    done = ulidtools("--help")
    assert done.returncode == 0
    listed = done.stdout.split("commands:", 1)[1]
    for name in COMMANDS:
        assert f"\n    {name} " in listed or f"\n    {name}\n" in listed, name


@pytest.mark.parametrize("args, message", [
    (["no-such-command"], "python3 -m ulidtools: argument COMMAND: invalid choice: 'no-such-command'"),
    ([], "python3 -m ulidtools: the following arguments are required: COMMAND"),
    (["waves"], "python3 -m ulidtools waves: the following arguments are required: BUILD"),
    (["debian-system", "-s"], "python3 -m ulidtools debian-system: argument -s: expected one argument"),
    (["debian-system", "clone"], "python3 -m ulidtools debian-system clone: the following arguments are required: "
                                 "DIR"),
    (["release", "--sign", "key.asc", "--sign-key", "ABCD"],
     "python3 -m ulidtools release: argument --sign-key: not allowed with argument --sign"),
    (["release-check", "--sign", "key.asc"], "python3 -m ulidtools: unrecognized arguments: --sign key.asc"),
    (["test", "--no-such-option"], "python3 -m ulidtools: unrecognized arguments: --no-such-option"),
    (["fetch-debian"], "python3 -m ulidtools fetch-debian: name the directory to download into"),
    (["cluster", "start", "15", "x", "fsync"], "python3 -m ulidtools cluster start: fsync is not SETTING=VALUE"),
    (["cluster", "stop", "15", "x", "slowly"], "python3 -m ulidtools cluster stop: argument MODE: invalid choice: "
                                               "'slowly'"),
    (["cluster-port", "15", "one"], "python3 -m ulidtools cluster-port: argument SLOT: invalid int value: 'one'"),
])
def test_a_command_line_that_cannot_be_read(args, message):
    done = ulidtools(*args)
    assert done.returncode == 2, done
    assert done.stdout == ""
    assert done.stderr.startswith("usage: python3 -m ulidtools"), done.stderr
    assert f"{ERROR}{message}" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("args, message", [
    (["debian-system", "-s", "no-such-system", "root"], "no Debian system no-such-system"),
    (["fetch-debian", "--check", "no-such-package"], "inputs.manifest pins no no-such-package"),
    (["release-check", "--out", "/dev/null"], "--out /dev/null: not a directory"),
    (["sign-release", "--verify"], "--verify DIR takes a directory and nothing else"),
    (["sign-release", "--fingerprint", "--check"], "--fingerprint takes nothing else"),
    (["cluster-port", "15", "999"], "cluster slot 999 is not below"),
    (["cluster", "env", "15", "no-such-cluster"], "there is no cluster no-such-cluster of PostgreSQL 15"),
    (["build-dir", "12", "bindir"], "PostgreSQL 12 is not a build inputs.manifest declares"),
    (["build-release", "0.0.9", "15"], "sql/RELEASES has no version 0.0.9"),
])
def test_what_stops_a_command_is_the_error_line_and_status_1(args, message):
    done = ulidtools(*args)
    assert (done.returncode, done.stdout) == (1, ""), done
    # one line, the error line
    assert done.stderr.startswith(f"{ERROR}{message}") and done.stderr.count("\n") == 1, done.stderr


def test_a_command_run_inside_keeps_its_own_options():
    """What follows COMMAND is the command's, options (-c, -h) too."""
    args = parser().parse_args(["debian-system", "-s", "bookworm", "-r", "/copy", "run", "sh", "-c", "ls -h"])
    assert (args.system, args.root, args.action, args.program, args.arguments) == \
        ("bookworm", "/copy", "run", "sh", ["-c", "ls -h"])
    args = parser().parse_args(["test", "--prepare", "13,16", "15", "16"])
    assert (args.prepare, args.builds) == ("13,16", ["15", "16"])


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_script_is_a_line_that_runs_its_command(script):
    lines = [line for line in (ROOT / "scripts" / script).read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert lines == ['source "$(dirname "$0")/lib.sh"', f'ulidtools {SCRIPTS[script]} "$@"'], lines
    assert SCRIPTS[script] in COMMANDS


def test_a_cluster_starts_with_its_slot_and_settings_as_scripts_citus_gives_them():
    """`--slot` before the build, then the settings (scripts/citus starts
    its nodes so)."""
    args = parser().parse_args(["cluster", "start", "--slot", "20", "15", "citus-coord",
                                "shared_preload_libraries=citus,ulid", "wal_level=logical"])
    assert (args.slot, args.build, args.name, args.settings) == \
        (20, "15", "citus-coord", ["shared_preload_libraries=citus,ulid", "wal_level=logical"])
    with open(ROOT / "scripts" / "citus") as script:
        starts = [line.split() for line in script if "scripts/cluster\" start" in line]
    assert starts and all(words[2:4] == ["--slot", "$((20"] for words in starts), starts


def test_a_staged_extension_is_kept_only_while_what_made_it_is_the_same(tmp_path, monkeypatch):
    """package._fingerprint, which lets an install or a package reuse a
    stage without the build lock: the same for the same files and settings,
    another for a changed, added or untracked file of the sources, another
    pg_config or another cargo setting."""
    from ulidtools import package

    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "lib.rs").write_text("fn a() {}\n")
    (repo / "README.md").write_text("not a source\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
    config = tmp_path / "pg_config"
    config.write_text("#!/bin/sh\n")
    monkeypatch.setattr(package, "ROOT", repo)
    env = {"PATH": os.environ["PATH"]}
    command = ["cargo", "pgrx", "package"]
    first = package._fingerprint(config, env, command)
    assert first and package._fingerprint(config, env, command) == first
    (repo / "README.md").write_text("still not a source\n")
    assert package._fingerprint(config, env, command) == first
    (repo / "src" / "lib.rs").write_text("fn b() {}\n")
    changed = package._fingerprint(config, env, command)
    assert changed != first
    (repo / "src" / "new.rs").write_text("fn c() {}\n")
    added = package._fingerprint(config, env, command)
    assert added not in (first, changed)
    assert package._fingerprint(config, {**env, "CARGO_PROFILE_DEV_DEBUG": "0"}, command) != added
    other = tmp_path / "other_pg_config"
    other.write_text("#!/bin/sh\n")
    assert package._fingerprint(other, env, command) != added
    monkeypatch.setattr(package, "ROOT", tmp_path / "not-a-checkout")
    (tmp_path / "not-a-checkout").mkdir()
    assert package._fingerprint(config, env, command) is None


def test_claiming_a_target_directory_forgets_only_its_own_builds_of_our_crates(tmp_path):
    """cargo_env.build_lock, when another checkout claims a target
    directory: our crates' fingerprints there go, so cargo builds them
    again from this checkout's files; a dependency's stay, and so do those
    in a target directory of its own inside it (a build's, which may be
    compiling under its own lock that very moment)."""
    from ulidtools import cargo_env

    target = tmp_path / "target"
    ours = [target / "debug/.fingerprint/ulid-0123abcd",
            target / "x86_64-unknown-linux-gnu/release/.fingerprint/ulid-0123abcd"]
    kept = [target / "debug/.fingerprint/serde-0123abcd",
            target / "build-18-assert/debug/.fingerprint/ulid-4567cdef",
            target / "debug/.fingerprint/ulid-rust-client-check-89abcdef"]
    for fingerprint in ours + kept:
        fingerprint.mkdir(parents=True)
    (target / ".rustc_info.json").write_text("{}")
    (target / "build-18-assert" / ".rustc_info.json").write_text("{}")
    with cargo_env.build_lock(tmp_path / "one", target):
        pass
    assert (target / ".checkout").read_text() == f"{tmp_path / 'one'}\n"
    assert [f for f in ours if f.exists()] == [] and all(f.is_dir() for f in kept)
    for fingerprint in ours:
        fingerprint.mkdir(parents=True)
    with cargo_env.build_lock(tmp_path / "one", target):
        pass
    assert all(f.is_dir() for f in ours + kept)
