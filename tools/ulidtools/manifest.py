"""inputs.manifest (its header describes each kind of line), read in one place
into typed records; a line that is not well formed stops the reader with its number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from functools import cache, cached_property
from pathlib import Path

from ulidtools.base import ROOT, output, pg_home

PATH = ROOT / "inputs.manifest"

SHA256 = re.compile(r"[0-9a-f]{64}")


class ManifestError(ValueError):
    pass


@dataclass(frozen=True)
class Line:
    number: int = field(compare=False)
    text: str = field(compare=False)

    def rest(self) -> str:
        return " ".join(self.text.split()[1:])


@dataclass(frozen=True)
class Build(Line):
    name: str  # "15", "18-assert"
    major: int
    version: str  # what the server reports: "15.20", "19rc1"
    origin: str  # debian, wheel, source, source+assert, debian-binary
    port: int  # its clusters listen on ULID_PORT_BASE + port + slot

    @property
    def assertions(self) -> bool:
        return self.origin.endswith("+assert")

    @property
    def pg_config(self) -> Path:
        if self.origin == "debian":
            return Path(f"/usr/lib/postgresql/{self.major}/bin/pg_config")
        return pg_home() / self.name / "bin" / "pg_config"

    @cached_property
    def _dirs(self) -> list[Path]:
        # asked of pg_config once: every other place reads them here
        asked = output([self.pg_config, "--bindir", "--pkglibdir", "--sharedir"], check=True).splitlines()
        return [Path(line) for line in asked]

    bindir = property(lambda self: self._dirs[0])
    pkglibdir = property(lambda self: self._dirs[1])
    extdir = property(lambda self: self._dirs[2] / "extension")


@dataclass(frozen=True)
class Upgrade(Line):
    new: str
    olds: tuple[str, ...]


@dataclass(frozen=True)
class Bench(Line):
    builds: tuple[str, ...]


@dataclass(frozen=True)
class DebianFile(Line):
    """The lines of ARCHIVE_KINDS, and `system NAME ...` (kind `system:NAME`)."""

    kind: str
    archive: str
    suite: str
    package: str
    version: str
    path: str
    size: int
    sha256: str

    @property
    def arch(self) -> str:
        """A .deb's architecture: of PACKAGE:ARCH or a system NAME-ARCH, else amd64."""
        if self.kind.startswith("system:"):
            return self.kind.partition("-")[2] or "amd64"
        return self.package.partition("/")[0].partition(":")[2] or "amd64"


@dataclass(frozen=True)
class Debian(Line):
    package: str
    version: str


@dataclass(frozen=True)
class Wheel(Line):
    build: str
    project: str
    version: str
    file: str
    sha256: str
    directory: str

    @property
    def archive(self) -> str | None:
        """The tarball in the wheel that holds the build, if DIRECTORY is ARCHIVE.tar.gz/PREFIX."""
        archive, tarball, _ = self.directory.partition(".tar.gz/")
        return archive + ".tar.gz" if tarball else None

    @property
    def prefix(self) -> str:
        """The installation prefix, relative to the unpacked wheel."""
        archive, tarball, prefix = self.directory.partition(".tar.gz/")
        return f"{archive.rpartition('/')[0]}/{prefix}".lstrip("/") if tarball else self.directory


@dataclass(frozen=True)
class Crate(Line):
    name: str
    version: str
    sha256: str


@dataclass(frozen=True)
class Pypi(Line):
    project: str
    version: str
    file: str
    sha256: str


@dataclass(frozen=True)
class Lock(Line):
    path: str


ARCHIVE_KINDS = ("debian-source", "debian-binary", "debian-system")
# each kind's record and its number of fields after the kind (None: one or more builds)
KINDS: dict[str, tuple[type, int | None]] = {
    "build": (Build, 5),
    "upgrade": (Upgrade, None),
    "bench": (Bench, None),
    **{kind: (DebianFile, 7) for kind in ARCHIVE_KINDS},
    "system": (DebianFile, 8),
    "debian": (Debian, 2),
    "wheel": (Wheel, 6),
    "crate": (Crate, 3),
    "pypi": (Pypi, 4),
    "lock": (Lock, 1),
}


def _record(kind: str, values: list[str], number: int, text: str) -> Line:
    cls, count = KINDS[kind]
    if count is None:
        if not values:
            raise ManifestError(f"line {number}: {kind} names no build: {text}")
        values = [values[0], tuple(values[1:])] if cls is Upgrade else [tuple(values)]
    elif len(values) != count:
        raise ManifestError(f"line {number}: expected {count + 1} fields: {text}")
    elif kind == "system":
        values = [f"system:{values[0]}", *values[1:]]
    elif cls is DebianFile:
        values = [kind, *values]
    typed = []
    for spec, value in zip(fields(cls)[2:], values):
        if spec.type == "int" and not value.isdigit():
            raise ManifestError(f"line {number}: {spec.name} is not a number: {text}")
        typed.append(int(value) if spec.type == "int" else value)
    record = cls(number, text, *typed)
    if getattr(record, "sha256", None) is not None and not SHA256.fullmatch(record.sha256):
        raise ManifestError(f"line {number}: not a sha256: {text}")
    return record


def parse(text: str, root: Path = ROOT) -> list[Line]:
    records: list[Line] = []
    seen: dict[tuple, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        kind, *values = line.split()
        if kind not in KINDS:
            raise ManifestError(f"line {number}: no kind of line is called {kind}: {line}")
        record = _record(kind, values, number, line)
        # what may appear only once: a Debian file by kind and package (a debian-binary by suite too), any other
        # line by its first field (a build's name, a list's first build)
        if isinstance(record, DebianFile):
            key = (record.kind, record.package, record.suite if record.kind == "debian-binary" else "")
        else:
            key = (type(record).__name__, values[0])
        if key in seen:
            raise ManifestError(f"line {number}: pinned twice (line {seen[key]} too): {line}")
        seen[key] = number
        records.append(record)
    builds = {r.name for r in records if isinstance(r, Build)}
    for record in records:
        if isinstance(record, (Upgrade, Bench)):
            for name in record.text.split()[1:]:
                if name not in builds:
                    raise ManifestError(f"line {record.number}: {name} is not a build: {record.text}")
        if isinstance(record, Lock) and not (root / record.path).is_file():
            raise ManifestError(f"line {record.number}: no file {record.path}: {record.text}")
    return records


@cache
def read(path: Path = PATH) -> tuple[Line, ...]:
    try:
        return tuple(parse(path.read_text(), path.parent))
    except ManifestError as error:
        raise ManifestError(f"{path.name} {error}") from None


def of_kind(kind: str, path: Path = PATH) -> list[Line]:
    """The records of one kind of line (`system` gives every system's files)."""
    return [r for r in read(path) if r.text.split()[0] == kind]


def one(kind: str, key: str, path: Path = PATH) -> Line:
    """The record of KIND whose first field is KEY (`crate cargo-pgrx`)."""
    found = [r for r in of_kind(kind, path) if r.text.split()[1] == key]
    if len(found) != 1:
        raise ManifestError(f"{path.name} pins no {kind} {key}")
    return found[0]
