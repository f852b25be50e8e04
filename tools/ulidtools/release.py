"""Every file of a release of ulid, into dist/ unless --out says
(scripts/release; `--help` gives its options):

- for every release build's major version (never a test-only build such as
  18-assert) and both architectures: ulid-VERSION-pgMAJOR-linux-x86_64.tar.gz
  / -aarch64.tar.gz and postgresql-MAJOR-ulid_VERSION-1_amd64.deb / _arm64.deb;
- the command-line tool's ulid-tool-VERSION-linux-x86_64.tar.gz /
  -aarch64.tar.gz and ulid-tool_VERSION-1_amd64.deb / _arm64.deb;
- ulid_portable.sql, the portable layer (docs/portable.md), and SHA256SUMS;
- apt/, a Debian repository of the .deb files (suite stable, component
  main), valid for VALID_DAYS days from the release's date, then refused
  by apt until a newer release or scripts/sign-release --renew-apt;
- with a key (--sign or --sign-key), by sign: SHA256SUMS.asc, the signed
  apt index and the key's public part; without one, the log says nothing
  is signed.

DIR is made, or used when empty; one scripts/release made before (it
leaves a file .ulid-release in it) is emptied first; any other directory
that holds something is refused. Only the pinned inputs are used
(ULID_PINNED_ONLY=1, debian_archive). Every library and program is linked
against glibc 2.28's symbols and refused if it asks for a newer one, and
the files are the same bytes whichever machine makes them from one commit
(the commit's time, or SOURCE_DATE_EPOCH; root as owner; fixed modes; no
path of the machine: cargo_env.release_env). How a release is cut:
docs/development.md.

`check` (scripts/release-check) makes a release's files to check
(tests/release) and throw away, into target/release-check unless --out
says, signed by a key made for this run only (sign.throwaway_key). Without
--all, only the files CI installs (CHECKED), for amd64: 13 (its tarball
goes into Debian 11), 15 (its package goes into Debian 12 from the apt
repository) and the command-line tool; the rest (14's tarball goes into
the 14 build; arm64, in Debian 12 for arm64 through qemu) is for
scripts/test-release (--all).
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

# How long a release's apt repository is valid (Valid-Until, from the
# release's date): apt refuses an older index, so that a mirror or cache
# cannot hold users back on an old release unnoticed. A year, as releases
# are rarer than a distribution's re-signing; scripts/sign-release
# --renew-apt extends it (docs/install.md, "The apt repository").
VALID_DAYS = 365
# left in a directory scripts/release made: the only kind it empties
MARKER = sign.MARKER
# the files `check` makes without --all: those scripts/test installs (testrun.py)
CHECKED = "13/amd64,15/amd64"


def sha256sums(out: Path) -> None:
    """SHA256SUMS of the tarballs, the packages and the portable layer, in
    sha256sum's format and in one order, whatever the locale."""
    names = sorted(p.name for p in out.glob("*.tar.gz")) + sorted(p.name for p in out.glob("*.deb")) \
        + ["ulid_portable.sql"]
    (out / "SHA256SUMS").write_text("".join(f"{sha256_of(out / n)}  {n}\n" for n in names))


def pairs_of(only: str | None) -> list[tuple[str, str]]:
    """What to make: (major, architecture) pairs, every one unless ONLY
    names some (MAJOR/ARCH,...)."""
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
    """Whether OUT must be emptied before a release is written into it:
    False when it is missing or empty, True when scripts/release made it
    (MARKER). Anything else is refused: a path that is not a directory,
    and a directory that holds files scripts/release did not make."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise BuildError(f"--out {out}: not a directory (a release is written into a directory of its own)")
    if not out.exists() or not any(out.iterdir()):
        return False
    if not (out / MARKER).is_file():
        raise BuildError(f"--out {out}: the directory holds files that scripts/release did not make (it has no "
                         f"{MARKER}), and it empties the directory it writes into: name a new or empty directory")
    return True


def make(out: Path, only: str | None, key: sign.Key) -> None:
    # the directory is refused before anything is built
    emptied = out_directory(out)
    # only the pinned inputs, never what an index of Debian's archive lists
    # in their place (debian_archive)
    os.environ["ULID_PINNED_ONLY"] = "1"
    pairs = pairs_of(only)
    # the key is tried before anything is built
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
    log(f"every file dated {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(epoch))} UTC "
        f"(SOURCE_DATE_EPOCH={epoch})")

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

    # The portable layer, the file as it is in the tree (its version() is
    # this release's), for servers that cannot load the extension
    portable = out / "ulid_portable.sql"
    shutil.copyfile(ROOT / "portable" / "ulid_portable.sql", portable)
    portable.chmod(0o644)
    os.utime(portable, (epoch, epoch))
    sha256sums(out)

    # the apt repository: the same .deb files, indexed for apt
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
    """A release's files to check and throw away, into OUT: those CI
    installs (CHECKED), or EVERY file of a release, signed by a key made
    for this run and removed with it (sign.throwaway_key)."""
    # the directory is refused before a key is made
    out_directory(out)
    with sign.throwaway_key() as key:
        make(out, None if every else CHECKED, key)
