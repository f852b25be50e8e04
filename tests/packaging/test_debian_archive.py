"""scripts/fetch-debian, the download of pinned files from Debian's archive,
against an archive made here and served on loopback: an index that lists
what the test says, a pool that holds what the test puts in it, and an
InRelease signed by a key made for the test, whose public part is the
only key of a keyring of the test's own (ULID_DEBIAN_KEYRING); Debian's
keyring, which fetch-debian uses unless told, lacks it.

And the local archive scripts/debian-system makes its Debian systems from
(ulidtools.debian_systems): signed by a key made for it alone, whose secret
part is gone once it has signed, and checked by apt through signed-by.

These run once (tools/ulidtools/testrun.py names this file), not on every build: see
the once_per_run marker in conftest.py.
"""

from __future__ import annotations

import http.server
import lzma
import os
import shutil
import subprocess
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

import pytest

from harness.pgcluster import ROOT
from ulidtools import debian_systems
from ulidtools.base import sha256_hex
from ulidtools.debian_package import apt_index

pytestmark = pytest.mark.once_per_run

FETCH = ROOT / "scripts" / "fetch-debian"  # runs tools/ulidtools/debian_archive.py

POOL = "pool/main/p/pkg"


class Signer:
    """A key made for the test, in a GnuPG home of its own, and a keyring
    that holds its public part alone."""

    def __init__(self, home: Path, who: str):
        self.home = home
        home.mkdir(mode=0o700)
        self.gpg("--passphrase", "", "--quick-gen-key", f"{who} <{who}@ulid.invalid>", "ed25519", "sign", "never")
        self.keyring = home / "keyring.gpg"
        self.keyring.write_bytes(self.gpg("--export").stdout)

    def gpg(self, *args: str, **kwargs) -> subprocess.CompletedProcess:
        return subprocess.run(["gpg", "--homedir", str(self.home), "--batch", "--quiet", *args],
                              capture_output=True, check=True, **kwargs)

    def clearsign(self, text: str) -> bytes:
        return self.gpg("--clearsign", input=text.encode()).stdout

    def close(self) -> None:
        subprocess.run(["gpgconf", "--homedir", str(self.home), "--kill", "all"], capture_output=True)


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    """The archive's key, and a key of someone else."""
    made = {who: Signer(tmp_path_factory.mktemp("gnupg") / who, who) for who in ("archive", "someone-else")}
    yield made
    for signer in made.values():
        signer.close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


class Archive:
    """An archive root with one suite (`sid` unless told), of one source
    package `pkg` and one binary package `pkg-bin`, served over HTTP on
    127.0.0.1, its InRelease signed by SIGNER (written again with every
    index)."""

    def __init__(self, root: Path, signer: Signer, suite: str = "sid"):
        self.root = root
        self.signer = signer
        self.suite = suite
        self.valid_until = time.time() + 7 * 86400
        (root / "debian" / POOL).mkdir(parents=True)
        self.sources: list[tuple[str, str, bytes]] = []
        self.packages: list[tuple[str, str, bytes]] = []
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(root)))
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self._write_indexes()

    @property
    def dists(self) -> Path:
        return self.root / "debian" / "dists" / self.suite

    def release_text(self, suite: str | None = None) -> str:
        """The Release of the suite's indexes as they are now (the
        InRelease's text before it is signed)."""
        when = "%a, %d %b %Y %H:%M:%S UTC"
        lines = [f"Suite: {suite or self.suite}", f"Codename: {suite or self.suite}",
                 f"Date: {time.strftime(when, time.gmtime())}",
                 f"Valid-Until: {time.strftime(when, time.gmtime(self.valid_until))}", "SHA256:"]
        for index in sorted(self.dists.glob("main/*/*")):
            data = index.read_bytes()
            lines.append(f" {sha256_hex(data)} {len(data):8} {index.relative_to(self.dists)}")
        return "\n".join(lines) + "\n"

    def sign(self, text: str | None = None, signer: Signer | None = None) -> None:
        """Writes InRelease: TEXT (the suite's Release unless given), signed
        by SIGNER (the archive's key unless given)."""
        (self.dists / "InRelease").write_bytes((signer or self.signer).clearsign(text or self.release_text()))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    @staticmethod
    def tarball(version: str) -> bytes:
        return f"the source of pkg {version}\n".encode() * 100

    def put(self, name: str, content: bytes) -> None:
        (self.root / "debian" / POOL / name).write_bytes(content)

    def list_source(self, version: str, content: bytes | None = None) -> None:
        """Adds version to the suite's Sources index; content is what the
        index says the tarball holds (by default the real one)."""
        self.sources.append((version, f"pkg_{version}.orig.tar.gz", content or self.tarball(version)))
        self._write_indexes()

    def list_binary(self, version: str, content: bytes) -> None:
        self.packages.append((version, f"pkg-bin_{version}-1_all.deb", content))
        self._write_indexes()

    def _write_indexes(self, sign: bool = True) -> None:
        sources = "\n".join(
            f"Package: pkg\nVersion: {v}-1\nDirectory: {POOL}\nChecksums-Sha256:\n"
            f" {sha256_hex(c)} {len(c)} {f}\n {sha256_hex(b'debian')} 6 pkg_{v}-1.debian.tar.xz\n"
            for v, f, c in self.sources
        )
        packages = "\n".join(
            f"Package: pkg-bin\nVersion: {v}-1\nArchitecture: all\nFilename: {POOL}/{f}\n"
            f"Size: {len(c)}\nSHA256: {sha256_hex(c)}\n"
            for v, f, c in self.packages
        )
        for path, text in (("source/Sources.xz", sources), ("binary-amd64/Packages.xz", packages)):
            target = self.dists / "main" / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(lzma.compress(text.encode()))
        if sign:
            self.sign()


