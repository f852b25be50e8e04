"""python3 -m ulidtools COMMAND ...: the commands the scripts in scripts/ run, each declared once in `parser`. A
command line it cannot read exits with status 2; what stops a command is printed as the error line, with status 1."""

from __future__ import annotations

import argparse
import ast
import importlib
import shlex
import signal
import subprocess
import sys
from pathlib import Path

from ulidtools import base
from ulidtools.base import ROOT, ToolError

class Parser(argparse.ArgumentParser):
    """Errors printed as every other error; help ending with MODULE's docstring."""

    def __init__(self, *args, module: str | None = None, **kwargs) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self.module = module

    def format_help(self) -> str:
        text = super().format_help()
        if self.module:
            source = (Path(__file__).parent / f"{self.module}.py").read_text()
            text += f"\ntools/ulidtools/{self.module}.py:\n\n{ast.get_docstring(ast.parse(source))}\n"
        return text

    def error(self, message: str) -> None:
        self.print_usage(sys.stderr)
        base.error(f"{self.prog}: {message}")
        sys.exit(2)


# What each command does, given the module its help shows (imported as it runs: its import errors are error lines)


def call(function: str, *names: str, show: bool = False):
    """A command that calls FUNCTION of its module with the arguments NAMES; with SHOW, printing what it returns."""

    def run(module, args) -> None:
        result = getattr(module, function)(*(getattr(args, name) for name in names))
        if show:
            print(result)

    return run


def _absolute(text: str) -> Path:
    return Path(text).absolute()


def _shell(_, args) -> None:
    from ulidtools import builds, cargo_env

    values = {"ULID_TOOL_DIRS": ":".join(str(d) for d in cargo_env.tool_dirs()),
              "CARGO_PGRX": cargo_env.crate_bin("cargo-pgrx") / "cargo-pgrx",
              "ULID_ALL_BUILDS": " ".join(builds.BUILDS)}
    for name, value in values.items():
        print(f"{name}={shlex.quote(str(value))}")


def _waves(builds, args) -> None:
    for group in builds.waves(args.builds):
        print(" ".join(group))


def _release(release, args) -> None:
    release.make(args.out, args.only, release.sign.Key(args.sign, args.sign_key))


def _debian_system(debian_systems, args) -> int | None:
    system = debian_systems.System(args.system, args.root)
    if args.action == "setup":
        system.setup()
    elif args.action == "run":
        return system.run([args.program, *args.arguments]).returncode
    elif args.action == "root":
        print(system.system)
    elif args.action == "clone":
        system.clone(args.directory)


def _setup_go(setup_go, args) -> None:
    if args.print_env:
        print(setup_go.print_env(), end="")
    else:
        setup_go.install()


def _build_dir(builds, args) -> None:
    print(getattr(builds.build_of(args.build), args.which))


def _cluster(clusters, args) -> None:
    cluster = clusters.Cluster(args.build, args.name, getattr(args, "slot", 0))
    if args.action == "start":
        settings = {}
        for setting in args.settings:
            key, equals, value = setting.partition("=")
            if not equals or not key:
                args.parser.error(f"{setting} is not SETTING=VALUE")
            settings[key] = value
        cluster.start(**settings)
    elif args.action == "stop":
        cluster.stop(args.mode)
    elif args.action == "destroy":
        cluster.destroy()
    elif args.action == "env":
        if not (cluster.dir / "ulid.conf").is_file():
            raise ToolError(f"there is no cluster {args.name} of PostgreSQL {args.build} in {cluster.root}")
        # the port it was started on
        conf = (cluster.dir / "ulid.conf").read_text().splitlines()
        cluster.port = int(next(line.split("=")[1] for line in conf if line.startswith("port =")))
        print(cluster.exports(), end="")
    elif args.action == "dir":
        print(cluster.dir)


def _fetch_debian(debian_archive, args) -> None:
    if args.check:
        debian_archive.fetch_named(args.names, None)
    elif not args.names:
        args.parser.error("name the directory to download into, then the files (or --check)")
    else:
        debian_archive.fetch_named(args.names[1:], Path(args.names[0]), lambda path: print(path, flush=True))


