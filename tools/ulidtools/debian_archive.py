"""Files of Debian's archive that inputs.manifest pins, downloaded into DIR and verified, each path printed
(scripts/fetch-debian); with --check, only checked to answer. A name takes its kind, architecture or suite where
it is ambiguous: `system:bookworm-arm64:libc6`, `debian-binary:libc6-dev:arm64`, `libpq5/experimental`. What
takes the place of a pinned file gone from the pool: docs/development.md, "Pinned inputs". ULID_DEBIAN_MIRROR
overrides apt's host, ULID_DEBIAN_KEYRING Debian's keyring; a file in DIR with the checksum is reused.
"""

from __future__ import annotations

import email.utils
import lzma
import os
import re
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import replace
from functools import cmp_to_key
from pathlib import Path

from ulidtools import manifest
from ulidtools.base import ToolError, log, run, sha256_hex, sha256_of
from ulidtools.manifest import ARCHIVE_KINDS as KINDS, DebianFile as Pin, ManifestError
from ulidtools.sign import fingerprints_of, stanzas

# ULID_MANIFEST: another manifest (the tests write their own)
MANIFEST = Path(os.environ.get("ULID_MANIFEST") or manifest.PATH)
# Debian 12's debian-archive-keyring: it has a key of every suite's InRelease the manifest names
KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")
# lagging mirrors serve these expired; any other suite's is refused, as by apt
MAY_EXPIRE = ("sid", "experimental")


class Failure(ToolError):
    pass


def downloads() -> Path:
    """The download cache (ULID_DOWNLOADS), outside the checkout so that every clone reuses it."""
    return Path(os.environ.get("ULID_DOWNLOADS") or Path.home() / ".cache" / "ulid" / "downloads")


def lookup(records, name: str) -> Pin:
    """The one pin of the manifest's RECORDS that NAME names: [KIND:]PACKAGE[:ARCH][/SUITE]."""
    kind, _, package = name.partition(":")
    if kind == "system":
        system, _, package = package.partition(":")
        kind = f"system:{system}"
    elif kind not in KINDS:
        kind, package = "", name
    package, _, suite = package.partition("/")
    found = [pin for pin in records if isinstance(pin, Pin) and pin.package == package
             and kind in ("", pin.kind) and suite in ("", pin.suite)]
    if not found:
        raise Failure(f"{MANIFEST.name} pins no {name}")
    kinds = [pin.kind for pin in found]
    if len(set(kinds)) < len(kinds):
        lines = ", ".join(str(pin.number) for pin in found)
        if len(set(kinds)) == 1 and len({pin.suite for pin in found}) == len(found):
            raise Failure(f"{MANIFEST.name} pins {name} in {len(found)} suites, lines {lines}: name one of "
                          + ", ".join(f"{pin.kind}:{package}/{pin.suite}" for pin in found))
        raise Failure(f"{MANIFEST.name} pins {name} twice, lines {lines}")
    if len(found) > 1:
        raise Failure(f"{MANIFEST.name} pins {package} as " + " and as ".join(kinds)
                      + ": name one of " + ", ".join(f"{kind}:{package}" for kind in kinds))
    return found[0]


def mirror() -> str:
    if os.environ.get("ULID_DEBIAN_MIRROR"):
        return os.environ["ULID_DEBIAN_MIRROR"].rstrip("/")
    try:
        sources = Path("/etc/apt/sources.list.d/debian.sources").read_text()
    except OSError:
        sources = ""
    match = re.search(r"^URIs:\s*(https?://[^/\s]+)", sources, re.M)
    return match.group(1) if match else "http://deb.debian.org"


def url_of(pin: Pin, path: str) -> str:
    return f"{mirror()}/{pin.archive}/{path}"


def get(url: str, what: str = "") -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            return response.read()
    except (urllib.error.URLError, OSError) as error:
        raise Failure(f"{what}{url} could not be read: {error}") from error


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=60) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def newest_first(items, version) -> list:
    """ITEMS sorted by VERSION(item), as dpkg compares versions, newest first."""
    def compare(a, b) -> int:
        if version(a) == version(b):
            return 0
        return 1 if run(["dpkg", "--compare-versions", version(a), "lt", version(b)]).returncode == 0 else -1

    return sorted(items, key=cmp_to_key(compare))


