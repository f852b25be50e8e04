"""Signs the files of a release that ulidtools.release made in DIR with the
release's key, and puts its public key beside them (scripts/sign-release,
whose `--help` gives its options):

    DIR/SHA256SUMS.asc            SHA256SUMS's detached signature, armored
                                  (gpg --verify SHA256SUMS.asc SHA256SUMS)
    DIR/apt/dists/stable/InRelease and Release.gpg
                                  the apt repository's index, signed
    DIR/ulid-release-key.asc      the public key, armored
    DIR/apt/ulid-archive-keyring.gpg and .asc
                                  the same key, for apt's signed-by

The key is either a file (--sign KEYFILE: an OpenPGP secret key, armored or
binary), imported into a GnuPG home made for this run, which is removed and
its agent stopped however the run ends; or a key in the user's own keyring
or agent (--sign-key KEYID: a fingerprint, key id or address, from the
GnuPG home gpg uses, GNUPGHOME or ~/.gnupg; its agent asks for a
passphrase, if any); or the release key (--release-key: the key of that
keyring whose fingerprint the repository commits in
release-key.fingerprint, and no other). Only that key's public part is
exported. What it signed is then verified against that export alone. With
--check, DIR is not needed and nothing is made: the key is only tried on
a line of text (the release does so before it builds). Without a key it
signs nothing, and says so.

--fingerprint prints the release key's fingerprint that
release-key.fingerprint commits; --verify DIR checks a signed release
against it: its public key is that key alone, and SHA256SUMS, the apt
repository's index and every file SHA256SUMS lists verify. Both fail when
no fingerprint is committed. It never builds anything: gpg and gpgv are
all it runs.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ulidtools.base import ROOT, ToolError, log

# The release key's fingerprint, committed with the code: the release
# workflow signs with this key and no other, and publishes this
# fingerprint, never one read from what it signs
FINGERPRINT_FILE = ROOT / "release-key.fingerprint"


class SignError(ToolError):
    """What stops a release from being signed."""


def committed_fingerprint(path: Path = FINGERPRINT_FILE) -> str:
    """The release key's fingerprint that PATH commits: its one line that
    is not a comment (#), 40 hexadecimal digits (spaces allowed, as gpg
    shows them). A file that commits none is an error: nothing is signed
    or published by a key that is not committed."""
    try:
        text = path.read_text()
    except OSError as error:
        raise SignError(f"no release key fingerprint committed: {path} cannot be read ({error.strerror})") from None
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise SignError(f"no release key fingerprint committed in {path.name} (docs/development.md, "
                        "\"The release key\", says how the release key is made and its fingerprint committed)")
    fingerprint = lines[0].replace(" ", "").upper()
    if len(lines) > 1 or not re.fullmatch(r"[0-9A-F]{40}", fingerprint):
        raise SignError(f"{path.name}: {lines[0] if len(lines) == 1 else 'more than one line'} is not a key's "
                        "fingerprint (40 hexadecimal digits, on a line of its own)")
    return fingerprint


@dataclass
class Key:
    """The release key: a key file, or a key of the user's keyring, or
    neither (nothing is signed); EXPECT, the fingerprint it must have."""
    keyfile: str | None = None
    keyid: str | None = None
    expect: str | None = None

    def __post_init__(self) -> None:
        if self.keyfile and self.keyid:
            raise SignError("--sign, --sign-key and --release-key: give one key, not two")


@dataclass
class Signer:
    """gpg with the key's GnuPG home (None: the user's), and the key's
    fingerprint."""
    home: str | None
    fingerprint: str = ""
    source: str = ""

    def gpg(self, *args: str, **kwargs) -> subprocess.CompletedProcess:
        home = ["--homedir", self.home] if self.home else []
        return subprocess.run(["gpg", *home, "--batch", "--quiet", *args], **kwargs)

    def sign(self, *args: str, **kwargs) -> None:
        # gpg takes the key's signing subkey, if the primary key does not sign
        if self.gpg("--local-user", self.fingerprint, "--yes", *args, **kwargs).returncode != 0:
            raise SignError(f"the key {self.fingerprint} ({self.source}) does not sign")


def _stop(signum, frame):
    raise SystemExit(128 + signum)


@contextmanager
def signer(key: Key) -> Iterator[Signer]:
    """The key made ready: a key file imported into a GnuPG home of its
    own (removed with its agent and sockets afterwards, also when a signal
    ends the run), or the user's keyring; exactly one secret key."""
    home = None
    old = {s: signal.signal(s, _stop) for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)}
    try:
        if key.keyfile:
            if not Path(key.keyfile).is_file():
                raise SignError(f"no key file {key.keyfile}")
            home = tempfile.mkdtemp()
            source = f"the key file {key.keyfile}"
        else:
            source = f"the keyring of {os.environ.get('GNUPGHOME') or Path.home() / '.gnupg'}"
        ready = Signer(home, source=source)
        if key.keyfile and ready.gpg("--import", key.keyfile, capture_output=True).returncode != 0:
            raise SignError(f"{key.keyfile}: not an OpenPGP key gpg can import")
        listed = ready.gpg("--with-colons", "--list-secret-keys", "--", *([key.keyid] if key.keyid else []),
                           capture_output=True, text=True).stdout
        lines = [line.split(":") for line in listed.splitlines()]
        secrets = sum(1 for fields in lines if fields[0] == "sec")
        if secrets != 1:
            named = f" named {key.keyid}" if key.keyid else ""
            if key.expect:
                named += f" (the release key {FINGERPRINT_FILE.name} commits)"
            raise SignError(f"{source} must hold exactly one secret key{named}, not {secrets}")
        # the primary key's fingerprint: the first fpr after sec
        after = [fields for fields in lines[[f[0] for f in lines].index("sec") + 1:] if fields[0] == "fpr"]
        ready.fingerprint = after[0][9]
        if key.expect and ready.fingerprint != key.expect:
            raise SignError(f"{source}: its key {ready.fingerprint} is not the release key {key.expect} "
                            f"({FINGERPRINT_FILE.name})")
        yield ready
    finally:
        if home:
            for what in ("--kill", "all"), ("--remove-socketdir",):
                subprocess.run(["gpgconf", "--homedir", home, *what], capture_output=True)
            shutil.rmtree(home, ignore_errors=True)
        for s, handler in old.items():
            signal.signal(s, handler)


