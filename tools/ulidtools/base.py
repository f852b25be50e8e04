"""The ground floor of the tooling, importing nothing of the package: the checkout and the install
directories, the progress and error lines (as scripts/lib.sh's log and die print them), running commands,
checksums, and ToolError, which `python3 -m ulidtools` prints as the error line (status 1)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout (this file is tools/ulidtools/base.py)


class ToolError(Exception):
    """What stops a command; a module has a subclass of its own where a caller tells its errors apart."""


def pg_home() -> Path:
    return Path(os.environ.get("ULID_PG_HOME") or "/opt/ulid-postgres")


def tools() -> Path:
    return Path(os.environ.get("ULID_TOOLS") or "/opt/ulid-tools")


def log(message: str) -> None:
    print(f"\033[1;34m==>\033[0m {time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


def error(message: str) -> None:
    print(f"\033[1;31merror:\033[0m {message}", file=sys.stderr, flush=True)


def run(command: list, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in command], **kwargs)


def output(command: list, check: bool = False) -> str:
    return run(command, capture_output=True, text=True, check=check).stdout.strip()


def as_root(command: list, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    return run(([] if os.geteuid() == 0 else ["sudo"]) + list(command), check=check, **kwargs)


def sha256_of(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def sha256_hex(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def stamp_is(path: Path, stamp: str) -> bool:
    """Whether the file PATH, a stamp of what made something, says STAMP."""
    try:
        return path.read_text().strip() == stamp
    except OSError:
        return False


def executable(path: Path) -> bool:
    return os.access(path, os.X_OK) and path.is_file()


def unzip(archive: Path, directory: Path, *members: str) -> None:
    """By unzip, which keeps modes."""
    run(["unzip", "-q", archive, *members, "-d", directory], check=True)
