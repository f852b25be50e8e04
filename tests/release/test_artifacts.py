"""What a release holds, file by file: names, architectures, the glibc
floor, the Debian packages' metadata and contents, the checksums and their
signature, the signed apt repository, and that its tarballs and packages
are made again byte for byte from the same files (scripts/test-release
also makes them again from a second checkout: test_reproducible.py).
"""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import tarfile
import time
from unittest import mock
from pathlib import Path

import pytest

from harness.pgcluster import ROOT
from ulidtools.base import sha256_of
from ulidtools import cargo_env, package
from ulidtools.project import VERSION
from ulidtools.release import VALID_DAYS

pytestmark = pytest.mark.once_per_run

GLIBC_FLOOR = (2, 28)
MACHINES = {"x86_64": ("amd64", "Advanced Micro Devices X86-64"), "aarch64": ("arm64", "AArch64")}
TARBALL = re.compile(rf"ulid-{re.escape(VERSION)}-pg(\d+)-linux-(x86_64|aarch64)\.tar\.gz")
DEB = re.compile(rf"postgresql-(\d+)-ulid_{re.escape(VERSION.replace('-', '~'))}-1_(amd64|arm64)\.deb")


def out(*args, **kw) -> str:
    return subprocess.run([str(a) for a in args], check=True, capture_output=True, text=True, **kw).stdout


def elf_machine(path) -> str:
    return re.search(r"Machine:\s+(.*)", out("readelf", "-h", path)).group(1).strip()


