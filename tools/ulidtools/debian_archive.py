"""Files of Debian's archive that inputs.manifest pins, downloaded into DIR
and verified, each path printed (scripts/fetch-debian); with --check, only
checked to answer.

PACKAGE names a `debian-source`, `debian-binary`, `debian-system` or
`system` line: an upstream tarball or a .deb. Where a name is ambiguous, say
KIND:PACKAGE (`system:bookworm-arm64:libc6`), PACKAGE:ARCH
(`debian-binary:libc6-dev:arm64`) or PACKAGE/SUITE (`libpq5/experimental`).

The pinned file (pool path, size, sha256) is tried first. Only when it is
gone from the pool, which moves apart from the index, are the versions the
suite's index lists tried, newest first, each checked against the index;
the index is trusted only as apt would (verified_index): its InRelease
signed by keys of Debian's archive keyring alone, naming the suite, not
expired (except sid and experimental, which lagging mirrors serve late).
A file whose checksum differs is never used; when nothing downloads, the
error names every URL tried and the manifest line to change. Under CI
(CI=true) and in a release (ULID_PINNED_ONLY=1) there is no fallback.

The host is apt's (ULID_DEBIAN_MIRROR overrides it), the keyring
/usr/share/keyrings/debian-archive-keyring.gpg (ULID_DEBIAN_KEYRING). Files
already in DIR are reused when their checksum matches.
"""

from __future__ import annotations

import email.utils
import lzma
import os
import re
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from functools import cmp_to_key
from pathlib import Path

from ulidtools import manifest
from ulidtools.base import ToolError, log, sha256_hex, sha256_of
from ulidtools.manifest import ARCHIVE_KINDS as KINDS, DebianFile as Pin, ManifestError
from ulidtools.sign import fingerprints_of

# ULID_MANIFEST: another manifest (the tests write their own)
MANIFEST = Path(os.environ.get("ULID_MANIFEST") or manifest.PATH)
# Debian 12's debian-archive-keyring: it has a key of every suite's InRelease
# the manifest names
KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")
# lagging mirrors serve these expired; any other suite's is refused, as by apt
MAY_EXPIRE = ("sid", "experimental")


class Failure(ToolError):
    pass


@dataclass
class Candidate:
    version: str
    path: str
    size: int
    sha256: str


def downloads() -> Path:
    """The download cache (ULID_DOWNLOADS), outside the checkout so that
    every clone reuses it."""
    return Path(os.environ.get("ULID_DOWNLOADS") or Path.home() / ".cache" / "ulid" / "downloads")


def read_manifest() -> dict[str, list[Pin]]:
    """Every pinned file of Debian's archive, by package name."""
    pins: dict[str, list[Pin]] = {}
    try:
        records = manifest.read(MANIFEST)
    except ManifestError as error:
        raise Failure(str(error)) from None
    for record in records:
        if isinstance(record, Pin):
            pins.setdefault(record.package, []).append(record)
    return pins


def split_name(name: str) -> tuple[str, str]:
    """KIND:PACKAGE or PACKAGE (PACKAGE may be NAME:ARCH) as (KIND, PACKAGE)."""
    head, _, rest = name.partition(":")
    if head in KINDS:
        return head, rest
    if head == "system":
        system, _, package = rest.partition(":")
        return f"system:{system}", package
    return "", name


def lookup(pins: dict[str, list[Pin]], name: str) -> Pin:
    """The one pin NAME names: [KIND:]PACKAGE[:ARCH][/SUITE]."""
    kind, package = split_name(name)
    package, _, suite = package.partition("/")
    found = [pin for pin in pins.get(package, []) if kind in ("", pin.kind) and suite in ("", pin.suite)]
    if not found:
        raise Failure(f"{MANIFEST.name} pins no {name}")
    kinds = [pin.kind for pin in found]
    if len(set(kinds)) < len(kinds):
        suites = [(pin.kind, pin.suite) for pin in found]
        if len(set(kinds)) == 1 and len(set(suites)) == len(suites):
            raise Failure(f"{MANIFEST.name} pins {name} in {len(found)} suites, lines "
                          + ", ".join(str(pin.number) for pin in found) + ": name one of "
                          + ", ".join(f"{pin.kind}:{package}/{pin.suite}" for pin in found))
        raise Failure(f"{MANIFEST.name} pins {name} twice, lines " + ", ".join(str(pin.number) for pin in found))
    if len(found) > 1:
        raise Failure(f"{MANIFEST.name} pins {package} as " + " and as ".join(kinds)
                      + ": name one of " + ", ".join(f"{kind}:{package}" for kind in kinds))
    return found[0]