@pytest.fixture
def archive(tmp_path, keys):
    a = Archive(tmp_path / "mirror", keys["archive"])
    yield a
    a.close()


def manifest(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "inputs.manifest"
    path.write_text("# a manifest made by the test\n\n" + "\n".join(lines) + "\n")
    return path


def source_pin(version: str, content: bytes | None = None, suite: str = "sid") -> str:
    content = content or Archive.tarball(version)
    return f"debian-source debian {suite} pkg {version} {POOL}/pkg_{version}.orig.tar.gz {len(content)} {sha256_hex(content)}"


DEBIAN = Path("/usr/share/keyrings/debian-archive-keyring.gpg")


def fetch(tmp_path: Path, archive: Archive, manifest_path: Path, *args: str, keyring: Path | None = None,
          **env: str) -> subprocess.CompletedProcess:
    """scripts/fetch-debian against the archive, its keyring the archive's
    key unless told (DEBIAN: fetch-debian's own, Debian's archive keyring),
    outside CI unless ENV says (CI=true, ULID_PINNED_ONLY=1)."""
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "ULID_PINNED_ONLY", "ULID_DEBIAN_KEYRING")}
    env = dict(base, ULID_DEBIAN_MIRROR=archive.url, ULID_MANIFEST=str(manifest_path), **env)
    if keyring != DEBIAN:
        env["ULID_DEBIAN_KEYRING"] = str(keyring or archive.signer.keyring)
    return subprocess.run(
        [str(FETCH), *args], env=env, capture_output=True, text=True, timeout=60
    )


def test_the_pinned_file_is_taken_though_the_index_lists_a_newer_one(tmp_path, archive):
    # the index moved first: it lists 1.1, whose file the pool does not serve
    archive.put("pkg_1.0.orig.tar.gz", Archive.tarball("1.0"))
    archive.list_source("1.1")
    pins = manifest(tmp_path, source_pin("1.0"))

    result = fetch(tmp_path, archive, pins, str(tmp_path / "dl"), "pkg")

    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip())
    assert path == tmp_path / "dl" / "pkg_1.0.orig.tar.gz"
    assert path.read_bytes() == Archive.tarball("1.0")
    assert "pkg 1.0: the pinned" in result.stderr
    assert "NOT THE PINNED" not in result.stderr
    assert fetch(tmp_path, archive, pins, "--check", "pkg").returncode == 0


def test_a_pinned_file_gone_from_the_pool_gives_way_to_the_index_verified(tmp_path, archive):
    archive.put("pkg_1.1.orig.tar.gz", Archive.tarball("1.1"))
    archive.put("pkg_1.2.orig.tar.gz", Archive.tarball("1.2"))
    archive.list_source("1.1")
    archive.list_source("1.2")
    # listed newest first or not, the newest is taken first
    archive.sources.reverse()
    archive._write_indexes()
    pins = manifest(tmp_path, "# an unrelated line", source_pin("1.0"))

    result = fetch(tmp_path, archive, pins, str(tmp_path / "dl"), "pkg")

    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip())
    assert path.name == "pkg_1.2.orig.tar.gz"
    assert path.read_bytes() == Archive.tarball("1.2")
    # what was used, and the line that would pin it
    assert "pkg 1.2: NOT THE PINNED VERSION" in result.stderr
    assert "verified against the index that sid's signed InRelease lists" in result.stderr
    assert "change inputs.manifest line 4 to: " + source_pin("1.2") in result.stderr
    assert fetch(tmp_path, archive, pins, "--check", "pkg").returncode == 0


