"""The project's own facts: the extension's and the command-line tool's versions, the pgrx they build with
and any `[package]` field of a crate (from the Cargo.toml files), the released versions (CHANGELOG.md) and
their commits (sql/RELEASES)."""

from __future__ import annotations

import os
import re
import tomllib
from functools import cache
from pathlib import Path

from ulidtools.base import ROOT

CARGO_TOML = ROOT / "Cargo.toml"


@cache
def cargo(path: Path = CARGO_TOML) -> dict:
    return tomllib.loads(path.read_text())


def field(name: str, path: Path = CARGO_TOML) -> str:
    """A `[package]` field of a crate (the extension's unless told), or ""."""
    value = cargo(path)["package"].get(name, "")
    return value if isinstance(value, str) else ""


VERSION = field("version")
# released versions, newest first: CHANGELOG.md's dated `## [0.4.0] - 2026-11-27`
RELEASED = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", (ROOT / "CHANGELOG.md").read_text(), re.M)
# each release's commit, from sql/RELEASES (tags may not travel with a clone)
RELEASE_COMMITS = dict(line.split()[:2] for line in (ROOT / "sql" / "RELEASES").read_text().splitlines()
                       if line.strip() and not line.startswith("#"))
CURRENT_RELEASE = RELEASED[0]  # the release users install and the pages show: the newest released version
CLI_VERSION = field("version", ROOT / "crates" / "ulid-tool" / "Cargo.toml")
VENV = Path(os.environ.get("ULID_VENV") or ROOT / "target" / "venv")
PGRX = cargo()["dependencies"]["pgrx"].removeprefix("=")  # `pgrx = "=0.19.4"` in Cargo.toml
CRATES = tuple(field("name", ROOT / member / "Cargo.toml") for member in cargo()["workspace"]["members"])