def mirror() -> str:
    if os.environ.get("ULID_DEBIAN_MIRROR"):
        return os.environ["ULID_DEBIAN_MIRROR"].rstrip("/")
    try:
        sources = Path("/etc/apt/sources.list.d/debian.sources").read_text()
        match = re.search(r"^URIs:\s*(https?://[^/\s]+)", sources, re.M)
        if match:
            return match.group(1)
    except OSError:
        pass
    return "http://deb.debian.org"


def url_of(pin: Pin, path: str) -> str:
    return f"{mirror()}/{pin.archive}/{path}"


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as response:
        return response.read()


def answers(url: str) -> bool:
    request = urllib.request.Request(url, method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def compare_versions(a: str, b: str) -> int:
    if a == b:
        return 0
    lower = subprocess.run(["dpkg", "--compare-versions", a, "lt", b]).returncode == 0
    return -1 if lower else 1


def stanzas(text: str):
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        key = None
        for line in block.splitlines():
            if line[:1] in (" ", "\t") and key:
                fields[key] += "\n" + line.strip()
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        if fields:
            yield fields


def keyring() -> Path:
    """The keyring that signs the archive's InRelease files."""
    return Path(os.environ.get("ULID_DEBIAN_KEYRING") or KEYRING).absolute()


def pinned_only() -> str:
    """Why only pinned files may be used, or "" when the fallback is allowed."""
    if os.environ.get("ULID_PINNED_ONLY") == "1":
        return "in a release (ULID_PINNED_ONLY=1)"
    if os.environ.get("CI", "").lower() in ("true", "1"):
        return "under CI (CI=true)"
    return ""


def check_signed(url: str, signed: bytes, suite: str) -> dict[str, tuple[int, str]]:
    """The files the InRelease SIGNED lists, {name: (size, sha256)}, read
    from the signed text only, once gpgv has checked its signatures; it must
    name SUITE and, unless SUITE is in MAY_EXPIRE, not have expired."""
    ring = keyring()
    if not ring.is_file():
        raise Failure(f"{url}: no keyring {ring} to check it with (Debian's debian-archive-keyring)")
    with tempfile.TemporaryDirectory() as home:
        (Path(home) / "InRelease").write_bytes(signed)
        checked = subprocess.run(["gpgv", "--homedir", home, "--status-fd", "1", "--keyring", str(ring),
                                  "--output", str(Path(home) / "Release"), str(Path(home) / "InRelease")],
                                 capture_output=True, text=True)
        lines = [line.split() for line in checked.stdout.splitlines() if line.startswith("[GNUPG:] ")]
        status = [fields[1] for fields in lines if len(fields) > 1]
        said = " ".join(line.strip() for line in checked.stderr.splitlines()[-2:])
        if "BADSIG" in status:
            raise Failure(f"{url}: refused: a BAD signature ({said})")
        # every signature (NEWSIG) good (GOODSIG) and by a primary key of the
        # keyring (VALIDSIG's last field): a signature by a key the keyring
        # lacks is refused even beside a good one
        signers = [fields[-1] for fields in lines if len(fields) > 2 and fields[1] == "VALIDSIG"]
        if checked.returncode != 0 or "GOODSIG" not in status \
                or status.count("GOODSIG") != max(status.count("NEWSIG"), 1) \
                or len(signers) != status.count("GOODSIG") or not set(signers) <= set(fingerprints_of(ring)) \
                or not (Path(home) / "Release").is_file():
            raise Failure(f"{url}: refused: not signed by a key of {ring} alone (gpgv exited "
                          f"{checked.returncode}: {said or 'no signature'})")
        text = (Path(home) / "Release").read_text("utf-8", "replace")
    fields = next(stanzas(text), {})
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
    listed = {}
    for line in fields.get("SHA256", "").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1].isdigit():
            listed[parts[2]] = (int(parts[1]), parts[0])
    return listed