def test_nothing_to_download_names_every_url_tried_and_the_line(tmp_path, archive):
    archive.list_source("1.1")  # listed, but the pool serves neither file
    pins = manifest(tmp_path, source_pin("1.0"))

    for args in ([str(tmp_path / "dl"), "pkg"], ["--check", "pkg"]):
        result = fetch(tmp_path, archive, pins, *args)
        assert result.returncode == 1
        assert f"{archive.url}/debian/{POOL}/pkg_1.0.orig.tar.gz" in result.stderr
        assert f"{archive.url}/debian/{POOL}/pkg_1.1.orig.tar.gz" in result.stderr
        assert "Change inputs.manifest line 3: " + source_pin("1.0") in result.stderr
    assert not list((tmp_path / "dl").glob("*"))


def test_a_file_whose_sha256_differs_is_refused(tmp_path, archive):
    # the pool serves a pinned-looking file with other bytes, and the index
    # lists a version whose file differs from what the index says
    archive.put("pkg_1.0.orig.tar.gz", b"not what was pinned\n" * 100)
    archive.put("pkg_1.1.orig.tar.gz", Archive.tarball("1.1") + b"tampered")
    archive.list_source("1.1")
    pins = manifest(tmp_path, source_pin("1.0"))

    result = fetch(tmp_path, archive, pins, str(tmp_path / "dl"), "pkg")

    assert result.returncode == 1
    assert f"{archive.url}/debian/{POOL}/pkg_1.0.orig.tar.gz: refused" in result.stderr
    assert f"{archive.url}/debian/{POOL}/pkg_1.1.orig.tar.gz: refused" in result.stderr
    assert result.stdout == ""
    assert not list((tmp_path / "dl").glob("*"))


def test_a_cached_file_is_checked_again_before_use(tmp_path, archive):
    archive.put("pkg_1.0.orig.tar.gz", Archive.tarball("1.0"))
    pins = manifest(tmp_path, source_pin("1.0"))
    dl = tmp_path / "dl"
    dl.mkdir()
    (dl / "pkg_1.0.orig.tar.gz").write_bytes(b"corrupted")

    result = fetch(tmp_path, archive, pins, str(dl), "pkg")

    assert result.returncode == 0, result.stderr
    assert (dl / "pkg_1.0.orig.tar.gz").read_bytes() == Archive.tarball("1.0")


def test_binary_packages_fall_back_on_the_packages_index(tmp_path, archive):
    old, new = b"deb 1.0" * 50, b"deb 2.0" * 50
    archive.put("pkg-bin_2.0-1_all.deb", new)
    archive.list_binary("2.0", new)
    pins = manifest(
        tmp_path,
        f"debian-binary debian sid pkg-bin 1.0-1 {POOL}/pkg-bin_1.0-1_all.deb {len(old)} {sha256_hex(old)}",
    )

    result = fetch(tmp_path, archive, pins, str(tmp_path / "dl"), "pkg-bin")

    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).read_bytes() == new
    assert "pkg-bin 2.0-1: NOT THE PINNED VERSION" in result.stderr


def test_a_package_the_manifest_does_not_pin_is_an_error(tmp_path, archive):
    result = fetch(tmp_path, archive, manifest(tmp_path, source_pin("1.0")), "--check", "other")
    assert result.returncode == 1
    assert "inputs.manifest pins no other" in result.stderr


