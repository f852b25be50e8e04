"""The command-line tool `ulid-tool` (crates/ulid-tool), for the tests that
put it beside a server: the binary scripts/test built (`ULID_CLI`), or one
built here with cargo into the same target directory the scripts use."""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path

from harness.pgcluster import ROOT


@cache
def ulid_binary() -> Path:
    given = os.environ.get("ULID_CLI")
    if given:
        return Path(given)
    target = Path(os.environ.get("ULID_CARGO_TARGET") or Path.home() / ".cache/ulid/target")
    # with the scripts' Rust (scripts/lib.sh: ULID_RUST_BIN)
    rust = Path(os.environ.get("ULID_TOOLS") or "/opt/ulid-tools") / "rust-web" / "bin"
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), PATH=f"{rust}:{os.environ['PATH']}")
    subprocess.run(["cargo", "build", "--quiet", "-p", "ulid-tool"], cwd=ROOT, env=env, check=True)
    return target / "debug" / "ulid-tool"


def ulid(*args: str, input: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    """Runs `ulid-tool ARGS...`, text in and out."""
    return subprocess.run([str(ulid_binary()), *args], input=input, text=True,
                          capture_output=True, check=check)