_released: dict[str, dict[str, tuple[int, str]]] = {}


def verified_index(archive: str, suite: str, name: str) -> bytes:
    """The index NAME of a suite (main/source/Sources.xz), checked against
    its InRelease (check_signed, read once per suite)."""
    base = f"{mirror()}/{archive}/dists/{suite}"
    if base not in _released:
        try:
            signed = get(f"{base}/InRelease")
        except (urllib.error.URLError, OSError) as error:
            raise Failure(f"{base}/InRelease could not be read: {error}") from error
        _released[base] = check_signed(f"{base}/InRelease", signed, suite)
    url = f"{base}/{name}"
    if name not in _released[base]:
        raise Failure(f"{url}: refused: {suite}'s InRelease does not list it")
    try:
        data = get(url)
    except (urllib.error.URLError, OSError) as error:
        raise Failure(f"the index {url} could not be read: {error}") from error
    size, sha256 = _released[base][name]
    actual = sha256_hex(data)
    if (len(data), actual) != (size, sha256):
        raise Failure(f"{url}: refused: {len(data)} bytes with sha256 {actual}, its InRelease says "
                      f"{size} bytes with sha256 {sha256}")
    return data


def index_candidates(pin: Pin) -> list[Candidate]:
    """What the suite's index lists now for the package, newest first."""
    # the architecture ends the file name; an _all .deb is in every index
    package, _, arch = pin.package.partition(":")
    if pin.kind == "debian-source":
        index = "main/source/Sources.xz"
    else:
        arch = arch or re.sub(r"^all$", "amd64", pin.path.rsplit("_", 1)[-1].removesuffix(".deb"))
        index = f"main/binary-{arch}/Packages.xz"
    try:
        text = lzma.decompress(verified_index(pin.archive, pin.suite, index)).decode("utf-8", "replace")
    except lzma.LZMAError as error:
        raise Failure(f"the index {url_of(pin, f'dists/{pin.suite}/{index}')} could not be read: {error}") \
            from error
    found = []
    for fields in stanzas(text):
        if fields.get("Package") != package:
            continue
        if pin.kind == "debian-source":
            for line in fields.get("Checksums-Sha256", "").splitlines():
                parts = line.split()
                if len(parts) == 3 and re.search(r"\.orig\.tar\.(gz|bz2|xz)$", parts[2]):
                    upstream = fields["Version"].split(":")[-1].rsplit("-", 1)[0]
                    path = f"{fields['Directory']}/{parts[2]}"
                    found.append(Candidate(upstream, path, int(parts[1]), parts[0]))
        elif fields.get("Filename") and fields.get("SHA256"):
            found.append(Candidate(fields["Version"], fields["Filename"], int(fields["Size"]), fields["SHA256"]))
    unique = {c.path: c for c in found}
    return sorted(unique.values(), key=cmp_to_key(lambda a, b: compare_versions(b.version, a.version)))


def download(url: str, target: Path, size: int, sha256: str) -> str | None:
    """Downloads and verifies; None when it worked, else why it did not."""
    if target.exists() and target.stat().st_size == size and sha256_of(target) == sha256:
        return None
    part = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=120) as response, part.open("wb") as out:
            while block := response.read(1 << 20):
                out.write(block)
    except urllib.error.HTTPError as error:
        part.unlink(missing_ok=True)
        return f"HTTP {error.code}"
    except (urllib.error.URLError, OSError) as error:
        part.unlink(missing_ok=True)
        return f"failed: {error}"
    actual_size, actual_sha = part.stat().st_size, sha256_of(part)
    if actual_size != size or actual_sha != sha256:
        part.unlink()
        return (f"refused: {actual_size} bytes with sha256 {actual_sha}, "
                f"expected {size} bytes with sha256 {sha256}")
    part.replace(target)
    return None