def test_a_source_and_a_binary_package_of_one_name_are_named_with_their_kind(tmp_path, archive):
    # postgresql-18 is both: the upstream tarball, and the server's .deb
    deb = b"deb 1.0" * 50
    archive.put("pkg_1.0.orig.tar.gz", Archive.tarball("1.0"))
    archive.put("pkg_1.0-1_all.deb", deb)
    pins = manifest(
        tmp_path,
        source_pin("1.0"),
        f"debian-system debian sid pkg 1.0-1 {POOL}/pkg_1.0-1_all.deb {len(deb)} {sha256_hex(deb)}",
    )
    dl = str(tmp_path / "dl")

    result = fetch(tmp_path, archive, pins, dl, "pkg")
    assert result.returncode == 1
    assert "pins pkg as debian-source and as debian-system: name one of debian-source:pkg, debian-system:pkg" \
        in result.stderr
    assert result.stdout == ""

    result = fetch(tmp_path, archive, pins, dl, "debian-source:pkg", "debian-system:pkg")
    assert result.returncode == 0, result.stderr
    tarball, package = map(Path, result.stdout.split())
    assert tarball.read_bytes() == Archive.tarball("1.0")
    assert package.read_bytes() == deb
    assert fetch(tmp_path, archive, pins, "--check", "debian-system:pkg").returncode == 0
    result = fetch(tmp_path, archive, pins, "--check", "debian-binary:pkg")
    assert result.returncode == 1
    assert "inputs.manifest pins no debian-binary:pkg" in result.stderr


def test_two_suites_packages_of_one_name_are_named_with_their_suite(tmp_path, archive):
    # libpq5 is pinned for the 19 build (experimental) and the 13 build
    # (bullseye-security)
    new, old = b"deb 19" * 50, b"deb 13" * 50
    archive.put("pkg-bin_19-1_amd64.deb", new)
    archive.put("pkg-bin_13-1_amd64.deb", old)
    pins = manifest(
        tmp_path,
        f"debian-binary debian experimental pkg-bin 19-1 {POOL}/pkg-bin_19-1_amd64.deb {len(new)} {sha256_hex(new)}",
        f"debian-binary debian bullseye-security pkg-bin 13-1 {POOL}/pkg-bin_13-1_amd64.deb "
        f"{len(old)} {sha256_hex(old)}",
    )
    dl = str(tmp_path / "dl")

    result = fetch(tmp_path, archive, pins, dl, "debian-binary:pkg-bin")
    assert result.returncode == 1
    assert ("pins debian-binary:pkg-bin in 2 suites, lines 3, 4: name one of "
            "debian-binary:pkg-bin/experimental, debian-binary:pkg-bin/bullseye-security") in result.stderr

    result = fetch(tmp_path, archive, pins, dl, "debian-binary:pkg-bin/bullseye-security", "pkg-bin/experimental")
    assert result.returncode == 0, result.stderr
    assert [Path(path).read_bytes() for path in result.stdout.split()] == [old, new]
    result = fetch(tmp_path, archive, pins, dl, "debian-binary:pkg-bin/sid")
    assert result.returncode == 1
    assert "inputs.manifest pins no debian-binary:pkg-bin/sid" in result.stderr


def test_nothing_builds_citus_or_reads_a_vendor_directory():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    offenders = []
    for name in tracked.stdout.split():
        path = ROOT / name
        if path.suffix in (".png", ".json", ".lock") or not path.is_file() or path == Path(__file__).resolve():
            continue
        text = path.read_text(errors="replace")
        for needle in ("shared/vendor", "ULID_CITUS_TARBALL", "citus build", "citus-13.2.2.tar"):
            if needle in text:
                offenders.append(f"{name}: {needle}")
    assert not offenders


