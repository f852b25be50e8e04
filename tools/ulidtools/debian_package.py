"""A Debian binary package of ulid for amd64 or arm64, made from TREE, a release tarball's tree (scripts/package,
scripts/package-deb), laid out as Debian's PostgreSQL packages are; its name, its Maintainer (DEBFULLNAME
<DEBEMAIL>) and the same bytes from the same TREE (SOURCE_DATE_EPOCH, else the commit's time; modes fixed, owner
root): docs/development.md, "Packages" and "Making a release's files again".
"""

from __future__ import annotations

import email.utils
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

from ulidtools import project
from ulidtools.base import ROOT, ToolError, log, sha256_hex

# the dates of an apt Release (Date, Valid-Until)
STAMP = "%a, %d %b %Y %H:%M:%S UTC"


def source_date_epoch() -> int:
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    done = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%ct"], capture_output=True, text=True)
    return int(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else int(time.time())


def glibc_needed(path: Path) -> str:
    """The newest glibc symbol version an ELF file asks for ("2.28"), or ""."""
    symbols = subprocess.run(["objdump", "-T", str(path)], capture_output=True, text=True, check=True).stdout
    versions = {tuple(int(p) for p in v.split(".")) for v in re.findall(r"GLIBC_([0-9][0-9.]*[0-9])", symbols)}
    return ".".join(map(str, max(versions))) if versions else ""


def library_depends(path: Path) -> list[str]:
    """The Depends of an ELF file's libraries, as dpkg-shlibdeps would write them, for any architecture."""
    headers = subprocess.run(["objdump", "-p", str(path)], capture_output=True, text=True, check=True).stdout
    depends = set()
    for needed in re.findall(r"^\s*NEEDED\s+(\S+)\s*$", headers, re.M):
        if needed in ("libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1") \
                or re.fullmatch(r"ld-linux.*\.so\..*", needed):
            glibc = glibc_needed(path)
            if not glibc:
                raise ToolError(f"{path} asks for no glibc version")
            depends.add(f"libc6 (>= {glibc})")
        elif needed == "libgcc_s.so.1":
            depends.add("libgcc-s1 (>= 3.0)")
        else:
            raise ToolError(f"{path} needs {needed}, which no Depends names")
    return sorted(depends)


def strip_library(path: Path) -> None:
    """As dh_strip does: the dynamic symbols PostgreSQL looks up stay. Debian's strip knows amd64 only; LLVM's both."""
    kind = subprocess.run(["file", "-b", str(path)], capture_output=True, text=True, check=True).stdout
    strip = "strip" if "x86-64" in kind else "llvm-strip-14"
    subprocess.run([strip, "--strip-unneeded", "--remove-section=.comment", "--remove-section=.note", str(path)],
                   check=True)


@dataclass
class Package:
    name: str
    version: str
    section: str
    title: str
    about: list[str]
    changes: str
    depends: list[str] = field(default_factory=list)
    # path in the package -> file of TREE; one ending in .gz is gzipped on the way, one in usr/bin/ has mode 755
    files: dict[str, Path] = field(default_factory=dict)
    # ELF files: stripped, and their libraries added to Depends
    binaries: list[str] = field(default_factory=list)

    @property
    def deb_version(self) -> str:
        # 0.2.0-rc.1 -> 0.2.0~rc.1, which sorts before 0.2.0; "-" would start the Debian revision
        return self.version.replace("-", "~") + "-1"


def cli_package(tree: Path) -> Package:
    if not (os.access(tree / "ulid-tool", os.X_OK) and (tree / "ulid-tool.1").is_file()):
        raise ToolError(f"{tree} has no ulid-tool and ulid-tool.1")
    completions = tree / "completions"
    return Package(
        name="ulid-tool", version=project.CLI_VERSION, section="utils", title="command-line tool for ULIDs",
        about=["Generates, inspects, converts and validates ULIDs: ULID text, the UUID",
               "text that psql prints for a uuid column, and \\x hex; reads ids from",
               "standard input, one per line, and prints text, TSV or JSON lines. The",
               "same values, text and public ids as the ulid extension for PostgreSQL."],
        changes=f"ulid-tool {project.CLI_VERSION}, the ulid command-line tool.",
        files={"usr/bin/ulid-tool": tree / "ulid-tool",
               "usr/share/man/man1/ulid-tool.1.gz": tree / "ulid-tool.1",
               "usr/share/bash-completion/completions/ulid-tool": completions / "ulid-tool.bash",
               "usr/share/zsh/vendor-completions/_ulid-tool": completions / "_ulid-tool",
               "usr/share/fish/vendor_completions.d/ulid-tool.fish": completions / "ulid-tool.fish"},
        binaries=["usr/bin/ulid-tool"],
    )


def extension_package(major: str, tree: Path) -> Package:
    if not ((tree / "lib" / "ulid.so").is_file() and (tree / "extension" / "ulid.control").is_file()):
        raise ToolError(f"{tree} has no lib/ulid.so and extension/ulid.control")
    summary = project.field("description").rstrip(".") + "."
    libdir, extdir = f"usr/lib/postgresql/{major}/lib", f"usr/share/postgresql/{major}/extension"
    files = {f"{libdir}/ulid.so": tree / "lib" / "ulid.so",
             f"{extdir}/ulid.control": tree / "extension" / "ulid.control"}
    for script in sorted((tree / "extension").glob("ulid--*.sql")):
        files[f"{extdir}/{script.name}"] = script
    return Package(
        name=f"postgresql-{major}-ulid", version=project.VERSION, section="database",
        title=f"ULID type for PostgreSQL {major}",
        about=[*textwrap.wrap(summary, 72, break_on_hyphens=False),
               ".", f"This package holds the ulid extension for PostgreSQL {major}. Create it",
               "in a database with CREATE EXTENSION ulid."],
        changes=f"ulid {project.VERSION} for PostgreSQL {major}.",
        depends=[f"postgresql-{major}"],
        files=files,
        # (mode 644: a shared library is not executable, Debian policy)
        binaries=[f"{libdir}/ulid.so"],
    )


def copyright_file(homepage: str) -> str:
    """Machine-readable debian/copyright: LICENSE (MIT, Debian's Expat)."""
    license_text = (ROOT / "LICENSE").read_text()
    holders = re.search(r"^Copyright *(?:\(c\)|©)? *(.*)$", license_text, re.M)
    if not (holders and holders.group(1)):
        raise ToolError("LICENSE names no copyright holder")
    lines = ["Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/", "Upstream-Name: ulid",
             *([f"Source: {homepage}"] if homepage else []), "", "Files: *", f"Copyright: {holders.group(1)}",
             "License: Expat", *(" " + (line or ".") for line in license_text.splitlines())]
    return "\n".join(lines) + "\n"


def gzip_bytes(data: bytes) -> bytes:
    """gzip -9n, as Debian's tools compress; Python's zlib would make other bytes."""
    return subprocess.run(["gzip", "-9n"], input=data, capture_output=True, check=True).stdout


def installed_size(root: Path) -> int:
    """As dpkg-gencontrol counts it: KiB per file, 1 per directory, the root itself included (as find . counts)."""
    return 1 + sum(-(-path.lstat().st_size // 1024) if path.is_file() or path.is_symlink() else 1
                   for path in root.rglob("*") if path.relative_to(root).parts[0] != "DEBIAN")


def apt_index(directory: Path, suite: str, arches: list[str], date: int | None = None,
              valid_days: int | None = None) -> None:
    """The unsigned index of DIRECTORY/pool's .deb files, dated DATE (a Unix time, now unless given)."""
    dists = directory / "dists" / suite
    when = int(time.time()) if date is None else date
    lines = ["Origin: ulid", "Label: ulid", f"Suite: {suite}", f"Codename: {suite}",
             f"Date: {time.strftime(STAMP, time.gmtime(when))}"]
    if valid_days is not None:
        lines.append(f"Valid-Until: {time.strftime(STAMP, time.gmtime(when + valid_days * 86400))}")
    lines += [f"Architectures: {' '.join(arches)}", "Components: main", "SHA256:"]
    for arch in arches:
        index = dists / "main" / f"binary-{arch}"
        index.mkdir(parents=True, exist_ok=True)
        packages = subprocess.run(["dpkg-scanpackages", "--arch", arch, "pool", "/dev/null"], cwd=directory,
                                  capture_output=True, check=True).stdout
        for name, data in (("Packages", packages), ("Packages.gz", gzip_bytes(packages))):
            (index / name).write_bytes(data)
            lines.append(f" {sha256_hex(data)} {len(data)} main/binary-{arch}/{name}")
    (dists / "Release").write_text("\n".join(lines) + "\n")


def make(out: Path, arch: str, what: str, tree: Path) -> Path:
    epoch = source_date_epoch()
    package = cli_package(tree) if what == "cli" else extension_package(what, tree)
    maintainer = f"{os.environ.get('DEBFULLNAME') or 'ulid maintainers'} " \
                 f"<{os.environ.get('DEBEMAIL') or 'maintainers@ulid.invalid'}>"
    homepage = project.field("homepage") or project.field("repository")

    # a folder of its own: a debug and a release package may be made at once
    (ROOT / "target" / "package").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"deb-{package.name}-{arch}.", dir=ROOT / "target" / "package") as work:
        root = Path(work) / package.name
        docdir = root / "usr" / "share" / "doc" / package.name
        (root / "DEBIAN").mkdir(parents=True)
        docdir.mkdir(parents=True)
        for path, source in package.files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if path.endswith(".gz"):
                target.write_bytes(gzip_bytes(source.read_bytes()))
            else:
                shutil.copyfile(source, target)
        for path in package.binaries:
            strip_library(root / path)
        (docdir / "copyright").write_text(copyright_file(homepage))
        date = email.utils.formatdate(epoch, usegmt=False).replace("-0000", "+0000")
        (docdir / "changelog.Debian.gz").write_bytes(gzip_bytes(
            f"{package.name} ({package.deb_version}) unstable; urgency=medium\n\n"
            f"  * {package.changes}\n\n -- {maintainer}  {date}\n".encode()))
        (docdir / "changelog.gz").write_bytes(gzip_bytes((ROOT / "CHANGELOG.md").read_bytes()))

        depends = package.depends + [d for path in package.binaries for d in library_depends(root / path)]
        control = [f"Package: {package.name}", f"Version: {package.deb_version}", f"Architecture: {arch}",
                   f"Maintainer: {maintainer}", f"Installed-Size: {installed_size(root)}",
                   f"Depends: {', '.join(dict.fromkeys(depends))}", f"Section: {package.section}",
                   "Priority: optional", *([f"Homepage: {homepage}"] if homepage else []),
                   f"Description: {package.title}", *(f" {line}" for line in package.about)]
        (root / "DEBIAN" / "control").write_text("\n".join(control) + "\n")
        files = sorted(str(p.relative_to(root)) for p in (root / "usr").rglob("*") if p.is_file())
        (root / "DEBIAN" / "md5sums").write_text(
            "".join(f"{hashlib.md5((root / f).read_bytes()).hexdigest()}  {f}\n" for f in files))
        # modes fixed whatever the umask; dpkg-deb only clamps newer times to SOURCE_DATE_EPOCH: set them all
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() or path.parent == root / "usr" / "bin" else 0o644)
            os.utime(path, (epoch, epoch), follow_symlinks=False)

        deb = out / f"{package.name}_{package.deb_version}_{arch}.deb"
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run(["dpkg-deb", "--root-owner-group", "-Zxz", "--build", str(root), str(deb)], check=True,
                       stdout=subprocess.DEVNULL, env=dict(os.environ, SOURCE_DATE_EPOCH=str(epoch)))
    log(str(deb.relative_to(ROOT) if deb.is_relative_to(ROOT) else deb))
    return deb