def check_signed(url: str, signed: bytes, suite: str) -> dict[str, tuple[int, str]]:
    """The files the InRelease SIGNED lists, {name: (size, sha256)}, read from the text gpgv checked."""
    ring = Path(os.environ.get("ULID_DEBIAN_KEYRING") or KEYRING).absolute()
    if not ring.is_file():
        raise Failure(f"{url}: no keyring {ring} to check it with (Debian's debian-archive-keyring)")
    with tempfile.TemporaryDirectory() as home:
        inrelease, release = Path(home) / "InRelease", Path(home) / "Release"
        inrelease.write_bytes(signed)
        checked = run(["gpgv", "--homedir", home, "--status-fd", "1", "--keyring", ring, "--output", release,
                       inrelease], capture_output=True, text=True)
        lines = [line.split() for line in checked.stdout.splitlines() if line.startswith("[GNUPG:] ")]
        status = [fields[1] for fields in lines if len(fields) > 1]
        said = " ".join(line.strip() for line in checked.stderr.splitlines()[-2:])
        if "BADSIG" in status:
            raise Failure(f"{url}: refused: a BAD signature ({said})")
        # every signature (NEWSIG) good (GOODSIG) and by a primary key of the keyring (VALIDSIG's last field): a
        # signature by a key the keyring lacks is refused even beside a good one
        signers = [fields[-1] for fields in lines if len(fields) > 2 and fields[1] == "VALIDSIG"]
        good = status.count("GOODSIG")
        if checked.returncode != 0 or not good or good != max(status.count("NEWSIG"), 1) \
                or len(signers) != good or not set(signers) <= set(fingerprints_of(ring)) or not release.is_file():
            raise Failure(f"{url}: refused: not signed by a key of {ring} alone (gpgv exited "
                          f"{checked.returncode}: {said or 'no signature'})")
        fields = next(stanzas(release.read_text("utf-8", "replace")), {})
    if suite not in (fields.get("Suite"), fields.get("Codename")):
        raise Failure(f"{url}: refused: it is the InRelease of {fields.get('Codename') or fields.get('Suite')}, "
                      f"not of {suite}")
    if fields.get("Valid-Until"):
        try:
            until = email.utils.parsedate_to_datetime(fields["Valid-Until"]).timestamp()
        except (TypeError, ValueError):
            raise Failure(f"{url}: refused: Valid-Until {fields['Valid-Until']!r} is not a date") from None
        if until < time.time():
            if suite not in MAY_EXPIRE:
                raise Failure(f"{url}: refused: expired on {fields['Valid-Until']}")
            log(f"{suite}'s InRelease expired on {fields['Valid-Until']} (its signature is good; "
                f"an expired {suite} is not refused)")
    listed = [line.split() for line in fields.get("SHA256", "").splitlines()]
    return {name: (int(size), sha256) for sha256, size, name in (p for p in listed if len(p) == 3 and p[1].isdigit())}


_released: dict[str, dict[str, tuple[int, str]]] = {}


def verified_index(archive: str, suite: str, name: str) -> str:
    """The text of the xz-compressed index NAME of a suite (main/source/Sources.xz), checked against its InRelease."""
    base = f"{mirror()}/{archive}/dists/{suite}"
    if base not in _released:
        _released[base] = check_signed(f"{base}/InRelease", get(f"{base}/InRelease"), suite)
    url = f"{base}/{name}"
    if name not in _released[base]:
        raise Failure(f"{url}: refused: {suite}'s InRelease does not list it")
    data = get(url, "the index ")
    size, sha256 = _released[base][name]
    actual = sha256_hex(data)
    if (len(data), actual) != (size, sha256):
        raise Failure(f"{url}: refused: {len(data)} bytes with sha256 {actual}, its InRelease says "
                      f"{size} bytes with sha256 {sha256}")
    try:
        return lzma.decompress(data).decode("utf-8", "replace")
    except lzma.LZMAError as error:
        raise Failure(f"the index {url} could not be read: {error}") from error


def index_candidates(pin: Pin) -> list[Pin]:
    """What the suite's index lists now for the package, newest first (as PIN's line would pin it)."""
    # the architecture ends the file name; an _all .deb is in every index
    package, _, arch = pin.package.partition(":")
    if pin.kind == "debian-source":
        index = "main/source/Sources.xz"
    else:
        arch = arch or re.sub(r"^all$", "amd64", pin.path.rsplit("_", 1)[-1].removesuffix(".deb"))
        index = f"main/binary-{arch}/Packages.xz"
    found = {}
    for fields in stanzas(verified_index(pin.archive, pin.suite, index)):
        if fields.get("Package") != package:
            continue
        if pin.kind == "debian-source":
            for line in fields.get("Checksums-Sha256", "").splitlines():
                parts = line.split()
                if len(parts) == 3 and re.search(r"\.orig\.tar\.(gz|bz2|xz)$", parts[2]):
                    upstream = fields["Version"].split(":")[-1].rsplit("-", 1)[0]
                    path = f"{fields['Directory']}/{parts[2]}"
                    found[path] = replace(pin, version=upstream, path=path, size=int(parts[1]), sha256=parts[0])
        elif fields.get("Filename") and fields.get("SHA256"):
            found[fields["Filename"]] = replace(pin, version=fields["Version"], path=fields["Filename"],
                                                size=int(fields["Size"]), sha256=fields["SHA256"])
    return newest_first(found.values(), lambda candidate: candidate.version)