def test_a_package_of_another_architecture_or_of_a_system_falls_back_to_its_architectures_index(tmp_path, archive):
    """An arm64 .deb, pinned for a Debian system (`system NAME` lines) and as
    PACKAGE:arm64: when the pinned file is gone, the arm64 index is read,
    not the amd64 one."""
    newer = b"the arm64 package, 1.1\n" * 10
    archive.put("pkg-bin_1.1-1_arm64.deb", newer)
    archive.put("pkg-bin_1.2-1_amd64.deb", b"an amd64 package")
    for arch, version, content in (("arm64", "1.1", newer), ("amd64", "1.2", b"an amd64 package")):
        index = archive.root / "debian" / "dists" / "sid" / "main" / f"binary-{arch}" / "Packages.xz"
        index.parent.mkdir(parents=True, exist_ok=True)
        index.write_bytes(lzma.compress(
            f"Package: pkg-bin\nVersion: {version}-1\nArchitecture: {arch}\n"
            f"Filename: {POOL}/pkg-bin_{version}-1_{arch}.deb\nSize: {len(content)}\nSHA256: {sha256_hex(content)}\n".encode()))
    archive.sign()
    gone = f"debian sid pkg-bin 1.0-1 {POOL}/pkg-bin_1.0-1_arm64.deb 5 {sha256_hex(b'gone!')}"
    pins = manifest(tmp_path, f"system bookworm-arm64 {gone}",
                    f"debian-binary {gone.replace('pkg-bin 1.0-1', 'pkg-bin:arm64 1.0-1')}")
    dl = str(tmp_path / "dl")
    for name, line in (("system:bookworm-arm64:pkg-bin", "system bookworm-arm64 debian sid pkg-bin"),
                       ("debian-binary:pkg-bin:arm64", "debian-binary debian sid pkg-bin:arm64")):
        result = fetch(tmp_path, archive, pins, dl, name)
        assert result.returncode == 0, result.stderr
        assert Path(result.stdout.strip()).read_bytes() == newer
        assert "NOT THE PINNED VERSION" in result.stderr
        assert f"{line} 1.1-1 {POOL}/pkg-bin_1.1-1_arm64.deb" in result.stderr
    # a package that two systems pin must be named with its system
    pins = manifest(tmp_path, f"system bookworm-arm64 {gone}", f"system bookworm {gone}")
    result = fetch(tmp_path, archive, pins, dl, "pkg-bin")
    assert result.returncode == 1
    assert "pins pkg-bin as system:bookworm-arm64 and as system:bookworm" in result.stderr, result.stderr


def gone_and_newer_listed(tmp_path: Path, archive: Archive) -> Path:
    """A manifest pinning pkg 1.0, which the pool no longer serves, while
    the index lists 1.1, which it does."""
    archive.put("pkg_1.1.orig.tar.gz", Archive.tarball("1.1"))
    archive.list_source("1.1")
    return manifest(tmp_path, source_pin("1.0"))


@pytest.mark.parametrize("env, why", [({"CI": "true"}, "under CI (CI=true)"),
                                      ({"ULID_PINNED_ONLY": "1"}, "in a release (ULID_PINNED_ONLY=1)")])
def test_under_ci_or_in_a_release_a_pinned_file_gone_is_an_error(tmp_path, archive, env, why):
    pins = gone_and_newer_listed(tmp_path, archive)
    dl = tmp_path / "dl"
    for args in ([str(dl), "pkg"], ["--check", "pkg"]):
        result = fetch(tmp_path, archive, pins, *args, **env)
        assert result.returncode == 1, result.stderr
        assert result.stdout == ""
        assert f"pkg: the pinned file cannot be had, and {why} only pinned files are used" in result.stderr
        assert f"{archive.url}/debian/{POOL}/pkg_1.0.orig.tar.gz" in result.stderr
        assert "Change inputs.manifest line 3: " + source_pin("1.0") in result.stderr
        # the index is not what decides: 1.1 is neither taken nor tried
        assert "pkg_1.1" not in result.stderr and "NOT THE PINNED" not in result.stderr
    assert not list(dl.glob("*"))
    # the same archive, outside CI: 1.1, verified
    result = fetch(tmp_path, archive, pins, str(dl), "pkg")
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).read_bytes() == Archive.tarball("1.1")


def test_under_ci_the_pinned_file_is_still_taken(tmp_path, archive):
    archive.put("pkg_1.0.orig.tar.gz", Archive.tarball("1.0"))
    result = fetch(tmp_path, archive, manifest(tmp_path, source_pin("1.0")), str(tmp_path / "dl"), "pkg", CI="true")
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).read_bytes() == Archive.tarball("1.0")


def refused(result: subprocess.CompletedProcess, tmp_path: Path, *why: str) -> None:
    """fetch-debian used nothing, and said WHY."""
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert "NOT THE PINNED" not in result.stderr
    for text in why:
        assert text in result.stderr, result.stderr
    assert "Change inputs.manifest line 3: " + source_pin("1.0") in result.stderr
    assert not list((tmp_path / "dl").glob("*"))


def test_an_index_whose_inrelease_has_a_bad_signature_is_refused(tmp_path, archive):
    pins = gone_and_newer_listed(tmp_path, archive)
    inrelease = archive.dists / "InRelease"
    signed = inrelease.read_text()
    # the signed text says another codename than the one signed
    assert "Codename: sid\n" in signed
    inrelease.write_text(signed.replace("Codename: sid\n", "Codename: sie\n", 1))
    result = fetch(tmp_path, archive, pins, str(tmp_path / "dl"), "pkg")
    refused(result, tmp_path, f"{archive.url}/debian/dists/sid/InRelease: refused: a BAD signature")


