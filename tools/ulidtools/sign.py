"""Signs the release that ulidtools.release made in DIR (scripts/sign-release), every signature verified against
that key alone, a file SHA256SUMS does not list refused: docs/development.md, "Releases", steps 4 and 5 (what is
signed and exported, SIGNATURES). A key file (--sign) is imported into a GnuPG home removed however the run ends.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ulidtools.base import ROOT, ToolError, log, sha256_of
from ulidtools.debian_package import STAMP

# the release is signed by this key only, and this fingerprint is published, never one read from what is signed
FINGERPRINT_FILE = ROOT / "release-key.fingerprint"
# left by scripts/release in a directory it made (release.MARKER)
MARKER = ".ulid-release"
SIGNATURES = ("SHA256SUMS.asc", "ulid-release-key.asc", "apt/dists/stable/InRelease", "apt/dists/stable/Release.gpg",
              "apt/ulid-archive-keyring.gpg", "apt/ulid-archive-keyring.asc")
# the files of the GitHub release besides those SHA256SUMS lists
PUBLISHED_SIGNATURES = ("SHA256SUMS", "SHA256SUMS.asc", "ulid-release-key.asc")
# the apt repository's Valid-Until, in days from the release's date (docs/development.md, "Releases", step 5)
VALID_DAYS = 365


class SignError(ToolError):
    """What stops a release from being signed."""


def committed_fingerprint(path: Path = FINGERPRINT_FILE) -> str:
    """PATH's one non-comment line, 40 hex digits (spaces allowed, as gpg shows them)."""
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
    """A key file, a key of the user's keyring, or neither (nothing is signed); EXPECT, its fingerprint."""
    keyfile: str | None = None
    keyid: str | None = None
    expect: str | None = None


@dataclass
class Signer:
    """gpg with the key's GnuPG home (None: the user's)."""
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


@contextmanager
def _gnupg_home(made: bool = True, prefix: str | None = None) -> Iterator[str | None]:
    """A GnuPG home made for this run (None unless MADE), removed with its agent and sockets however the run
    ends: SIGHUP, SIGINT and SIGTERM end the run as an exception, so that `finally` still cleans up."""
    old = {s: signal.signal(s, lambda signum, _: sys.exit(128 + signum))
           for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)}
    home = None
    try:
        home = tempfile.mkdtemp(prefix=prefix) if made else None
        yield home
    finally:
        if home:
            for what in ("--kill", "all"), ("--remove-socketdir",):
                subprocess.run(["gpgconf", "--homedir", home, *what], capture_output=True)
            shutil.rmtree(home, ignore_errors=True)
        for s, handler in old.items():
            signal.signal(s, handler)


@contextmanager
def throwaway_key() -> Iterator[Key]:
    """A key file made for this run only (release.check), used as --sign KEYFILE is."""
    with _gnupg_home(prefix="ulid-throwaway-key-") as home:
        made = Signer(home, source="a key made for this run")
        if made.gpg("--passphrase", "", "--quick-gen-key", "ulid release check <check@ulid.invalid>",
                    "ed25519", "sign", "never").returncode != 0:
            raise SignError("gpg could not make a key for this run")
        keyfile = Path(home) / "key.asc"
        with open(keyfile, "wb") as out:
            if made.gpg("--armor", "--export-secret-keys", stdout=out).returncode != 0:
                raise SignError("gpg could not export the key it made for this run")
        yield Key(str(keyfile))


@contextmanager
def signer(key: Key) -> Iterator[Signer]:
    """A key file imported into a GnuPG home of its own, or the user's keyring; exactly one secret key."""
    if key.keyfile and not Path(key.keyfile).is_file():
        raise SignError(f"no key file {key.keyfile}")
    with _gnupg_home(made=bool(key.keyfile)) as home:
        source = f"the key file {key.keyfile}" if key.keyfile else \
            f"the keyring of {os.environ.get('GNUPGHOME') or Path.home() / '.gnupg'}"
        ready = Signer(home, source=source)
        if key.keyfile and ready.gpg("--import", key.keyfile, capture_output=True).returncode != 0:
            raise SignError(f"{key.keyfile}: not an OpenPGP key gpg can import")
        listed = ready.gpg("--with-colons", "--list-secret-keys", "--", *([key.keyid] if key.keyid else []),
                           capture_output=True, text=True).stdout
        lines = [line.split(":") for line in listed.splitlines()]
        kinds = [fields[0] for fields in lines]
        if kinds.count("sec") != 1:
            named = f" named {key.keyid}" if key.keyid else ""
            if key.expect:
                named += f" (the release key {FINGERPRINT_FILE.name} commits)"
            raise SignError(f"{source} must hold exactly one secret key{named}, not {kinds.count('sec')}")
        # the primary key's fingerprint: the first fpr after sec
        ready.fingerprint = lines[kinds.index("fpr", kinds.index("sec"))][9]
        if key.expect and ready.fingerprint != key.expect:
            raise SignError(f"{source}: its key {ready.fingerprint} is not the release key {key.expect} "
                            f"({FINGERPRINT_FILE.name})")
        yield ready