def glibc_versions(path) -> set[tuple[int, ...]]:
    return {tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_([0-9.]+)", out("objdump", "-T", path))}


def unpacked(path, into):
    """A tarball's or a Debian package's files, unpacked into INTO."""
    into.mkdir(parents=True)
    if path.name.endswith(".deb"):
        out("dpkg-deb", "-x", path, into)
    else:
        with tarfile.open(path) as tar:
            tar.extractall(into, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(into)
    return into


def test_every_file_is_named_in_sha256sums_and_matches(release):
    listed = {line.split()[1] for line in (release.dir / "SHA256SUMS").read_text().splitlines()}
    present = {p.name for p in release.dir.iterdir() if p.suffix in (".deb", ".gz", ".sql")}
    assert listed == present and present
    assert "OK" in out("sha256sum", "-c", "SHA256SUMS", cwd=release.dir)
    # and a changed byte is caught
    tampered = release.dir.parent / "sha256-tampered"
    subprocess.run(["rm", "-rf", tampered], check=True)
    subprocess.run(["cp", "-a", release.dir, tampered], check=True)
    victim = next(tampered.glob("*.deb"))
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 1
    victim.write_bytes(bytes(data))
    check = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=tampered, capture_output=True, text=True)
    assert check.returncode != 0 and f"{victim.name}: FAILED" in check.stdout
    subprocess.run(["rm", "-rf", tampered], check=True)


def test_the_portable_layer_is_a_file_of_the_release(release):
    """ulid_portable.sql, listed in SHA256SUMS, is the tree's file: the one
    the portable tests install, whose version() is this release's."""
    shipped = release.one("ulid_portable.sql")
    assert shipped.read_bytes() == (ROOT / "portable" / "ulid_portable.sql").read_bytes()
    assert f"SELECT '{VERSION}'::pg_catalog.text" in shipped.read_text()
    listed = dict(reversed(line.split()) for line in (release.dir / "SHA256SUMS").read_text().splitlines())
    assert listed["ulid_portable.sql"] == sha256_of(shipped)
    assert oct(shipped.stat().st_mode & 0o777) == "0o644"


def test_each_extension_tarball_and_package_for_a_release_build(release):
    tarballs = [TARBALL.fullmatch(p.name) for p in release.files("ulid-[0-9]*.tar.gz")]
    debs = [DEB.fullmatch(p.name) for p in release.files("postgresql-*.deb")]
    assert tarballs and all(tarballs), [p.name for p in release.files("ulid-[0-9]*.tar.gz")]
    assert debs and all(debs), [p.name for p in release.files("postgresql-*.deb")]
    # a tarball and a package of each major version and architecture, and
    # nothing of a test-only build (18-assert)
    pairs = {(m.group(1), MACHINES[m.group(2)][0]) for m in tarballs}
    assert pairs == {(m.group(1), m.group(2)) for m in debs}
    assert not [p for p in release.dir.iterdir() if "assert" in p.name]


def test_every_library_and_program_loads_with_glibc_2_28_on_its_architecture(release, tmp_path):
    checked = 0
    for n, path in enumerate(release.files("*.tar.gz") + release.files("*.deb")):
        files = unpacked(path, tmp_path / str(n))
        machine = "x86_64" if re.search(r"x86_64|amd64", path.name) else "aarch64"
        elves = [f for f in files.rglob("*") if f.is_file() and f.read_bytes()[:4] == b"\x7fELF"]
        assert elves, f"{path.name} holds no library or program"
        for elf in elves:
            assert elf_machine(elf) == MACHINES[machine][1], (path.name, elf.name)
            versions = glibc_versions(elf)
            assert versions, f"{elf} asks for no glibc version"
            assert max(versions) <= GLIBC_FLOOR, (path.name, elf.name, max(versions))
            checked += 1
    assert checked >= 2 * len(release.files("*.deb"))


@pytest.mark.parametrize("kind", ["extension", "cli"])
def test_debian_packages_say_what_they_need(release, tmp_path, kind):
    debs = release.files("postgresql-*.deb" if kind == "extension" else "ulid-tool_*.deb")
    assert debs
    for deb in debs:
        fields = dict(re.findall(r"^ ?([A-Za-z-]+): (.*)$", out("dpkg-deb", "-I", deb), re.M))
        arch = deb.stem.rsplit("_", 1)[1]
        assert fields["Architecture"] == arch
        # one relation after each ", ", every package once
        relations = fields["Depends"].split(", ")
        assert all(r and r == r.strip() for r in relations), fields["Depends"]
        assert len({r.split()[0] for r in relations}) == len(relations), fields["Depends"]
        libc = re.search(r"libc6 \(>= ([0-9.]+)\)", fields["Depends"])
        assert libc and tuple(map(int, libc.group(1).split("."))) <= GLIBC_FLOOR, fields["Depends"]
        names = out("dpkg-deb", "-c", deb)
        package = fields["Package"]
        for doc in ("copyright", "changelog.gz", "changelog.Debian.gz"):
            assert f"./usr/share/doc/{package}/{doc}\n" in names, (deb.name, doc)
        if kind == "extension":
            major = re.match(r"postgresql-(\d+)-ulid", package).group(1)
            assert fields["Depends"].startswith(f"postgresql-{major}, ")
            for file in (f"/usr/lib/postgresql/{major}/lib/ulid.so",
                         f"/usr/share/postgresql/{major}/extension/ulid.control",
                         f"/usr/share/postgresql/{major}/extension/ulid--{VERSION}.sql"):
                assert f".{file}\n" in names, (deb.name, file)
            # a library, as PostgreSQL's own modules: not executable
            assert re.search(rf"^-rw-r--r-- root/root .* \./usr/lib/postgresql/{major}/lib/ulid\.so$", names, re.M)
        else:
            for file in ("/usr/bin/ulid-tool", "/usr/share/man/man1/ulid-tool.1.gz",
                         "/usr/share/bash-completion/completions/ulid-tool",
                         "/usr/share/zsh/vendor-completions/_ulid-tool",
                         "/usr/share/fish/vendor_completions.d/ulid-tool.fish"):
                assert f".{file}\n" in names, (deb.name, file)
            assert re.search(r"^-rwxr-xr-x root/root .* \./usr/bin/ulid-tool$", names, re.M)
            # nothing of Debian's own ulid-cli, another program: its
            # /usr/bin/ulid stays its own (tests/release/test_installed.py)
            assert package == "ulid-tool" and "./usr/bin/ulid\n" not in names, (package, names)
        # the upstream changelog is the project's, whole
        files = unpacked(deb, tmp_path / deb.name)
        changelog = gzip.decompress((files / f"usr/share/doc/{package}/changelog.gz").read_bytes()).decode()
        assert changelog == (ROOT / "CHANGELOG.md").read_text()


def test_the_command_line_tool_runs_from_its_tarball(release, tmp_path):
    tarball = release.one("ulid-tool-*-linux-x86_64.tar.gz")
    top = next(unpacked(tarball, tmp_path / "cli").iterdir())
    for name in ("ulid-tool", "ulid-tool.1", "completions/ulid-tool.bash", "completions/_ulid-tool",
                 "completions/ulid-tool.fish", "LICENSE"):
        assert (top / name).is_file(), name
    assert out(top / "ulid-tool", "bounds", "2025-01-01T00:00:00Z").strip() == "01JGFJJZ000000000000000000"


def test_the_apt_repository_indexes_every_package_and_is_signed(release, tmp_path):
    repo = release.dir / "apt"
    debs = sorted(p.name for p in release.dir.glob("*.deb"))
    assert sorted(p.name for p in (repo / "pool" / "main").iterdir()) == debs
    release_file = (repo / "dists" / "stable" / "Release").read_text()
    indexed = []
    for sha256, size, name in re.findall(r"^ ([0-9a-f]{64}) (\d+) (\S+)$", release_file, re.M):
        index = repo / "dists" / "stable" / name
        assert index.stat().st_size == int(size)
        assert out("sha256sum", index).split()[0] == sha256
        if name.endswith("/Packages"):
            indexed += re.findall(r"^Filename: pool/main/(\S+)$", index.read_text(), re.M)
    assert sorted(indexed) == debs
    # dated by the release (the commit's time, as its files), so that it is
    # the same bytes from any checkout; apt refuses it VALID_DAYS days later
    epoch = commit_time()
    stamp = "%a, %d %b %Y %H:%M:%S UTC"
    assert f"\nDate: {time.strftime(stamp, time.gmtime(epoch))}\n" in release_file, release_file
    assert f"\nValid-Until: {time.strftime(stamp, time.gmtime(epoch + VALID_DAYS * 86400))}\n" in release_file
    if release.keyring is None:
        pytest.skip("this release's apt repository is not signed (scripts/release without --sign)")
    verified = subprocess.run(["gpgv", "--keyring", release.keyring, repo / "dists/stable/InRelease"],
                              capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    # a Release that says something else does not verify
    forged = tmp_path / "Release"
    forged.write_text(release_file.replace("Suite: stable", "Suite: unstable"))
    rejected = subprocess.run(["gpgv", "--keyring", release.keyring, repo / "dists/stable/Release.gpg", forged],
                              capture_output=True, text=True)
    assert rejected.returncode != 0


def gpg(home: Path, *args, check=True) -> subprocess.CompletedProcess:
    """gpg in the GnuPG home HOME alone, as a user with nothing else would run it."""
    home.mkdir(mode=0o700, exist_ok=True)
    return subprocess.run(["gpg", "--homedir", str(home), "--batch", *map(str, args)], capture_output=True,
                          text=True, check=check)


def fingerprints(home: Path, key: Path) -> list[str]:
    shown = gpg(home, "--with-colons", "--show-keys", key).stdout
    return re.findall(r"^pub:.*\nfpr:(?:[^:]*:){8}([0-9A-F]+):", shown, re.M)


def test_sha256sums_is_signed_by_the_release_key(release, tmp_path):
    if release.keyring is None:
        pytest.skip("this release is not signed (scripts/release without --sign or --sign-key)")
    key = release.dir / "ulid-release-key.asc"
    home = tmp_path / "gnupg"
    try:
        # one key, the one the apt repository's keyring holds
        (fingerprint,) = fingerprints(home, key)
        assert fingerprints(home, release.keyring) == [fingerprint]
        # as the install page says: the key imported, then gpg --verify
        gpg(home, "--import", key)
        verified = gpg(home, "--status-fd", "1", "--verify", release.dir / "SHA256SUMS.asc",
                       release.dir / "SHA256SUMS", check=False)
        assert verified.returncode == 0, verified.stderr
        assert re.search(rf"^\[GNUPG:\] VALIDSIG .* {fingerprint}$", verified.stdout, re.M), verified.stdout
        # a SHA256SUMS with one digit changed does not verify
        sums = (release.dir / "SHA256SUMS").read_text()
        tampered = tmp_path / "SHA256SUMS"
        tampered.write_text(sums.replace(sums[0], "0" if sums[0] != "0" else "1", 1))
        rejected = gpg(home, "--status-fd", "1", "--verify", release.dir / "SHA256SUMS.asc", tampered, check=False)
        assert rejected.returncode != 0 and "[GNUPG:] BADSIG" in rejected.stdout, rejected.stdout
    finally:
        subprocess.run(["gpgconf", "--homedir", str(home), "--kill", "all"], capture_output=True)


def processes_naming(text: str) -> list[str]:
    return [line for line in out("ps", "-eo", "args").splitlines() if text in line]


def test_sign_release_with_a_key_file_or_a_key_of_the_keyring(tmp_path):
    """scripts/sign-release, as scripts/release runs it, on a release of
    two small files: a key of the user's keyring signs, and only its public
    part is exported; a key file's GnuPG home and agent are gone afterwards,
    also when signing fails; without a key, nothing is signed and it says
    so."""
    script = ROOT / "scripts" / "sign-release"
    dist = tmp_path / "dist"
    (dist / "apt" / "dists" / "stable").mkdir(parents=True)
    (dist / "SHA256SUMS").write_text(f"{'0' * 64}  ulid-tool_{VERSION}-1_amd64.deb\n")
    (dist / "apt" / "dists" / "stable" / "Release").write_text("Origin: ulid\nSuite: stable\n")
    keyring = tmp_path / "keyring"
    env = {k: v for k, v in os.environ.items() if k != "GNUPGHOME"}
    try:
        for who in ("release", "someone-else"):
            gpg(keyring, "--passphrase", "", "--quick-gen-key", f"{who} <{who}@ulid.invalid>", "ed25519", "sign",
                "never")
        listed = gpg(keyring, "--with-colons", "--list-keys", "release@ulid.invalid").stdout
        wanted = re.search(r"^fpr:(?:[^:]*:){8}([0-9A-F]+):", listed, re.M).group(1)

        # without a key
        unsigned = subprocess.run([script, dist], capture_output=True, text=True, env=env)
        assert unsigned.returncode == 0 and "NOT signed" in unsigned.stderr, unsigned.stderr
        assert not (dist / "SHA256SUMS.asc").exists()

        # a key of the user's keyring (GNUPGHOME), named by its address
        signed = subprocess.run([script, "--sign-key", "release@ulid.invalid", dist], capture_output=True,
                                text=True, env={**env, "GNUPGHOME": str(keyring)})
        assert signed.returncode == 0, signed.stderr
        assert wanted in signed.stderr
        clean = tmp_path / "clean"
        assert fingerprints(clean, dist / "ulid-release-key.asc") == [wanted]
        assert fingerprints(clean, dist / "apt" / "ulid-archive-keyring.gpg") == [wanted]
        gpg(clean, "--import", dist / "ulid-release-key.asc")
        gpg(clean, "--verify", dist / "SHA256SUMS.asc", dist / "SHA256SUMS")
        gpg(clean, "--verify", dist / "apt" / "dists" / "stable" / "InRelease")
        for made in ("SHA256SUMS.asc", "ulid-release-key.asc", "apt"):
            subprocess.run(["rm", "-rf", dist / made], check=True)
        (dist / "apt" / "dists" / "stable").mkdir(parents=True)
        (dist / "apt" / "dists" / "stable" / "Release").write_text("Origin: ulid\nSuite: stable\n")

        # a key file, in a GnuPG home of the run's own, under TMPDIR
        keyfile = tmp_path / "key.asc"
        keyfile.write_text(gpg(keyring, "--armor", "--export-secret-keys", wanted).stdout)
        temp = tmp_path / "tmp"
        temp.mkdir()
        for args, ok in ((["--check", "--sign", keyfile], True), (["--sign", keyfile, dist], True),
                         (["--sign", keyfile, tmp_path / "no-release"], False),
                         (["--sign", dist / "SHA256SUMS", dist], False)):
            run = subprocess.run([script, *args], capture_output=True, text=True, env={**env, "TMPDIR": str(temp)})
            assert (run.returncode == 0) == ok, (args, run.stderr)
            assert not list(temp.iterdir()), (args, "the GnuPG home is left behind")
            assert not processes_naming(str(temp)), (args, processes_naming(str(temp)))
        gpg(clean, "--verify", dist / "SHA256SUMS.asc", dist / "SHA256SUMS")
    finally:
        for home in (keyring, tmp_path / "clean"):
            subprocess.run(["gpgconf", "--homedir", str(home), "--kill", "all"], capture_output=True)


def commit_time() -> int:
    return int(out("git", "-C", ROOT, "log", "-1", "--format=%ct"))


def deb_of(tarball: Path) -> str:
    """The name of the package made from the same tree as TARBALL."""
    cli = re.fullmatch(r"ulid-tool-(.+)-linux-(x86_64|aarch64)\.tar\.gz", tarball.name)
    if cli:
        return f"ulid-tool_{cli.group(1).replace('-', '~')}-1_{MACHINES[cli.group(2)][0]}.deb"
    ext = TARBALL.fullmatch(tarball.name)
    return f"postgresql-{ext.group(1)}-ulid_{VERSION.replace('-', '~')}-1_{MACHINES[ext.group(2)][0]}.deb"


def test_tarballs_and_packages_are_made_again_byte_for_byte(release, tmp_path):
    """Each tarball, unpacked with other times and modes (as another
    checkout, umask or clock would leave its files), is tarred again by
    ulidtools.package.tarball and packaged again by scripts/package-deb: the
    same bytes as the release's. Its members carry the commit's time, root
    as owner, fixed modes, and gzip's header no name or time."""
    epoch = commit_time()
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    tarballs = release.files("*.tar.gz")
    assert tarballs
    for tarball in tarballs:
        data = tarball.read_bytes()
        assert data[3] & 0x08 == 0 and data[4:8] == b"\0\0\0\0", f"{tarball.name}: gzip header has a name or time"
        with tarfile.open(tarball) as tar:
            members = tar.getmembers()
        for m in members:
            assert (m.uid, m.gid, m.uname, m.gname) == (0, 0, "", ""), (tarball.name, m.name)
            assert m.mtime == epoch, (tarball.name, m.name, m.mtime, epoch)
            assert m.mode in ((0o755,) if m.isdir() else (0o644, 0o755)), (tarball.name, m.name, oct(m.mode))
        name = tarball.name.removesuffix(".tar.gz")
        tree = unpacked(tarball, tmp_path / name) / name
        for path in [tree, *tree.rglob("*")]:
            path.chmod(0o700 if path.is_dir() or path.stat().st_mode & 0o100 else 0o600)
            os.utime(path)
        again = tmp_path / "again"
        again.mkdir(exist_ok=True)
        with mock.patch.dict(os.environ, clear=True, values=env):
            package.tarball(tree.parent, name, again / tarball.name)
        assert (again / tarball.name).read_bytes() == data, f"{tarball.name} made again differs"
        deb = deb_of(tarball)
        what = "cli" if tarball.name.startswith("ulid-tool-") else TARBALL.fullmatch(tarball.name).group(1)
        subprocess.run([ROOT / "scripts" / "package-deb", "--out", again, deb.rsplit("_", 1)[1].removesuffix(".deb"),
                        what, tree], check=True, capture_output=True, env=env)
        assert (again / deb).read_bytes() == (release.dir / deb).read_bytes(), f"{deb} made again differs"


def test_the_install_script_has_one_order(release):
    """cargo-pgrx orders the blocks of the install script that no
    `requires` orders differently from one build to the next: every block
    but the first requires exactly one other, and none is required twice,
    so that the blocks form one chain, which only one order follows
    (src/operators.rs). pgrx's placeholder for a function whose SQL is
    written by hand (`sql = false`) prints no `requires`: it must be right
    before the block that requires that function, which pins it in the
    chain (src/shmem.rs)."""
    checked = 0
    for tarball in release.files("ulid-[0-9]*.tar.gz"):
        with tarfile.open(tarball) as tar:
            script = next(m for m in tar.getmembers() if m.name.endswith(f"/extension/ulid--{VERSION}.sql"))
            text = tar.extractfile(script).read().decode()
        # (the first is pgrx's header, before everything)
        blocks = [b for b in text.split("/* <begin connected objects> */")[1:] if "auto generated by pgrx" not in b]
        skipped = [i for i, b in enumerate(blocks) if "Skipped due to `#[pgrx(sql = false)]`" in b]
        for i in skipped:
            function = re.search(r"^-- \S+::(\w+)$", blocks[i], re.M).group(1)
            assert i + 1 < len(blocks) and f"-- requires:\n--   {function}\n" in blocks[i + 1], \
                (tarball.name, function, "not right before the block that requires it")
        blocks = [b for i, b in enumerate(blocks) if i not in skipped]
        assert len(blocks) >= 5, tarball.name
        requires = [re.findall(r"^--   (\S+)$", block.split("-- requires:\n", 1)[1].split("\n\n", 1)[0], re.M)
                    if "-- requires:\n" in block else [] for block in blocks]
        assert requires[0] == [] and all(len(r) == 1 for r in requires[1:]), (tarball.name, requires)
        names = [r[0] for r in requires[1:]]
        assert len(set(names)) == len(names), (tarball.name, "a block required twice: two orders", names)
        checked += 1
    assert checked


def test_no_path_of_the_build_machine_in_a_library_or_program(release, tmp_path):
    """No checkout, home, cargo registry or cargo target directory path in
    what a release build made (ulidtools.cargo_env.release_env), which two checkouts
    would make differently."""
    paths = {str(ROOT), str(Path.home()) + "/", str(cargo_env.cargo_home()), str(cargo_env.cargo_target())}
    checked = 0
    for n, path in enumerate(release.files("*.tar.gz") + release.files("*.deb")):
        for elf in unpacked(path, tmp_path / str(n)).rglob("*"):
            if elf.is_file() and elf.read_bytes()[:4] == b"\x7fELF":
                data = elf.read_bytes()
                found = {p: data.count(p.encode()) for p in paths if p.encode() in data}
                assert not found, (path.name, elf.name, found)
                checked += 1
    assert checked >= 2 * len(release.files("*.deb"))