def test_an_index_signed_by_a_key_the_keyring_lacks_or_not_signed_is_refused(tmp_path, archive, keys):
    pins = gone_and_newer_listed(tmp_path, archive)
    url = f"{archive.url}/debian/dists/sid/InRelease"
    dl = str(tmp_path / "dl")
    # well signed, by the archive's key: Debian's keyring, which fetch-debian
    # uses unless told, does not have it
    result = fetch(tmp_path, archive, pins, dl, "pkg", keyring=DEBIAN)
    refused(result, tmp_path, f"{url}: refused: not signed by a key of {DEBIAN}")
    # signed by a key that is not the keyring's
    archive.sign(signer=keys["someone-else"])
    result = fetch(tmp_path, archive, pins, dl, "pkg")
    refused(result, tmp_path, f"{url}: refused: not signed by a key of {keys['archive'].keyring}")
    # not signed at all: the Release text as it is
    (archive.dists / "InRelease").write_text(archive.release_text())
    result = fetch(tmp_path, archive, pins, dl, "pkg")
    refused(result, tmp_path, f"{url}: refused: not signed by a key of")
    # no InRelease (a Release and no signature)
    (archive.dists / "InRelease").rename(archive.dists / "Release")
    result = fetch(tmp_path, archive, pins, dl, "pkg")
    refused(result, tmp_path, f"{url} could not be read: HTTP Error 404")


def signed_by_both(tmp_path: Path, keys, text: str) -> bytes:
    """TEXT clearsigned twice, by the archive's key and by someone else's,
    in one InRelease (as Debian's carries a signature of each archive key)."""
    home = tmp_path / "both"
    home.mkdir(mode=0o700)
    gpg = ["gpg", "--homedir", str(home), "--batch", "--quiet"]
    try:
        for who in ("archive", "someone-else"):
            secret = keys[who].gpg("--export-secret-keys").stdout
            subprocess.run([*gpg, "--import"], input=secret, capture_output=True, check=True)
        return subprocess.run([*gpg, "--local-user", "archive@ulid.invalid", "--local-user",
                               "someone-else@ulid.invalid", "--clearsign"], input=text.encode(),
                              capture_output=True, check=True).stdout
    finally:
        subprocess.run(["gpgconf", "--homedir", str(home), "--kill", "all"], capture_output=True)


def test_an_inrelease_with_a_second_signature_by_a_key_the_keyring_lacks_is_refused(tmp_path, archive, keys):
    """A good signature by the keyring's key is not enough when another
    signature beside it is by a key the keyring lacks: gpgv exits 2, and
    the index is refused; with both keys in the keyring it is taken."""
    pins = gone_and_newer_listed(tmp_path, archive)
    url = f"{archive.url}/debian/dists/sid/InRelease"
    inrelease = signed_by_both(tmp_path, keys, archive.release_text())
    (archive.dists / "InRelease").write_bytes(inrelease)
    # what gpgv says of it: one good signature, one it cannot check
    home = tmp_path / "gpgv"
    home.mkdir(mode=0o700)
    checked = subprocess.run(["gpgv", "--homedir", str(home), "--status-fd", "1", "--keyring",
                              str(keys["archive"].keyring), str(archive.dists / "InRelease")],
                             capture_output=True, text=True)
    assert checked.returncode != 0 and "[GNUPG:] GOODSIG" in checked.stdout and "[GNUPG:] BADSIG" not in \
        checked.stdout and "NO_PUBKEY" in checked.stdout, checked.stdout
    result = fetch(tmp_path, archive, pins, str(tmp_path / "dl"), "pkg")
    refused(result, tmp_path, f"{url}: refused: not signed by a key of {keys['archive'].keyring} alone")
    # a keyring that holds both keys: both signatures good, the index taken
    both = tmp_path / "both.gpg"
    both.write_bytes(keys["archive"].keyring.read_bytes() + keys["someone-else"].keyring.read_bytes())
    result = fetch(tmp_path, archive, pins, str(tmp_path / "dl"), "pkg", keyring=both)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).read_bytes() == Archive.tarball("1.1")


