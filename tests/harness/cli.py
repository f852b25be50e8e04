"""`ulid-tool` (crates/ulid-tool) for the tests that put it beside a server: $ULID_CLI,
which scripts/test sets, else built here with the builds' Rust in the scripts' target directory."""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path

from ulidtools import cargo_env
from ulidtools.base import ROOT


@cache
def ulid_binary() -> Path:
    given = os.environ.get("ULID_CLI")
    if given:
        return Path(given)
    target = cargo_env.cargo_target()
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), PATH=cargo_env.tool_path())
    subprocess.run(["cargo", "build", "--quiet", "-p", "ulid-tool"], cwd=ROOT, env=env, check=True)
    return target / "debug" / "ulid-tool"


def ulid(*args: str, input: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([str(ulid_binary()), *args], input=input, text=True, capture_output=True, check=check)