def stanzas(text: str) -> Iterator[dict[str, str]]:
    """The stanzas of a Release, Packages or Sources index, {field: value}."""
    fields, last = {}, None
    for line in text.splitlines() + [""]:
        if not line.strip():
            if fields:
                yield fields
            fields, last = {}, None
        elif line[0] in " \t" and last:
            fields[last] += "\n" + line.strip()
        elif ":" in line:
            last, _, value = line.partition(":")
            fields[last] = value.strip()


def apt_files(repo: Path) -> set[str]:
    """The files of the apt repository REPO, relative to it, each checked against the size and sha256 listed."""
    dists = repo / "dists" / "stable"
    release = dists / "Release"
    if release.is_symlink() or not release.is_file():
        raise SignError(f"{repo}: no apt repository (no dists/stable/Release)")
    files = {"dists/stable/Release"}
    stanza = next(stanzas(release.read_text()), {})
    for line in filter(str.strip, stanza.get("SHA256", "").splitlines()):
        parts = line.split()
        if len(parts) != 3 or not re.fullmatch(r"[0-9a-f]{64}", parts[0]) or not parts[1].isdigit() \
                or ".." in parts[2].split("/") or parts[2].startswith("/"):
            raise SignError(f"apt/dists/stable/Release: {line!r} is not an index's sha256, size and path")
        digest, size, name = parts
        index = dists / name
        if index.is_symlink() or not index.is_file() or index.stat().st_size != int(size) \
                or sha256_of(index) != digest:
            raise SignError(f"apt/dists/stable/{name}: not the index that the Release lists")
        files.add(f"dists/stable/{name}")
        if name.endswith("/Packages") or name.endswith("/Packages.gz"):
            data = index.read_bytes()
            text = (gzip.decompress(data) if name.endswith(".gz") else data).decode("utf-8", "replace")
            for package in stanzas(text):
                filename = package.get("Filename", "")
                if not filename.startswith("pool/") or ".." in filename.split("/"):
                    raise SignError(f"apt/dists/stable/{name}: {filename!r} is not a file of the pool")
                path = repo / filename
                if path.is_symlink() or not path.is_file() or str(path.stat().st_size) != package.get("Size") \
                        or sha256_of(path) != package.get("SHA256"):
                    raise SignError(f"apt/{filename}: not the package that apt/dists/stable/{name} lists")
                files.add(filename)
    return files


def check_files(directory: Path, signed: bool, hashes: bool = True) -> dict[str, str]:
    """Refuses a file or symbolic link of DIRECTORY other than what SHA256SUMS lists (with HASHES, at that
    sha256), SHA256SUMS, MARKER, the apt repository of the listed packages and, if SIGNED, SIGNATURES."""
    directory = directory.absolute()
    sums = directory / "SHA256SUMS"
    if not sums.is_file() or sums.is_symlink():
        raise SignError(f"{directory} holds no release: no SHA256SUMS")
    names: dict[str, str] = {}
    for number, line in enumerate(sums.read_text().splitlines(), 1):
        # a name: a file of the directory itself, not a path
        matched = re.fullmatch(r"([0-9a-f]{64})  ([A-Za-z0-9][A-Za-z0-9._+~-]*)", line)
        if not matched:
            raise SignError(f"SHA256SUMS line {number}: {line!r} is not a sha256 and a file's name")
        digest, name = matched.groups()
        if name in names or name in PUBLISHED_SIGNATURES or name == MARKER:
            raise SignError(f"SHA256SUMS line {number}: {name} is listed twice, or is not a file of the release")
        names[name] = digest
    if not names:
        raise SignError(f"{directory}: SHA256SUMS lists no file")
    for name, digest in names.items() if hashes else ():
        path = directory / name
        if path.is_symlink() or not path.is_file() or sha256_of(path) != digest:
            raise SignError(f"{name}: not the file SHA256SUMS lists")
    expected = set(names) | {"SHA256SUMS", MARKER} | (set(SIGNATURES) if signed else set())
    repo = directory / "apt"
    for path in apt_files(repo):
        expected.add(f"apt/{path}")
        if path.startswith("pool/"):
            if names.get(path.rsplit("/", 1)[-1]) != sha256_of(repo / path):
                raise SignError(f"apt/{path}: not a package that SHA256SUMS lists")
    # (a link is refused, never followed)
    unlisted = [path.relative_to(directory).as_posix() for path in directory.rglob("*")
                if path.is_symlink() or not (path.is_dir() or path.relative_to(directory).as_posix() in expected)]
    if unlisted:
        raise SignError(f"{directory}: {', '.join(sorted(unlisted))}: not a file that SHA256SUMS lists (nor "
                        f"SHA256SUMS, the apt repository's index{', a signature' if signed else ''}): refused")
    return names