def test_an_index_that_differs_from_its_inrelease_is_refused(tmp_path, archive):
    pins = gone_and_newer_listed(tmp_path, archive)
    # the index lists a 1.2 (a file the pool serves) that the signed
    # InRelease does not vouch for
    archive.put("pkg_1.2.orig.tar.gz", Archive.tarball("1.2"))
    archive.sources.append(("1.2", "pkg_1.2.orig.tar.gz", Archive.tarball("1.2")))
    archive._write_indexes(sign=False)
    index = archive.dists / "main" / "source" / "Sources.xz"
    data = index.read_bytes()
    result = fetch(tmp_path, archive, pins, str(tmp_path / "dl"), "pkg")
    refused(result, tmp_path, f"{archive.url}/debian/dists/sid/main/source/Sources.xz: refused: {len(data)} bytes "
                              f"with sha256 {sha256_hex(data)}, its InRelease says")
    # nor does a Release appended after the signature count: only what the
    # signature covers is read
    signed = (archive.dists / "InRelease").read_text()
    (archive.dists / "InRelease").write_text(signed + "\n" + archive.release_text())
    result = fetch(tmp_path, archive, pins, str(tmp_path / "dl"), "pkg")
    refused(result, tmp_path, "refused")
    # an InRelease that does not list the index
    archive.sign("\n".join(line for line in archive.release_text().splitlines() if "Sources" not in line) + "\n")
    result = fetch(tmp_path, archive, pins, str(tmp_path / "dl"), "pkg")
    refused(result, tmp_path, "main/source/Sources.xz: refused: sid's InRelease does not list it")


def test_the_inrelease_of_another_suite_is_refused(tmp_path, archive):
    pins = gone_and_newer_listed(tmp_path, archive)
    archive.sign(archive.release_text(suite="trixie"))
    result = fetch(tmp_path, archive, pins, str(tmp_path / "dl"), "pkg")
    refused(result, tmp_path, "refused: it is the InRelease of trixie, not of sid")


def test_an_expired_inrelease_is_refused_except_for_sid_and_experimental(tmp_path, keys):
    for suite, taken in (("trixie", False), ("sid", True), ("experimental", True)):
        archive = Archive(tmp_path / f"mirror-{suite}", keys["archive"], suite)
        try:
            archive.valid_until = time.time() - 3 * 86400
            archive.put("pkg_1.1.orig.tar.gz", Archive.tarball("1.1"))
            archive.list_source("1.1")
            pins = manifest(tmp_path, source_pin("1.0", suite=suite))
            result = fetch(tmp_path, archive, pins, str(tmp_path / f"dl-{suite}"), "pkg")
            expired = time.strftime("%a, %d %b %Y", time.gmtime(archive.valid_until))
            if taken:
                assert result.returncode == 0, result.stderr
                assert Path(result.stdout.strip()).read_bytes() == Archive.tarball("1.1")
                assert f"{suite}'s InRelease expired on {expired}" in result.stderr
            else:
                assert result.returncode == 1, result.stderr
                assert f"/debian/dists/{suite}/InRelease: refused: expired on {expired}" in result.stderr
                assert not list((tmp_path / f"dl-{suite}").glob("*"))
        finally:
            archive.close()


# --- The local archive of a Debian system


def local_archive(tmp_path: Path, monkeypatch) -> debian_systems.System:
    """A Debian system's local archive in TMP_PATH, of one small package,
    indexed and signed as setup does it (without debootstrap)."""
    monkeypatch.setenv("ULID_PG_HOME", str(tmp_path / "pg"))
    system = debian_systems.System("bookworm")
    tree = tmp_path / "tree"
    (tree / "DEBIAN").mkdir(parents=True)
    (tree / "DEBIAN" / "control").write_text("Package: ulid-test\nVersion: 1.0-1\nArchitecture: amd64\n"
                                             "Maintainer: ulid <ulid@ulid.invalid>\nDescription: a test\n")
    (system.archive / "pool").mkdir(parents=True)
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", str(tree),
                    str(system.archive / "pool" / "ulid-test_1.0-1_amd64.deb")], check=True, capture_output=True)
    apt_index(system.archive, system.release, [system.arch])
    system.sign_archive()
    return system


