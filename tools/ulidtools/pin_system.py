"""Writes the inputs.manifest lines of a Debian system: every package that
debootstrap (variant minbase) and `apt-get install --no-install-recommends
PACKAGE...` put into it, each with the pool path, size and sha256 that the
archive's index gives today (the index checked against its suite's
InRelease, whose signature is checked against Debian's archive keyring:
debian_archive.verified_index), as scripts/pin-system asks (`--help`).

NAME is the system's name in the manifest (`bookworm`, `bullseye`,
`bookworm-arm64`: the release, then the architecture when it is not
amd64); SUITE an archive and suite to take packages from, as
`debian/bookworm` or `debian-security/bookworm-security`. Where several
suites have a package, the newest version is taken, as apt takes it from
several sources, unless its file does not answer (the index and the pool
do not move together): then the newest one that does.

This is a tool for changing the pins, run by hand and reviewed with git
diff; nothing in setup or the tests runs it. It prints the lines; put them
in inputs.manifest in place of the system's old ones. What it resolves is
checked when the system is made: scripts/debian-system installs exactly
these packages and fails if dpkg then lists anything else.

The resolution is apt's, simplified: the packages asked for (and
usr-is-merged, where the release has it: debootstrap --merged-usr installs
it), the packages of priority `required` (what debootstrap's minbase
installs, with apt), and, repeatedly, for each Depends and Pre-Depends clause not yet met, its
first alternative that the archive has (a virtual package: its first
provider). Recommends are not followed.
"""

from __future__ import annotations

import lzma
import re
from functools import cmp_to_key

from ulidtools import debian_archive as fd
from ulidtools.base import ToolError, log


class PinError(ToolError):
    """What stops the pins from being written."""


def load(sources: list[tuple[str, str]], arch: str) -> dict[str, list[dict]]:
    """Every stanza of the suites' Packages indexes, by package name,
    newest first, each with the archive and suite it came from."""
    packages: dict[str, list[dict]] = {}
    for archive, suite in sources:
        url = f"{fd.mirror()}/{archive}/dists/{suite}/main/binary-{arch}/Packages.xz"
        log(f"reading {url}, as its suite's signed InRelease lists it")
        text = lzma.decompress(fd.verified_index(archive, suite, f"main/binary-{arch}/Packages.xz")).decode(
            "utf-8", "replace")
        for fields in fd.stanzas(text):
            fields["_archive"], fields["_suite"] = archive, suite
            packages.setdefault(fields["Package"], []).append(fields)
    for name, stanzas in packages.items():
        stanzas.sort(key=cmp_to_key(lambda a, b: fd.compare_versions(b["Version"], a["Version"])))
    return packages


def providers(packages: dict[str, list[dict]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for name, stanzas in sorted(packages.items()):
        for provided in re.split(r"\s*,\s*", stanzas[0].get("Provides", "")):
            if provided:
                found.setdefault(provided.split()[0], []).append(name)
    return found


def clauses(fields: dict) -> list[list[str]]:
    """The Pre-Depends and Depends of a stanza: a list of clauses, each a
    list of alternative package names."""
    result = []
    for key in ("Pre-Depends", "Depends"):
        for clause in filter(None, re.split(r"\s*,\s*", fields.get(key, "").replace("\n", " "))):
            result.append([alt.split()[0].split(":")[0] for alt in re.split(r"\s*\|\s*", clause)])
    return result


def resolve(packages, wanted: list[str]) -> list[str]:
    provided = providers(packages)
    chosen: set[str] = set()
    # what satisfies a name: the package itself, or anything chosen that provides it
    def satisfied(name: str) -> bool:
        return name in chosen or any(p in chosen for p in provided.get(name, []))

    def pick(alternatives: list[str]) -> str | None:
        for name in alternatives:
            if name in packages:
                return name
            if provided.get(name):
                return provided[name][0]
        return None

    # what was asked for first, so that its packages meet the clauses of
    # the others (usr-is-merged meets init-system-helpers' usrmerge |
    # usr-is-merged, as in a system debootstrap made)
    queue = [*wanted, "apt"] + [name for name, stanzas in sorted(packages.items())
                                if stanzas[0].get("Priority") == "required"]
    while queue:
        name = queue.pop(0)
        if name in chosen:
            continue
        if name not in packages:
            raise PinError(f"no package {name} in the suites given")
        chosen.add(name)
        for clause in clauses(packages[name][0]):
            if not any(satisfied(alt) for alt in clause):
                choice = pick(clause)
                if choice is None:
                    raise PinError(f"{name} needs one of {clause}, which no suite has")
                queue.append(choice)
    return sorted(chosen)


def pin(name: str, suites: str, wanted: list[str]) -> None:
    """Prints the `system NAME` lines of the packages WANTED (and what they
    need) from SUITES (ARCHIVE/SUITE,...), for NAME's architecture."""
    arch = name.partition("-")[2] or "amd64"
    sources = [tuple(s.split("/", 1)) for s in suites.split(",")]
    packages = load(sources, arch)
    # debootstrap --merged-usr installs it where the release has it
    if "usr-is-merged" in packages:
        wanted = ["usr-is-merged", *wanted]
    for package in resolve(packages, wanted):
        for fields in packages[package]:
            url = f"{fd.mirror()}/{fields['_archive']}/{fields['Filename']}"
            if fd.answers(url):
                break
            log(f"{package} {fields['Version']}: {url} does not answer")
        else:
            raise PinError(f"no file of {package} answers")
        print(f"system {name} {fields['_archive']} {fields['_suite']} {package} {fields['Version']} "
              f"{fields['Filename']} {fields['Size']} {fields['SHA256']}")