def release_files(directory: Path) -> list[Path]:
    """The GitHub release's files: what SHA256SUMS lists, in order, then PUBLISHED_SIGNATURES."""
    names = check_files(directory, signed=True)
    for name in PUBLISHED_SIGNATURES:
        if not (directory / name).is_file():
            raise SignError(f"{directory} is not a signed release: no {name}")
    return [directory / name for name in [*names, *PUBLISHED_SIGNATURES]]


def check(key: Key) -> None:
    if not (key.keyfile or key.keyid):
        return
    with signer(key) as ready:
        ready.sign("--detach-sign", input=b"ulid release signing check\n", stdout=subprocess.DEVNULL)
        log(f"the release will be signed by {ready.fingerprint}")


def release(key: Key, directory: Path) -> None:
    if not (key.keyfile or key.keyid):
        log("no key (--sign KEYFILE or --sign-key KEYID): SHA256SUMS and the apt repository are NOT signed, "
            "and no public key is exported")
        return
    repo = directory / "apt"
    # sha256 are checked by --only-listed before and --verify after (what is signed is SHA256SUMS, not the files)
    check_files(directory, signed=True, hashes=False)
    with signer(key) as ready:
        ready.sign("--armor", "--detach-sign", "--output", str(directory / "SHA256SUMS.asc"),
                   str(directory / "SHA256SUMS"))
        sign_apt(ready, repo)
        for armor, name in (([], "ulid-archive-keyring.gpg"), (["--armor"], "ulid-archive-keyring.asc")):
            with open(repo / name, "wb") as out:
                ready.gpg(*armor, "--export", "--export-options", "export-minimal", ready.fingerprint,
                          stdout=out, check=True)
        shutil.copyfile(repo / "ulid-archive-keyring.asc", directory / "ulid-release-key.asc")
        verify_signed(repo, ready.home, (directory / "SHA256SUMS.asc", directory / "SHA256SUMS"))
        log(f"SHA256SUMS and the apt repository signed by {ready.fingerprint}; its public key: "
            "ulid-release-key.asc (apt/ulid-archive-keyring.gpg for apt)")


def sign_apt(ready: Signer, repo: Path) -> None:
    dists = repo / "dists" / "stable"
    ready.sign("--clearsign", "--output", str(dists / "InRelease"), str(dists / "Release"))
    ready.sign("--armor", "--detach-sign", "--output", str(dists / "Release.gpg"), str(dists / "Release"))