def parser() -> Parser:
    top = Parser(prog="python3 -m ulidtools", description="The commands of the project's tooling, which the "
                 "scripts in scripts/ run; `python3 -m ulidtools COMMAND --help` tells one.")
    commands = top.add_subparsers(title="commands", metavar="COMMAND", required=True)

    def action(actions, name: str, summary: str, *plain: str, description: str | None = None, **defaults) -> Parser:
        """A command (with DEFAULTS run and module) or an action; PLAIN: its first arguments, shown in capitals."""
        a = actions.add_parser(name, help=summary, description=description or summary, module=defaults.get("module"))
        a.set_defaults(parser=a, **defaults)
        for dest in plain:
            a.add_argument(dest, metavar=dest.upper())
        return a

    def command(name: str, run, summary: str, module: str | None = None, *plain: str) -> Parser:
        return action(commands, name, summary, *plain, run=run, module=module)

    c = command("cargo-field", call("field", "field", "toml", show=True), "a [package] field of the "
                "extension's Cargo.toml (or of TOML's), empty when it has none", "project", "field")
    c.add_argument("toml", metavar="TOML", nargs="?", type=Path, default=ROOT / "Cargo.toml")
    command("shell", _shell, "the shell assignments scripts/lib.sh evaluates: the builds (ULID_ALL_BUILDS), "
            "the directories of the builds' tools, first in PATH (ULID_TOOL_DIRS), and cargo-pgrx (CARGO_PGRX)")
    c = command("tables", call("write_tables", "write"), "the pages' generated tables of builds and of "
                "what is tested where, written again", "tested")
    c.add_argument("--write", metavar="PAGE", nargs="+", required=True)
    c = command("waves", _waves, "the builds in groups whose server tests can run at the same time, a group "
                "a line, in the order to run them (builds.waves)", "builds")
    c.add_argument("builds", metavar="BUILD", nargs="+")

    c = command("package-deb", call("make", "out", "arch", "what", "tree"), "a Debian package of the extension "
                "for PostgreSQL NN, or of the command-line tool (cli), from a release tarball's tree", "debian_package",
                "arch")
    c.add_argument("--out", metavar="DIR", type=_absolute, default=ROOT / "dist")
    c.add_argument("what", metavar="NN|cli")
    c.add_argument("tree", metavar="TREE", type=Path)
    c = command("package", call("make_all", "what", "arch", "profile", "out"), "the tarball and the "
                "Debian package of each artifact: a build's extension, or the command-line tool (cli)", "package")
    c.add_argument("--debug", dest="profile", action="store_const", const="debug", default="release",
                   help="a debug build, linked as this machine links, for the tests: never a release artifact")
    c.add_argument("--arch", metavar="ARCH", default="amd64", help="amd64 (the default) or arm64")
    c.add_argument("--out", metavar="DIR", type=_absolute, default=ROOT / "dist", help="where (dist/ unless given)")
    c.add_argument("what", metavar="BUILD|cli", nargs="+")
    c = command("release", _release, "every file of a release", "release")
    c.add_argument("--out", metavar="DIR", type=_absolute, default=ROOT / "dist", help="where (dist/ unless given)")
    c.add_argument("--only", metavar="MAJOR/ARCH,...", help="only these (15/amd64,15/arm64: the tests make a "
                   "few, not all)")
    key = c.add_mutually_exclusive_group()
    key.add_argument("--sign", metavar="KEYFILE", help="an OpenPGP secret key (armored or binary) to sign with, "
                     "from a GnuPG home made for this run and removed with it")
    key.add_argument("--sign-key", metavar="KEYID", help="a secret key in the keyring or agent of the GnuPG "
                     "home gpg uses (GNUPGHOME, ~/.gnupg)")
    c = command("release-check", call("check", "out", "all"), "a release's files to check (tests/release) and "
                "throw away, signed by a key made for this run and removed with it: those CI installs, unless --all",
                "release")
    c.add_argument("--out", metavar="DIR", type=_absolute, default=ROOT / "target" / "release-check",
                   help="where (target/release-check unless given)")
    c.add_argument("--all", action="store_true", help="every file of a release, not only those CI installs "
                   "(13 and 15 for amd64, and the command-line tool)")
    c = command("sign-release", call("main", "directory", "sign", "sign_key", "release_key", "check", "verify",
                                     "fingerprint", "only_listed", "release_files", "renew_apt"),
                "a release's files signed, or checked against the release key", "sign")
    c.add_argument("--check", action="store_true", help="only try the key, on a line of text")
    key = c.add_mutually_exclusive_group()
    key.add_argument("--sign", metavar="KEYFILE", help="an OpenPGP secret key file")
    key.add_argument("--sign-key", metavar="KEYID", help="a secret key of the keyring gpg uses")
    key.add_argument("--release-key", action="store_true", help="the key of that keyring whose fingerprint "
                     "release-key.fingerprint commits, and no other")
    c.add_argument("--verify", action="store_true", help="check the signed release in DIR against the "
                   "committed fingerprint")
    c.add_argument("--fingerprint", action="store_true", help="print the committed fingerprint")
    c.add_argument("--only-listed", action="store_true", help="refuse a file of DIR that SHA256SUMS does not "
                   "list, and a listed file whose sha256 differs (before signing)")
    c.add_argument("--release-files", action="store_true", help="print the files of the GitHub release, a line "
                   "each: those SHA256SUMS lists, SHA256SUMS, its signature and the public key")
    c.add_argument("--renew-apt", action="store_true", help="sign the apt repository DIR/apt again, valid for "
                   "a year from now, its packages and indexes unchanged (with a key option)")
    c.add_argument("directory", metavar="DIR", nargs="?", type=Path)
    c = command("install", call("install", "build", "profile"), "the extension built and installed into "
                "BUILD's PostgreSQL", "package", "build")
    c.add_argument("--release", dest="profile", action="store_const", const="release", default="debug",
                   help="a release build (debug unless given)")
    command("build-release", call("build", "version", "build", show=True), "an earlier release built from its "
            "commit for BUILD; prints the directory its files are staged in", "earlier_releases", "version", "build")
    c = command("build-dir", _build_dir, "where BUILD keeps what WHICH names: its pg_config, its programs "
                "(bindir), extension libraries (pkglibdir) or extension scripts (extdir)", "builds", "build")
    c.add_argument("which", metavar="WHICH", choices=("pg_config", "bindir", "pkglibdir", "extdir"))
    c = command("cluster-port", call("cluster_port", "build", "slot", show=True), "the port of BUILD's "
                "private cluster in SLOT (0 unless given)", "builds", "build")
    c.add_argument("slot", metavar="SLOT", type=int, nargs="?", default=0)
    c = command("cluster", _cluster, "a private PostgreSQL cluster: its own data directory, port and socket",
                "clusters")
    actions = c.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = action(actions, "start", "start it (made first when there is none), on the port of SLOT, with the "
               "settings given", "build", "name")
    a.add_argument("--slot", metavar="SLOT", type=int, default=0, help="its port's slot (0 unless given)")
    a.add_argument("settings", metavar="SETTING=VALUE", nargs="*")
    a = action(actions, "stop", "stop it", "build", "name")
    a.add_argument("mode", metavar="MODE", nargs="?", default="fast", choices=("smart", "fast", "immediate"))
    action(actions, "destroy", "stop it at once and remove its data", "build", "name")
    action(actions, "env", "the shell exports that reach it: PGHOST, PGPORT, PGUSER, PGDATABASE and its PATH",
           "build", "name")
    action(actions, "dir", "its data directory", "build", "name")

    c = command("test", call("main", "builds", "prepare"), "every test, as CI runs them, on the builds "
                "named (every build unless named)", "testrun")
    c.add_argument("--prepare", metavar="LINT,...", help=argparse.SUPPRESS)
    c.add_argument("builds", metavar="BUILD", nargs="*")
    command("setup", call("main"), "everything building and testing needs, installed where it is not", "setup")
    c = command("setup-go", _setup_go, "Go and the pinned Go modules, installed where they are not", "setup_go")
    c.add_argument("--print-env", action="store_true", help="print the environment to build with, as export "
                   "lines; fail, installing nothing, when something is missing")
    c = command("fetch-debian", _fetch_debian, "files of Debian's archive as inputs.manifest pins them, downloaded "
                "into DIR and verified, each path printed; or, with --check, only checked to answer", "debian_archive")
    c.add_argument("--check", action="store_true", help="download nothing: check that each file answers")
    c.add_argument("names", metavar="DIR PACKAGE", nargs="*", help="the directory (not with --check), then "
                   "each file's name: PACKAGE, KIND:PACKAGE, PACKAGE:ARCH, PACKAGE/SUITE")
    c = command("pin-system", call("pin", "name", "suites", "packages"), "the inputs.manifest lines of a Debian "
                "system, resolved from the archive's index today (run by hand to change the pins)", "pin_system",
                "name")
    c.add_argument("suites", metavar="SUITE[,SUITE...]")
    c.add_argument("packages", metavar="PACKAGE", nargs="+")
    c = command("debian-system", _debian_system, "a Debian system in a directory, made from the pinned "
                "packages; a command run in it, or in a copy", "debian_systems")
    c.add_argument("-s", dest="system", metavar="NAME", default="sid", help="the system (sid unless given)")
    c.add_argument("-r", dest="root", metavar="DIR", help="a copy of it in DIR (clone), for run")
    actions = c.add_subparsers(dest="action", metavar="ACTION", required=True)
    action(actions, "setup", "make it (once; again when a pin changes)")
    a = action(actions, "run", "run COMMAND as root inside it",
               description="run COMMAND as root inside it; its status is the command's")
    a.add_argument("program", metavar="COMMAND")
    a.add_argument("arguments", metavar="ARGUMENT", nargs=argparse.REMAINDER, help="its arguments")
    action(actions, "root", "print the directory it is in")
    a = action(actions, "clone", "copy it to DIR (a system to change and throw away)")
    a.add_argument("directory", metavar="DIR")
    return top


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        module = importlib.import_module(f"ulidtools.{args.module}") if args.module else None
        status = args.run(module, args)
    except (ToolError, ValueError, OSError, subprocess.CalledProcessError) as failure:
        base.error(str(failure))
        return 1
    return status or 0


def command() -> None:
    """`python3 -m ulidtools`, and the virtualenv's `ulidtools` (pyproject.toml)."""
    # a reader that stops early (`| head`) ends this quietly, as it would awk
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    command()
