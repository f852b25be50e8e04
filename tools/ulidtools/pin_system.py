"""Prints the inputs.manifest lines of a Debian system (scripts/pin-system), to replace its old ones: every package
debootstrap (minbase) and `apt-get install --no-install-recommends PACKAGE...` put into it, with the pool path, size
and sha256 of the archive's signed index today. NAME is the release, then the architecture when not amd64
(`bookworm-arm64`); SUITES are ARCHIVE/SUITE,... (`debian/bookworm,debian-security/bookworm-security`). The
resolution is apt's, simplified: the packages asked for, apt, usr-is-merged where the release has it, those of
priority `required`, then for each unmet Depends or Pre-Depends clause its first alternative (or first provider); no
Recommends. The newest version of the suites is taken or, when its file does not answer, the newest that does.
"""

from __future__ import annotations

import re

from ulidtools import debian_archive as fd
from ulidtools.base import ToolError, log


def load(sources: list[tuple[str, str]], arch: str) -> dict[str, list[dict]]:
    """The suites' Packages stanzas by package, newest first (with _archive, _suite)."""
    packages: dict[str, list[dict]] = {}
    index = f"main/binary-{arch}/Packages.xz"
    for archive, suite in sources:
        log(f"reading {fd.mirror()}/{archive}/dists/{suite}/{index}, as its suite's signed InRelease lists it")
        for fields in fd.stanzas(fd.verified_index(archive, suite, index)):
            fields["_archive"], fields["_suite"] = archive, suite
            packages.setdefault(fields["Package"], []).append(fields)
    return {name: fd.newest_first(stanzas, lambda fields: fields["Version"]) for name, stanzas in packages.items()}


def resolve(packages, wanted: list[str]) -> list[str]:
    provided: dict[str, list[str]] = {}  # the packages that provide a name
    for name, stanzas in sorted(packages.items()):
        for item in filter(None, re.split(r"\s*,\s*", stanzas[0].get("Provides", ""))):
            provided.setdefault(item.split()[0], []).append(name)
    chosen: set[str] = set()
    # what was asked for first: usr-is-merged then meets `usrmerge | usr-is-merged`
    queue = [*wanted, "apt"] + [name for name, stanzas in sorted(packages.items())
                                if stanzas[0].get("Priority") == "required"]
    while queue:
        name = queue.pop(0)
        if name in chosen:
            continue
        if name not in packages:
            raise ToolError(f"no package {name} in the suites given")
        chosen.add(name)
        depends = ", ".join(packages[name][0].get(key, "") for key in ("Pre-Depends", "Depends")).replace("\n", " ")
        for text in filter(None, re.split(r"\s*,\s*", depends)):
            clause = [alt.split()[0].split(":")[0] for alt in re.split(r"\s*\|\s*", text)]
            # unless a chosen package is or provides an alternative: the first there is, or its first provider
            if not any(alt in chosen or not chosen.isdisjoint(provided.get(alt, [])) for alt in clause):
                choice = next((alt if alt in packages else provided[alt][0] for alt in clause
                               if alt in packages or provided.get(alt)), None)
                if choice is None:
                    raise ToolError(f"{name} needs one of {clause}, which no suite has")
                queue.append(choice)
    return sorted(chosen)


def pin(name: str, suites: str, wanted: list[str]) -> None:
    packages = load([tuple(s.split("/", 1)) for s in suites.split(",")], name.partition("-")[2] or "amd64")
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
            raise ToolError(f"no file of {package} answers")
        print(f"system {name} {fields['_archive']} {fields['_suite']} {package} {fields['Version']} "
              f"{fields['Filename']} {fields['Size']} {fields['SHA256']}")
