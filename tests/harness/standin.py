"""Stand-ins for other projects' extensions, for the pages and tests about
moving from them to ulid (docs/migrating.md).

A stand-in is an extension's control file and install script in
tests/harness/NAME/ (pgx_ulid/: see its script for what it is and is not).
`installed_standin` copies them into a build's extension directory for as
long as a test needs them and removes them afterwards; a build that already
has an extension of that name (the real one) is left alone, and the test
fails rather than run against it.
"""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from pathlib import Path

from harness.pgcluster import install_dirs

HERE = Path(__file__).resolve().parent


def standin_files(name: str) -> list[Path]:
    files = sorted((HERE / name).glob(f"{name}*"))
    assert any(f.suffix == ".control" for f in files), f"no stand-in {name} in {HERE / name}"
    return files


@contextmanager
def installed_standin(build: str, name: str):
    """The stand-in NAME installed into BUILD while the block runs."""
    _, extdir = install_dirs(build)
    placed: list[Path] = []
    try:
        for source in standin_files(name):
            target = extdir / source.name
            assert not target.exists(), f"{target} exists: an extension {name} is installed into {build}"
            shutil.copyfile(source, target)
            target.chmod(0o644)
            placed.append(target)
        yield name
    finally:
        for target in placed:
            target.unlink(missing_ok=True)
