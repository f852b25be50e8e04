"""Prints the inputs.manifest lines of a Debian system (scripts/pin-system):
every package debootstrap (minbase) and `apt-get install
--no-install-recommends PACKAGE...` put into it, with the pool path, size and
sha256 of the archive's signed index today. Run by hand to change the pins,
in place of the system's old lines; scripts/debian-system then installs
exactly these packages.

NAME is the release, then the architecture when not amd64 (`bookworm-arm64`);
SUITES are ARCHIVE/SUITE,... (`debian/bookworm,debian-security/bookworm-security`).
The resolution is apt's, simplified: the packages asked for, apt, usr-is-merged
where the release has it, those of priority `required`, then for each unmet
Depends or Pre-Depends clause its first alternative (or first provider); no
Recommends. The newest version of the suites is taken or, when its file does
not answer, the newest one that does.
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
    """The suites' Packages stanzas by package, newest first (with _archive, _suite)."""
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
    """A stanza's Pre-Depends and Depends clauses, each its alternatives' names."""
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

    # what was asked for first: usr-is-merged then meets `usrmerge | usr-is-merged`
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
    """Prints the `system NAME` lines of WANTED and what they need, from SUITES."""
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