def download(url: str, target: Path, size: int, sha256: str) -> str | None:
    """Downloads and verifies; None when it worked, else why it did not."""
    if target.exists() and target.stat().st_size == size and sha256_of(target) == sha256:
        return None
    part = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=120) as response, part.open("wb") as out:
            while block := response.read(1 << 20):
                out.write(block)
    except (urllib.error.URLError, OSError) as error:
        part.unlink(missing_ok=True)
        return f"HTTP {error.code}" if isinstance(error, urllib.error.HTTPError) else f"failed: {error}"
    actual_size, actual_sha = part.stat().st_size, sha256_of(part)
    if actual_size != size or actual_sha != sha256:
        part.unlink()
        return f"refused: {actual_size} bytes with sha256 {actual_sha}, expected {size} bytes with sha256 {sha256}"
    part.replace(target)
    return None


def first_taken(pin: Pin, attempt, downloading: bool) -> Pin:
    """PIN when ATTEMPT (which says why it failed, or None) takes its file; else, unless only pinned files may be
    used, the first that the suite's index lists and ATTEMPT takes."""
    why = attempt(pin)
    if why is None:
        return pin
    tried = [f"{url_of(pin, pin.path)}: {why}"]
    change = f"\nChange {MANIFEST.name} line {pin.number}: {pin.text}"
    only = ("in a release (ULID_PINNED_ONLY=1)" if os.environ.get("ULID_PINNED_ONLY") == "1" else
            "under CI (CI=true)" if os.environ.get("CI", "").lower() in ("true", "1") else "")
    if only:
        raise Failure(f"{pin.package}: the pinned file cannot be had, and {only} only pinned files are "
                      "used:\n  " + "\n  ".join(tried) + change + "\n(scripts/fetch-debian run outside CI names "
                      "the version the suite's index offers, verified, and the line that pins it)")
    if downloading:
        log(f"{pin.package}: the pinned file is not to be had ({why}); trying what {pin.suite}'s index lists")
    try:
        candidates = index_candidates(pin)
    except Failure as error:
        tried.append(str(error))
        candidates = []
    for candidate in candidates:
        if (candidate.path, candidate.sha256) == (pin.path, pin.sha256):
            continue  # the pinned file, tried above
        why = attempt(candidate)
        if why is None:
            return candidate
        tried.append(f"{url_of(pin, candidate.path)}: {why}")
    nothing = "nothing could be downloaded" if downloading else "nothing to download"
    raise Failure(f"{pin.package}: {nothing}. Tried:\n  " + "\n  ".join(tried) + change)


def fetch(pin: Pin, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)

    def attempt(file: Pin) -> str | None:
        return download(url_of(pin, file.path), directory / Path(file.path).name, file.size, file.sha256)

    got = first_taken(pin, attempt, True)
    if got is pin:
        log(f"{pin.package} {pin.version}: the pinned {pin.path} (sha256 {pin.sha256[:16]}…, verified)")
    else:
        log(f"{pin.package} {got.version}: NOT THE PINNED VERSION; {got.path} (sha256 {got.sha256[:16]}…, "
            f"verified against the index that {pin.suite}'s signed InRelease lists). To pin it, change "
            f"{MANIFEST.name} line {pin.number} to: {pin.kind.replace(':', ' ')} {pin.archive} {pin.suite} "
            f"{pin.package} {got.version} {got.path} {got.size} {got.sha256}")
    return directory / Path(got.path).name


def check(pin: Pin) -> None:
    def attempt(file: Pin) -> str | None:
        return None if answers(url_of(pin, file.path)) else "no answer"

    got = first_taken(pin, attempt, False)
    if got is not pin:
        log(f"{pin.package}: the pinned file is gone; {got.version} from the index answers")


def fetch_named(names: list[str], directory: Path | None, each=None) -> list[Path]:
    """The files NAMES name, downloaded into DIRECTORY (EACH called on each path), or with no DIRECTORY checked."""
    try:
        records = manifest.read(MANIFEST)
    except ManifestError as error:  # (a Failure, which bench/pg_uuidv7 takes for "not available")
        raise Failure(str(error)) from None
    wanted = [lookup(records, name) for name in names]
    if directory:
        directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for pin in wanted:
        if directory is None:
            check(pin)
        else:
            paths.append(fetch(pin, directory))
            if each:
                each(paths[-1])
    return paths
