"""The project's own facts, read from its Cargo.toml files with tomllib:
the extension's version (which its releases, packages and update scripts
carry), the released versions (CHANGELOG.md's dated sections) and the
commit each was made from (sql/RELEASES), the command-line tool's version, the pgrx it builds with, and any `[package]` field of a crate (the
Debian packages' descriptions and homepage).

    python3 -m ulidtools cargo-field FIELD [CARGO.TOML]
"""

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
    """A `[package]` field of a crate (the extension's unless told), ""
    when it has none."""
    value = cargo(path)["package"].get(name, "")
    return value if isinstance(value, str) else ""


# the extension's version: its releases', packages' and update scripts'
VERSION = field("version")
# every released version, newest first: the sections of CHANGELOG.md with a
# date (`## [0.4.0] - 2026-11-27`); a release's own commit dates its version
RELEASED = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$",
                      (ROOT / "CHANGELOG.md").read_text(), re.M)
# the commit each release was made from (tags may not travel with a clone),
# oldest first: sql/RELEASES, `VERSION COMMIT` lines; its versions are
# RELEASED's, but for this version on the commit that dates it
RELEASE_COMMITS = dict(line.split()[:2] for line in (ROOT / "sql" / "RELEASES").read_text().splitlines()
                       if line.strip() and not line.startswith("#"))
# the release users install, whose files and outputs the pages show: this
# version once it is released, the newest release while it is in development
CURRENT_RELEASE = RELEASED[0]
# the command-line tool's version (crates/ulid-tool)
CLI_VERSION = field("version", ROOT / "crates" / "ulid-tool" / "Cargo.toml")
# the tests' virtualenv (ULID_VENV), which setup makes
VENV = Path(os.environ.get("ULID_VENV") or ROOT / "target" / "venv")
# the pgrx version the extension pins (`pgrx = "=0.19.4"`)
PGRX = cargo()["dependencies"]["pgrx"].removeprefix("=")
# the names of the workspace's own crates (ulid, ulid-core, ulid-tool)
CRATES = tuple(field("name", ROOT / member / "Cargo.toml") for member in cargo()["workspace"]["members"])