def listed_candidates(pin: Pin, tried: list[str]) -> list[Candidate]:
    """index_candidates, or none when the index cannot be read (added to TRIED)."""
    try:
        return index_candidates(pin)
    except Failure as error:
        tried.append(str(error))
        return []


def only_pinned(pin: Pin, tried: list[str]) -> None:
    """Fails when only pinned files may be used (pinned_only)."""
    why = pinned_only()
    if why:
        raise Failure(f"{pin.package}: the pinned file cannot be had, and {why} only pinned files are used:\n  "
                      + "\n  ".join(tried) + f"\nChange {MANIFEST.name} line {pin.number}: {pin.text}\n"
                      "(scripts/fetch-debian run outside CI names the version the suite's index offers, "
                      "verified, and the line that pins it)")


def fetch(pin: Pin, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    tried = []
    pinned_url = url_of(pin, pin.path)
    target = directory / Path(pin.path).name
    why = download(pinned_url, target, pin.size, pin.sha256)
    if why is None:
        log(f"{pin.package} {pin.version}: the pinned {pin.path} (sha256 {pin.sha256[:16]}…, verified)")
        return target
    tried.append(f"{pinned_url}: {why}")
    only_pinned(pin, tried)
    log(f"{pin.package}: the pinned file is not to be had ({why}); trying what {pin.suite}'s index lists")
    candidates = listed_candidates(pin, tried)
    for candidate in candidates:
        url = url_of(pin, candidate.path)
        if candidate.path == pin.path and candidate.sha256 == pin.sha256:
            continue  # the pinned file, tried above
        target = directory / Path(candidate.path).name
        why = download(url, target, candidate.size, candidate.sha256)
        if why is None:
            log(f"{pin.package} {candidate.version}: NOT THE PINNED VERSION; {candidate.path} "
                f"(sha256 {candidate.sha256[:16]}…, verified against the index that {pin.suite}'s signed "
                f"InRelease lists). "
                f"To pin it, change {MANIFEST.name} line {pin.number} to: "
                f"{pin.kind.replace(':', ' ')} {pin.archive} {pin.suite} {pin.package} {candidate.version} "
                f"{candidate.path} {candidate.size} {candidate.sha256}")
            return target
        tried.append(f"{url}: {why}")
    raise Failure(f"{pin.package}: nothing could be downloaded. Tried:\n  " + "\n  ".join(tried)
                  + f"\nChange {MANIFEST.name} line {pin.number}: {pin.text}")


def check(pin: Pin) -> None:
    """Fails unless the pinned file, or one the index lists now, answers."""
    pinned_url = url_of(pin, pin.path)
    if answers(pinned_url):
        return
    tried = [f"{pinned_url}: no answer"]
    only_pinned(pin, tried)
    candidates = listed_candidates(pin, tried)
    for candidate in candidates:
        url = url_of(pin, candidate.path)
        if answers(url):
            log(f"{pin.package}: the pinned file is gone; {candidate.version} from the index answers")
            return
        tried.append(f"{url}: no answer")
    raise Failure(f"{pin.package}: nothing to download. Tried:\n  " + "\n  ".join(tried)
                  + f"\nChange {MANIFEST.name} line {pin.number}: {pin.text}")


def fetch_named(names: list[str], directory: Path | None, each=None) -> list[Path]:
    """The files NAMES name, downloaded into DIRECTORY (EACH called on each
    path), or with no DIRECTORY only checked; all are looked up first."""
    pins = read_manifest()
    wanted = [lookup(pins, name) for name in names]
    if directory:
        directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for pin in wanted:
        if directory is None:
            check(pin)
        else:
            paths.append(Path(fetch(pin, directory)))
            if each:
                each(paths[-1])
    return paths
