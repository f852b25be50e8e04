"""Every file of a release of ulid (scripts/release), and `check`, a release's files to check (tests/release) and
throw away (scripts/release-check): docs/development.md, "Releases" (how a release is cut, and which DIR it empties
or refuses) and "Running the tests" (the files `check` makes without --all).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from ulidtools import cargo_env, debian_package, project, sign
from ulidtools.base import ROOT, log, sha256_of
from ulidtools.cargo_env import BuildError
from ulidtools.debian_package import apt_index
from ulidtools.package import Artifact

VALID_DAYS, MARKER = sign.VALID_DAYS, sign.MARKER
# the files `check` makes without --all: those scripts/test installs (testrun.py)
CHECKED = "13/amd64,15/amd64"


def sha256sums(out: Path) -> None:
    """SHA256SUMS in sha256sum's format, in one order whatever the locale."""
    names = sorted(p.name for p in out.glob("*.tar.gz")) + sorted(p.name for p in out.glob("*.deb")) \
        + ["ulid_portable.sql"]
    (out / "SHA256SUMS").write_text("".join(f"{sha256_of(out / n)}  {n}\n" for n in names))


def pairs_of(only: str | None) -> list[tuple[str, str]]:
    majors = cargo_env.release_builds()
    if not only:
        return [(major, arch) for arch in cargo_env.ARCHES for major in majors]
    pairs = []
    for pair in only.split(","):
        major, _, arch = pair.partition("/")
        if major not in majors:
            raise BuildError(f"{pair}: PostgreSQL {major} is not a release build ({' '.join(majors)})")
        cargo_env.rust_target(arch)
        pairs.append((major, arch))
    return pairs


def out_directory(out: Path) -> bool:
    """Whether OUT, which scripts/release made (MARKER), must be emptied; any other that is not empty is refused."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise BuildError(f"--out {out}: not a directory (a release is written into a directory of its own)")
    if not out.exists() or not any(out.iterdir()):
        return False
    if not (out / MARKER).is_file():
        raise BuildError(f"--out {out}: the directory holds files that scripts/release did not make (it has no "
                         f"{MARKER}), and it empties the directory it writes into: name a new or empty directory")
    return True


def make(out: Path, only: str | None, key: sign.Key) -> None:
    # the directory, the pairs and the key are refused before anything is built
    emptied = out_directory(out)
    # only the pinned inputs, never what an index of Debian's archive lists in their place (debian_archive)
    os.environ["ULID_PINNED_ONLY"] = "1"
    pairs = pairs_of(only)
    sign.check(key)
    cargo_env.claim(ROOT)
    started = time.monotonic()
    version = project.VERSION
    if not re.search(rf"^## \[{re.escape(version)}\] - [0-9]", (ROOT / "CHANGELOG.md").read_text(), re.M):
        log(f"note: CHANGELOG.md has no dated entry for {version}: these are not the files of a release")
    if subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                      capture_output=True, text=True).stdout.strip():
        log("note: the checkout has uncommitted changes: these files are not those of its commit")
    epoch = debian_package.source_date_epoch()
    os.environ["SOURCE_DATE_EPOCH"] = str(epoch)
    log(f"every file dated {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(epoch))} UTC (SOURCE_DATE_EPOCH={epoch})")

    arches = list(dict.fromkeys(arch for _, arch in pairs))
    if emptied:
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("made by scripts/release, which may empty this directory to write a release again\n")
    for major, arch in pairs:
        log(f"ulid {version} for PostgreSQL {major} on {arch}")
        Artifact(major, arch, "release").make(out)
    for arch in arches:
        log(f"ulid-tool {project.CLI_VERSION} on {arch}")
        Artifact("cli", arch, "release").make(out)

    # the portable layer as it is in the tree (its version() is this release's)
    portable = out / "ulid_portable.sql"
    shutil.copyfile(ROOT / "portable" / "ulid_portable.sql", portable)
    portable.chmod(0o644)
    os.utime(portable, (epoch, epoch))
    sha256sums(out)

    repo = out / "apt"
    (repo / "pool" / "main").mkdir(parents=True)
    for package in sorted(out.glob("*.deb")):
        shutil.copy2(package, repo / "pool" / "main" / package.name)
    apt_index(repo, "stable", arches, date=epoch, valid_days=VALID_DAYS)
    sign.release(key, out)
    count = len(list(out.glob("*.tar.gz"))) + len(list(out.glob("*.deb")))
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    log(f"release {version}: {count} files in {shown} in {round(time.monotonic() - started)} s")


def check(out: Path, every: bool = False) -> None:
    out_directory(out)  # refused before a key is made
    with sign.throwaway_key() as key:
        make(out, None if every else CHECKED, key)
