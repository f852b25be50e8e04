"""Signs the files of a release that ulidtools.release made in DIR with the
release's key, and puts its public key beside them:

    python3 -m ulidtools sign-release [--check] [--sign KEYFILE | --sign-key KEYID] [DIR]

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
passphrase, if any). Only that key's public part is exported. What it
signed is then verified against that export alone. With --check, DIR is
not needed and nothing is made: the key is only tried on a line of text
(the release does so before it builds). Without a key it signs nothing,
and says so. scripts/sign-release is the entry point.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ulidtools.deb import log


class SignError(Exception):
    """What stops a release from being signed."""


@dataclass
class Key:
    """The release key: a key file, or a key of the user's keyring, or
    neither (nothing is signed)."""
    keyfile: str | None = None
    keyid: str | None = None

    def __post_init__(self) -> None:
        if self.keyfile and self.keyid:
            raise SignError("--sign and --sign-key: give one key, not both")


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
            raise SignError(f"{source} must hold exactly one secret key{named}, not {secrets}")
        # the primary key's fingerprint: the first fpr after sec
        after = [fields for fields in lines[[f[0] for f in lines].index("sec") + 1:] if fields[0] == "fpr"]
        ready.fingerprint = after[0][9]
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


def main(args: list[str]) -> int:
    checking, keyfile, keyid, directory = False, None, None, None
    while args:
        option, *args = args
        if option in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if option == "--check":
            checking = True
        elif option in ("--sign", "--sign-key"):
            if not args:
                raise SignError(f"{option} needs {'a key file' if option == '--sign' else 'a key id or fingerprint'}")
            value, *args = args
            keyfile, keyid = (value, keyid) if option == "--sign" else (keyfile, value)
        elif option.startswith("-"):
            raise SignError(f"unknown option {option} (try scripts/sign-release --help)")
        elif directory:
            raise SignError(f"one directory, not {directory} and {option}")
        else:
            directory = Path(option)
    key = Key(keyfile, keyid)
    if checking:
        check(key)
    elif not (keyfile or keyid):
        release(key, Path("."))
    elif directory is None:
        raise SignError("name the release's directory (try scripts/sign-release --help)")
    else:
        release(key, directory)
    return 0