def verify_signed(repo: Path, home: str | None, *more: tuple[Path, ...], key: str = "the exported key") -> None:
    """REPO's signatures and MORE ((signature, signed file) pairs) verified with REPO's keyring alone, as users do."""
    dists = repo / "dists" / "stable"
    for signed in (*more, (dists / "InRelease",), (dists / "Release.gpg", dists / "Release")):
        done = subprocess.run(["gpgv", *(["--homedir", home] if home else []), "--keyring",
                               str(repo / "ulid-archive-keyring.gpg"), *map(str, signed)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SignError(f"{signed[0]} does not verify with {key}: " + " ".join(done.stderr.split()[-12:]))


def renew_apt(key: Key, directory: Path, days: int) -> None:
    """Signs DIRECTORY/apt again, valid DAYS days from now: only the Release's Date and Valid-Until change."""
    if not (key.keyfile or key.keyid):
        raise SignError("--renew-apt: name the key that signs (--release-key, --sign-key or --sign)")
    repo = directory.absolute() / "apt"
    release = repo / "dists" / "stable" / "Release"
    apt_files(repo)
    keyring = repo / "ulid-archive-keyring.gpg"
    if not keyring.is_file():
        raise SignError(f"{repo}: no ulid-archive-keyring.gpg, the key users gave apt")
    users = fingerprints_of(keyring)
    when = int(time.time())
    text = release.read_text()
    old = re.search(r"^Valid-Until: (.*)$", text, re.M)
    if not old or not re.search(r"^Date: .*$", text, re.M):
        raise SignError(f"{release}: no Date and Valid-Until to renew")
    text = re.sub(r"^Date: .*$", f"Date: {time.strftime(STAMP, time.gmtime(when))}", text, count=1, flags=re.M)
    until = time.strftime(STAMP, time.gmtime(when + days * 86400))
    text = re.sub(r"^Valid-Until: .*$", f"Valid-Until: {until}", text, count=1, flags=re.M)
    with signer(key) as ready:
        if users != [ready.fingerprint]:
            raise SignError(f"apt/ulid-archive-keyring.gpg holds the keys {' '.join(users) or '(none)'}, not the "
                            f"key {ready.fingerprint} alone: apt would refuse what it signs")
        release.write_text(text)
        sign_apt(ready, repo)
        verify_signed(repo, ready.home)
    log(f"{repo}: its index signed again by {ready.fingerprint}, valid until {until} (it was {old.group(1)}); "
        "its packages and their indexes as they were")


def fingerprints_of(keyring: Path) -> list[str]:
    """The primary keys' fingerprints of a keyring or an exported key."""
    with tempfile.TemporaryDirectory() as home:
        shown = subprocess.run(["gpg", "--homedir", home, "--batch", "--with-colons", "--show-keys", str(keyring)],
                               capture_output=True, text=True)
        subprocess.run(["gpgconf", "--homedir", home, "--kill", "all"], capture_output=True)
    lines = [line.split(":") for line in shown.stdout.splitlines()]
    kinds = [fields[0] for fields in lines]
    # each primary key's: the first fpr after its pub
    return [lines[kinds.index("fpr", at)][9] for at, kind in enumerate(kinds) if kind == "pub"]


def verify(directory: Path, expect: str) -> None:
    """Both exported keys are EXPECT alone, every signature verifies with it alone, and check_files passes."""
    directory = directory.absolute()
    repo = directory / "apt"
    for exported in (directory / "ulid-release-key.asc", repo / "ulid-archive-keyring.gpg"):
        if not exported.is_file():
            raise SignError(f"{directory} is not a signed release: no {exported.relative_to(directory)}")
        found = fingerprints_of(exported)
        if found != [expect]:
            raise SignError(f"{exported.relative_to(directory)} holds the keys {' '.join(found) or '(none)'}, "
                            f"not the release key {expect} alone")
    with tempfile.TemporaryDirectory() as home:
        verify_signed(repo, home, (directory / "SHA256SUMS.asc", directory / "SHA256SUMS"),
                      key=f"the release key {expect}")
    check_files(directory, signed=True)
    log(f"{directory}: signed by the release key {expect}, every file SHA256SUMS lists is as it says, and it "
        "holds nothing else")


def main(directory: Path | None = None, keyfile: str | None = None, keyid: str | None = None, release_key: bool = False,
         checking: bool = False, verifying: bool = False, fingerprint: bool = False, only_listed: bool = False,
         files: bool = False, renewing: bool = False) -> None:
    """scripts/sign-release's options (FILES: --release-files)."""
    if fingerprint:
        if any((directory, keyfile, keyid, release_key, checking, verifying, only_listed, files, renewing)):
            raise SignError("--fingerprint takes nothing else")
        print(committed_fingerprint())
        return
    asked = [option for option, on in (("--verify", verifying), ("--only-listed", only_listed),
                                       ("--release-files", files)) if on]
    if asked:
        if directory is None or checking or keyfile or keyid or release_key or renewing or len(asked) > 1:
            raise SignError(f"{asked[0]} DIR takes a directory and nothing else")
        if verifying:
            verify(directory, committed_fingerprint())
        elif only_listed:
            names = check_files(directory, signed=False)
            log(f"{directory}: {len(names)} files, each as SHA256SUMS lists it, and nothing else")
        else:
            for path in release_files(directory):
                print(path)
        return
    expect = committed_fingerprint() if release_key else None
    key = Key(keyfile, expect or keyid, expect)
    if renewing:
        if directory is None or checking:
            raise SignError("--renew-apt DIR takes a directory and a key")
        renew_apt(key, directory, VALID_DAYS)
    elif checking:
        check(key)
    elif directory is None and (key.keyfile or key.keyid):
        raise SignError("name the release's directory (try scripts/sign-release --help)")
    else:
        release(key, directory or Path("."))
