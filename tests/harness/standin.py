"""Stand-ins for other projects' extensions, for the pages and tests about moving from them to ulid (docs/migrating.md):
a control file and install script in tests/harness/NAME/ (pgx_ulid/: its script says what it is and is not)."""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from pathlib import Path

from harness.pgcluster import build_of

HERE = Path(__file__).resolve().parent


@contextmanager
def installed_standin(build: str, name: str):
    """The stand-in NAME installed into BUILD while the block runs; fails, leaving it alone, if BUILD already
    has an extension NAME (the real one)."""
    files = sorted((HERE / name).glob(f"{name}*"))
    assert any(f.suffix == ".control" for f in files), f"no stand-in {name} in {HERE / name}"
    extdir = build_of(build).extdir
    placed: list[Path] = []
    try:
        for source in files:
            target = extdir / source.name
            assert not target.exists(), f"{target} exists: an extension {name} is installed into {build}"
            shutil.copyfile(source, target)
            target.chmod(0o644)
            placed.append(target)
        yield name
    finally:
        for target in placed:
            target.unlink(missing_ok=True)