def apt(tmp_path: Path, archive: Path, keyring: Path, *args: str) -> subprocess.CompletedProcess:
    """This machine's apt, with a state and sources of its own that name
    the archive alone, signed-by KEYRING, and no key it trusts besides."""
    state = tmp_path / "apt"
    for d in ("lists/partial", "cache/archives/partial", "etc/trusted.gpg.d", "etc/sources.list.d"):
        (state / d).mkdir(parents=True, exist_ok=True)
    (state / "status").touch()
    (state / "etc" / "sources.list").write_text(f"deb [signed-by={keyring}] file:{archive} bookworm main\n")
    options = {"Dir::State::Lists": state / "lists", "Dir::Cache": state / "cache", "Dir::State::status":
               state / "status", "Dir::Etc::SourceList": state / "etc" / "sources.list",
               "Dir::Etc::SourceParts": state / "etc" / "sources.list.d", "Dir::Etc::Trusted": state / "none.gpg",
               "Dir::Etc::TrustedParts": state / "etc" / "trusted.gpg.d", "APT::Architecture": "amd64",
               "APT::Architectures": "amd64", "Acquire::Languages": "none", "APT::Sandbox::User": "root",
               "Debug::NoLocking": "1"}
    return subprocess.run(["apt-get", *(f"-o{k}={v}" for k, v in options.items()), *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def temp():
    """A temporary directory of its own, with a short name (a GnuPG home's
    agent socket must fit in 108 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="ulid-t.", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_local_archive_is_signed_by_a_key_that_is_gone(tmp_path, monkeypatch, temp):
    monkeypatch.setattr("tempfile.tempdir", str(temp))
    system = local_archive(tmp_path, monkeypatch)
    dists = system.archive / "dists" / "bookworm"
    keyring = system.archive / debian_systems.ARCHIVE_KEYRING
    for signed in ([dists / "InRelease"], [dists / "Release.gpg", dists / "Release"]):
        checked = subprocess.run(["gpgv", "--keyring", str(keyring), *map(str, signed)], capture_output=True)
        assert checked.returncode == 0, checked.stderr
    # the key's GnuPG home, with its secret part, is gone; what is left is
    # one public key
    assert not list(temp.iterdir())
    packets = subprocess.run(["gpg", "--list-packets", str(keyring)], capture_output=True, text=True).stdout
    assert packets.count(":public key packet:") == 1 and "secret" not in packets
    # a Release changed after signing does not verify
    (dists / "Release").write_text((dists / "Release").read_text().replace("bookworm", "bullseye"))
    checked = subprocess.run(["gpgv", "--keyring", str(keyring), str(dists / "Release.gpg"),
                              str(dists / "Release")], capture_output=True)
    assert checked.returncode != 0


def test_apt_takes_a_local_archive_only_with_its_key(tmp_path, monkeypatch, keys):
    system = local_archive(tmp_path, monkeypatch)
    keyring = system.archive / debian_systems.ARCHIVE_KEYRING
    updated = apt(tmp_path, system.archive, keyring, "update")
    assert updated.returncode == 0 and "W:" not in updated.stdout + updated.stderr, updated.stdout + updated.stderr
    fetched = apt(tmp_path, system.archive, keyring, "install", "--download-only", "-y", "ulid-test")
    assert fetched.returncode == 0, fetched.stdout + fetched.stderr
    # signed-by another key: apt refuses the archive
    shutil.rmtree(tmp_path / "apt")
    refused = apt(tmp_path, system.archive, keys["someone-else"].keyring, "update")
    assert refused.returncode != 0 and "NO_PUBKEY" in refused.stderr and "is not signed" in refused.stderr, \
        refused.stderr
    assert not list((tmp_path / "apt" / "lists").glob("*Packages*"))
    # a package changed after the archive was signed: refused
    shutil.rmtree(tmp_path / "apt")
    apt(tmp_path, system.archive, keyring, "update")
    deb = system.archive / "pool" / "ulid-test_1.0-1_amd64.deb"
    deb.write_bytes(deb.read_bytes() + b"tampered")
    tampered = apt(tmp_path, system.archive, keyring, "install", "--download-only", "-y", "ulid-test")
    assert tampered.returncode != 0 and "mismatch" in (tampered.stdout + tampered.stderr).lower(), \
        tampered.stdout + tampered.stderr


def test_the_debian_systems_are_made_with_signatures_checked():
    recipe = (ROOT / "tools" / "ulidtools" / "debian_systems.py").read_text()
    for unchecked in ("--no-check-gpg", "trusted=yes", "allow-unauthenticated", "AllowInsecureRepositories"):
        assert unchecked not in recipe, unchecked
    assert '"--force-check-gpg"' in recipe and "[signed-by={KEYRING_IN_SYSTEM}]" in recipe
