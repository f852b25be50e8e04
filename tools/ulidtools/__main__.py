"""python3 -m ulidtools COMMAND ...: what the scripts ask of the tooling.

    manifest KIND [KEY]        each line of KIND (whose first field is KEY),
                               without its kind, one per line
    builds [FROM]              the builds' names (only those from FROM)
    build-field BUILD FIELD    major, version, from or port of a build
    cargo-field FIELD [TOML]   a [package] field of the extension's Cargo.toml
                               (or of TOML's), empty when it has none
    shell                      shell assignments scripts/lib.sh evaluates:
                               the extension's version (ULID_VERSION), its
                               pgrx (ULID_PGRX_VERSION), the command-line
                               tool's version (ULID_CLI_VERSION), cargo-pgrx's
                               (ULID_CARGO_PGRX_VERSION), the list of builds
                               and each build's fields (ULID_BUILD_PORT_18_assert)
    tables --write PAGE...     rewrite the pages' generated tables of builds and of what is tested where
    waves BUILD...             the builds in groups whose server tests can run
                               at the same time, a group a line, in the
                               order to run them (builds.waves)
    package-deb [--out DIR] ARCH NN|cli TREE
                               a Debian package of the extension for
                               PostgreSQL NN, or of the command-line tool,
                               from a release tarball's tree (deb)
    source-date-epoch          the time a release's files carry
    glibc-needed FILE          the newest glibc version an ELF file asks for
    strip FILE                 an ELF file stripped as dh_strip does
    package [--debug] [--arch ARCH] [--out DIR] BUILD|cli...
                               the tarball and .deb of artifacts (package)
    release [--out DIR] [--only MAJOR/ARCH,...] [--sign KEYFILE | --sign-key KEYID]
                               every file of a release (release)
    sign-release [--check] [--sign KEYFILE | --sign-key KEYID] [DIR]
                               a release's files signed (sign)
    stage-extension BUILD STAGE debug|release [ARCH]
                               the extension built and staged as cargo pgrx
                               package lays it out (package)
    test [BUILD...]            every test, as CI runs them (testrun)
    debian-system [-s NAME] [-r DIR] setup|run CMD...|root|clone DIR|serves MAJOR
                               a Debian system in a directory (debian_system)
    setup                      everything building and testing needs (setup)
    setup-go [--print-env]     Go and the pinned Go modules (setup_go)
    pypi-download PROJECT DIR  the wheel of a `pypi` line, checked, into DIR
                               (pypi); prints its path
    debian-binary packages|pins|release MAJOR
    debian-binary unpack ROOT MAJOR DEB...
                               a PostgreSQL build from Debian's binary
                               packages of another release (debian_binary)
    pgrx-env BUILD             pgrx's environment for BUILD, as export lines
    with-build-lock CHECKOUT COMMAND...
                               COMMAND run holding the cargo target
                               directory's build lock, claimed for CHECKOUT
                               (cargo_env)
"""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys

from pathlib import Path

from ulidtools.base import error
from ulidtools.manifest import ManifestError


# a build's fields as the scripts name them, and the record's attributes
FIELDS = {"major": "major", "version": "version", "from": "origin", "port": "port"}


def main(argv: list[str]) -> int:
    # (builds reads the manifest when imported: inside main, its errors are
    # reported as errors)
    from ulidtools import builds, cargo_env, manifest, project, tested

    command, *args = argv or ["--help"]
    if command in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if command == "manifest" and 1 <= len(args) <= 2:
        for record in manifest.of_kind(args[0]):
            if len(args) == 1 or record.text.split()[1] == args[1]:
                print(record.rest())
    elif command == "builds" and len(args) <= 1:
        for build in builds.BUILDS.values():
            if not args or build.origin == args[0]:
                print(build.name)
    elif command == "build-field" and len(args) == 2:
        name, wanted = args
        attribute = FIELDS.get(wanted)
        if attribute is None:
            raise ManifestError(f"build-field: no field {wanted}")
        print(getattr(builds.build_of(name), attribute))
    elif command == "shell" and not args:
        values = {
            "ULID_VERSION": project.VERSION,
            "ULID_PGRX_VERSION": project.PGRX,
            "ULID_CLI_VERSION": project.CLI_VERSION,
            "ULID_CARGO_PGRX_VERSION": manifest.one("crate", "cargo-pgrx").version,
            "ULID_BUILDS": " ".join(builds.BUILDS),
        }
        for build in builds.BUILDS.values():
            for field, value in FIELDS.items():
                values[f"ULID_BUILD_{field.upper()}_{build.name.replace('-', '_')}"] = getattr(build, value)
        for name, value in values.items():
            print(f"{name}={shlex.quote(str(value))}")
    elif command == "waves" and args:
        for group in builds.waves(args):
            print(" ".join(group))
    elif command == "cargo-field" and 1 <= len(args) <= 2:
        print(project.field(args[0], *(Path(a) for a in args[1:])))
    elif command == "tables" and args[:1] == ["--write"] and len(args) > 1:
        tested.write_tables(args[1:])
    elif command in ("package-deb", "source-date-epoch", "glibc-needed", "strip"):
        from ulidtools import deb

        try:
            if command == "package-deb":
                return deb.main(args)
            if command == "source-date-epoch" and not args:
                print(deb.source_date_epoch())
            elif command == "glibc-needed" and len(args) == 1:
                print(deb.glibc_needed(Path(args[0])))
            elif command == "strip" and len(args) == 1:
                deb.strip_library(Path(args[0]))
            else:
                print(f"ulidtools: cannot do: {' '.join(argv)}", file=sys.stderr)
                return 2
        except (deb.PackageError, subprocess.CalledProcessError) as failure:
            error(str(failure))
            return 1
    elif command == "test":
        from ulidtools import testrun

        return testrun.main(args)
    elif command == "debian-system":
        from ulidtools import debian_system

        return debian_system.main(args)
    elif command == "setup":
        from ulidtools import setup

        return setup.main(args)
    elif command == "setup-go":
        from ulidtools import setup_go

        return setup_go.main(args)
    elif command == "pypi-download":
        from ulidtools import pypi

        return pypi.main(args)
    elif command == "debian-binary":
        from ulidtools import debian_binary

        return debian_binary.main(args)
    elif command in BUILDING:
        from ulidtools import deb, package, release, sign

        try:
            if command == "package":
                return package.main(args)
            if command == "release":
                return release.main(args)
            if command == "sign-release":
                return sign.main(args)
            if command == "stage-extension" and len(args) in (3, 4):
                package.stage_extension(args[0], Path(args[1]).absolute(), *args[2:])
            else:
                return cargo_env.main(command, args)
        except (cargo_env.BuildError, deb.PackageError, sign.SignError, subprocess.CalledProcessError) as failure:
            error(str(failure))
            return 1
    else:
        print(f"ulidtools: cannot do: {' '.join(argv)}\n\n{__doc__.strip()}", file=sys.stderr)
        return 2
    return 0


# what builds and packages (package, release, sign, cargo_env)
BUILDING = ("package", "release", "sign-release", "stage-extension", "pgrx-env", "with-build-lock")


if __name__ == "__main__":
    # a reader that stops early (`| head`) ends this quietly, as it would awk
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        sys.exit(main(sys.argv[1:]))
    except (ManifestError, ValueError) as failure:
        error(str(failure))
        sys.exit(1)