def check(key: Key) -> None:
    """Tries the key on a line of text, before anything is built."""
    if not (key.keyfile or key.keyid):
        return
    with signer(key) as ready:
        ready.sign("--detach-sign", input=b"ulid release signing check\n", stdout=subprocess.DEVNULL)
        log(f"the release will be signed by {ready.fingerprint}")


def release(key: Key, directory: Path) -> None:
    """Signs the release in DIRECTORY, exports the key's public part, and
    verifies every signature against that export alone."""
    if not (key.keyfile or key.keyid):
        log("no key (--sign KEYFILE or --sign-key KEYID): SHA256SUMS and the apt repository are NOT signed, "
            "and no public key is exported")
        return
    repo = directory / "apt"
    dists = repo / "dists" / "stable"
    if not (directory / "SHA256SUMS").is_file() or not (dists / "Release").is_file():
        raise SignError(f"{directory} holds no release: no SHA256SUMS and apt/dists/stable/Release")
    with signer(key) as ready:
        ready.sign("--armor", "--detach-sign", "--output", str(directory / "SHA256SUMS.asc"),
                   str(directory / "SHA256SUMS"))
        ready.sign("--clearsign", "--output", str(dists / "InRelease"), str(dists / "Release"))
        ready.sign("--armor", "--detach-sign", "--output", str(dists / "Release.gpg"), str(dists / "Release"))
        for armor, name in (([], "ulid-archive-keyring.gpg"), (["--armor"], "ulid-archive-keyring.asc")):
            with open(repo / name, "wb") as out:
                ready.gpg(*armor, "--export", "--export-options", "export-minimal", ready.fingerprint,
                          stdout=out, check=True)
        shutil.copyfile(repo / "ulid-archive-keyring.asc", directory / "ulid-release-key.asc")
        # what a user checks, with nothing but the exported key
        home = ["--homedir", ready.home] if ready.home else []
        for signed in ((directory / "SHA256SUMS.asc", directory / "SHA256SUMS"), (dists / "InRelease",),
                       (dists / "Release.gpg", dists / "Release")):
            done = subprocess.run(["gpgv", *home, "--keyring", str(repo / "ulid-archive-keyring.gpg"),
                                   *map(str, signed)], capture_output=True)
            if done.returncode != 0:
                raise SignError(f"{signed[0]} does not verify with the exported key")
        log(f"SHA256SUMS and the apt repository signed by {ready.fingerprint}; its public key: "
            "ulid-release-key.asc (apt/ulid-archive-keyring.gpg for apt)")


def fingerprints_of(keyring: Path) -> list[str]:
    """The primary keys' fingerprints of a keyring or an exported key."""
    with tempfile.TemporaryDirectory() as home:
        shown = subprocess.run(["gpg", "--homedir", home, "--batch", "--with-colons", "--show-keys", str(keyring)],
                               capture_output=True, text=True)
        subprocess.run(["gpgconf", "--homedir", home, "--kill", "all"], capture_output=True)
    found, primary = [], False
    for fields in (line.split(":") for line in shown.stdout.splitlines()):
        if fields[0] in ("pub", "sub"):
            primary = fields[0] == "pub"
        elif fields[0] == "fpr" and primary:
            found.append(fields[9])
            primary = False
    return found


def verify(directory: Path, expect: str) -> None:
    """Checks a signed release in DIRECTORY against the release key EXPECT
    (a fingerprint): its public key, as a file and as apt's keyring, is
    that key alone; SHA256SUMS, InRelease and Release.gpg verify with it
    alone (gpgv); every file SHA256SUMS lists has its sha256."""
    directory = directory.absolute()
    repo = directory / "apt"
    dists = repo / "dists" / "stable"
    for exported in (directory / "ulid-release-key.asc", repo / "ulid-archive-keyring.gpg"):
        if not exported.is_file():
            raise SignError(f"{directory} is not a signed release: no {exported.relative_to(directory)}")
        found = fingerprints_of(exported)
        if found != [expect]:
            raise SignError(f"{exported.relative_to(directory)} holds the keys {' '.join(found) or '(none)'}, "
                            f"not the release key {expect} alone")
    with tempfile.TemporaryDirectory() as home:
        for signed in ((directory / "SHA256SUMS.asc", directory / "SHA256SUMS"), (dists / "InRelease",),
                       (dists / "Release.gpg", dists / "Release")):
            done = subprocess.run(["gpgv", "--homedir", home, "--keyring", str(repo / "ulid-archive-keyring.gpg"),
                                   *map(str, signed)], capture_output=True, text=True)
            if done.returncode != 0:
                raise SignError(f"{signed[0].relative_to(directory)} does not verify with the release key {expect}: "
                                + " ".join(done.stderr.split()[-12:]))
    for line in (directory / "SHA256SUMS").read_text().splitlines():
        digest, _, name = line.partition("  ")
        path = directory / name
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            raise SignError(f"{name}: not the file SHA256SUMS lists")
    log(f"{directory}: signed by the release key {expect}, and every file SHA256SUMS lists is as it says")


def main(directory: Path | None = None, keyfile: str | None = None, keyid: str | None = None,
         release_key: bool = False, checking: bool = False, verifying: bool = False,
         fingerprint: bool = False) -> None:
    """What scripts/sign-release asks: print the committed fingerprint
    (FINGERPRINT), verify the release in DIRECTORY against it (VERIFYING),
    only try a key (CHECKING), or sign the release in DIRECTORY with the
    key file, the key KEYID or the release key (RELEASE_KEY); without a
    key, sign nothing and say so."""
    if fingerprint:
        if directory or keyfile or keyid or release_key or checking or verifying:
            raise SignError("--fingerprint takes nothing else")
        print(committed_fingerprint())
        return
    if verifying:
        if directory is None or checking or keyfile or keyid or release_key:
            raise SignError("--verify DIR takes a directory and nothing else")
        verify(directory, committed_fingerprint())
        return
    expect = None
    if release_key:
        expect = keyid = committed_fingerprint()
    key = Key(keyfile, keyid, expect)
    if checking:
        check(key)
    elif not (keyfile or keyid):
        release(key, Path("."))
    elif directory is None:
        raise SignError("name the release's directory (try scripts/sign-release --help)")
    else:
        release(key, directory)
