"""The install pages' commands, run as written: docs/install.md's, the
README's Install section's (the same commands, which a test here checks)
and docs/cli.md's Install section's.

- docs/install.md, "Making the files yourself": the page's `gpg` and
  `scripts/release` lines run here, on this machine (which `scripts/setup`,
  the block's first line, has set up for the run), with the page's
  directory (/srv/ulid-release) in a temporary one and a GnuPG home of
  the test's own; the files are those `--only` names, signed by that key;
- "Verifying a release": its lines in a copy of those files, with a fresh
  GnuPG home, and again after a file and after `SHA256SUMS` were changed,
  which they must refuse;
- "The apt repository", "Debian packages" and "Release tarballs", each in
  a clean copy of Debian 12 (scripts/debian-system's `bookworm`) that holds
  the files at the page's directory, as root (apt answering its own
  question, as a user at a terminal would), then "Creating the extension"
  on a cluster made there: the extension of this build, installed;
- docs/cli.md: `cargo install` and the man page and completions block on
  this machine (in a home of the test's own, the program installed into a
  directory of the test's, cargo's cache shared), the package and the
  tarball of the tool from the files made above in Debian 12, and the
  change from 0.4.0's package `ulid-cli` (a stand-in here: a package of
  that name that installs /usr/bin/ulid, as 0.4.0's did) with the apt
  repository added.

The commands run as written, with no version put into them: the files
are those `scripts/release` makes from the clone, named with its version,
so the pages match their names with `*` (a release file name with a
version written in it would name no file here, and fails;
tests/docs/test_pages_true.py also refuses one that is not the tree's).
A last check: every `sh` block of those sections is one that a test here
(or tests/release/test_from_source.py, the from-source commands) runs.

Once per run (scripts/test names this file beside the release's other
checks): a release build for 15 and the tool (cached after the release's
own), three copies of Debian 12 and the tool compiled by `cargo install`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ulidtools.debian_servers import System, run_captured
from harness.pages import fenced_blocks, section_blocks
from harness.pgcluster import ROOT, cluster_port
from ulidtools.cargo_env import cargo_target
from ulidtools.project import CLI_VERSION, VERSION
from ulidtools.sign import fingerprints_of

pytestmark = pytest.mark.once_per_run

INSTALL = ROOT / "docs" / "install.md"
README = ROOT / "README.md"
CLI = ROOT / "docs" / "cli.md"
# where the pages make the files and install them from
DIR = "/srv/ulid-release"
# each a port of its own, among the 15 build's slots
PORTS = {"apt": cluster_port("15", 36), "deb": cluster_port("15", 37), "tarball": cluster_port("15", 39)}


def deb_version(version: str) -> str:
    """A Cargo pre-release 0.2.0-rc.1 is Debian's 0.2.0~rc.1 (package-deb)."""
    return version.replace("-", "~")


def block(page: Path, heading: str, index: int = 0) -> str:
    return section_blocks(page, heading, "sh")[index]


def commands(text: str) -> list[str]:
    """A block's command lines: without blank lines and whole-line comments."""
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def script(text: str) -> str:
    """A block as a script that stops at the first command that fails."""
    return "set -e\n" + "\n".join(commands(text)) + "\n"


# --- the README gives the install page's commands ---------------------------

README_MADE = "A release's files, made yourself"


@pytest.mark.parametrize("readme, install", [
    ((README_MADE, 0), ("Making the files yourself", 0)),
    ((README_MADE, 1), ("Debian packages", 0)),
    ((README_MADE, 2), ("Release tarballs", 0)),
    (("Then, in each database", 0), ("Creating the extension", 0)),
], ids=["make", "deb", "tarball", "create"])
def test_the_readme_gives_the_install_page_commands(readme, install):
    assert commands(block(README, *readme)) == commands(block(INSTALL, *install))


# sections whose `sh` blocks the tests here run (by the heading they are
# under), and those test_from_source.py runs
RUN_HERE = {
    INSTALL: {"Making the files yourself", "Verifying a release", "The apt repository", "Debian packages",
              "Release tarballs", "Creating the extension"},
    CLI: {"Install"},
}
FROM_SOURCE = "From source"


def sh_blocks_by_heading(page: Path) -> list[tuple[str, str]]:
    """Every `sh` block of PAGE with the heading it is under."""
    lines = page.read_text().split("\n")
    fenced = fenced_blocks(lines, page.name)
    found, heading, i = [], "", 0
    while i < len(lines):
        if i in fenced:
            if fenced[i].info == "sh":
                found.append((heading, "\n".join(fenced[i].body(lines))))
            i = fenced[i].end + 1
            continue
        title = re.match(r"^#{1,6}\s+(.*?)\s*$", lines[i])
        if title:
            heading = title.group(1)
        i += 1
    return found


def test_every_install_command_block_is_run():
    """Every `sh` block of docs/install.md, of the README's Install section
    and of docs/cli.md's Install section is one that a test runs: a block
    added to those pages without a test fails here."""
    unrun = [(name, heading) for name, heading, _ in (
        [(INSTALL.name, h, b) for h, b in sh_blocks_by_heading(INSTALL)]
        + [(CLI.name, h, b) for h, b in sh_blocks_by_heading(CLI) if h == "Install"])
        if heading not in RUN_HERE.get(ROOT / "docs" / name, set()) and not heading.startswith(FROM_SOURCE)]
    assert not unrun, unrun
    # the README's Install section: the blocks compared above, and the
    # from-source commands (test_from_source.py)
    readme = section_blocks(README, "Install", "sh")
    compared = [block(README, README_MADE, i) for i in range(3)] + [block(README, "Then, in each database")]
    from_source = section_blocks(README, FROM_SOURCE, "sh", prefix=True)[0]
    assert sorted(readme) == sorted(compared + [from_source]), readme
    # and the cli page's blocks, each run by a test below
    assert len(section_blocks(CLI, "Install", "sh")) == 4


# --- making the files, and verifying them ----------------------------------

@pytest.fixture(scope="module")
def gnupg(tmp_path_factory):
    """A GnuPG home for the page's key (the user's ~/.gnupg), its agent
    stopped afterwards."""
    home = tmp_path_factory.mktemp("gnupg")
    home.chmod(0o700)
    yield home
    subprocess.run(["gpgconf", "--homedir", str(home), "--kill", "all"], capture_output=True)


@pytest.fixture(scope="module")
def made(tmp_path_factory, gnupg) -> Path:
    """The files, made by the page's commands."""
    lines = commands(block(INSTALL, "Making the files yourself"))
    # what CI runs before the tests (.ci/run), and scripts/test itself
    assert lines[0] == "scripts/setup", lines
    out = tmp_path_factory.mktemp("made") / "ulid-release"
    text = "\n".join(lines[1:])
    assert DIR in text and "scripts/release" in text, text
    done = subprocess.run(["bash", "-c", "set -e\n" + text.replace(DIR, str(out))], cwd=ROOT,
                          env={**os.environ, "GNUPGHOME": str(gnupg)}, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-6000:]
    return out


def test_the_page_makes_the_files_it_names_signed(made, gnupg):
    names = {p.name for p in made.iterdir()}
    deb = deb_version(VERSION)
    assert {f"postgresql-15-ulid_{deb}-1_amd64.deb", f"ulid-{VERSION}-pg15-linux-x86_64.tar.gz",
            f"ulid-tool_{deb_version(CLI_VERSION)}-1_amd64.deb", f"ulid-tool-{CLI_VERSION}-linux-x86_64.tar.gz",
            "ulid_portable.sql", "SHA256SUMS", "SHA256SUMS.asc", "ulid-release-key.asc", "apt"} <= names, names
    # --only: nothing else
    assert not [n for n in names if re.search(r"pg1[346789]|arm64|aarch64", n)], names
    # signed by the page's key, whose public part is beside the files
    keys = subprocess.run(["gpg", "--homedir", str(gnupg), "--with-colons", "--list-secret-keys"],
                          capture_output=True, text=True, check=True).stdout
    mine = re.search(r"^fpr:+([0-9A-F]{40}):", keys, re.M).group(1)
    assert fingerprints_of(made / "ulid-release-key.asc") == [mine]
    assert fingerprints_of(made / "apt" / "ulid-archive-keyring.gpg") == [mine]
    assert (made / "apt" / "dists" / "stable" / "InRelease").is_file()


def verify(directory: Path, home: Path) -> subprocess.CompletedProcess:
    home.mkdir(mode=0o700)
    try:
        return subprocess.run(["sh", "-c", script(block(INSTALL, "Verifying a release"))], cwd=directory,
                              env={**os.environ, "GNUPGHOME": str(home), "LC_ALL": "C"},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    finally:
        subprocess.run(["gpgconf", "--homedir", str(home), "--kill", "all"], capture_output=True)


def test_the_verifying_commands(made, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(made, copy)
    done = verify(copy, tmp_path / "home")
    assert done.returncode == 0, done.stdout
    fingerprint = fingerprints_of(made / "ulid-release-key.asc")[0]
    assert fingerprint in done.stdout and "Good signature" in done.stdout, done.stdout
    listed = (made / "SHA256SUMS").read_text().splitlines()
    assert len(re.findall(r": OK$", done.stdout, re.M)) == len(listed) >= 5, done.stdout

    # a file changed after it was signed: sha256sum says so, and fails
    tarball = next(copy.glob("ulid-*-pg15-linux-x86_64.tar.gz"))
    tarball.write_bytes(tarball.read_bytes() + b"\0")
    done = verify(copy, tmp_path / "home-file")
    assert done.returncode != 0 and f"{tarball.name}: FAILED" in done.stdout, done.stdout
    # SHA256SUMS changed to match: its signature no longer does
    sums = copy / "SHA256SUMS"
    sums.write_text(sums.read_text() + "0" * 64 + "  another-file\n")
    done = verify(copy, tmp_path / "home-sums")
    assert done.returncode != 0 and "BAD signature" in done.stdout, done.stdout


# --- installing them in Debian 12 -------------------------------------------

@pytest.fixture
def debian(tmp_path_factory, made):
    """Clean copies of Debian 12, each holding the files at the page's
    directory, with apt answering its own question."""
    systems = []

    def make(name: str) -> System:
        system = System.clone("bookworm", "15", tmp_path_factory.mktemp(name) / "root")
        systems.append(system)
        system.here("/etc/apt/apt.conf.d/90yes").write_text('APT::Get::Assume-Yes "true";\n')
        system("sh", "-c", "echo 'debconf debconf/frontend select Noninteractive' | debconf-set-selections")
        shutil.copytree(made, system.here(DIR))
        return system

    yield make
    for system in systems:
        system.discard()


def in_system(system: System, text: str, cwd: str = DIR, port: int | None = None) -> str:
    """A page's block run in SYSTEM, as root, in CWD; psql reaches the
    cluster on PORT as postgres. Returns what it printed."""
    system.here("/tmp/page.sh").write_text(script(text))
    env = f"PGPORT={port} PGUSER=postgres " if port else ""
    done = system("sh", "-c", f"cd {cwd} && {env}sh /tmp/page.sh 2>&1", check=False)
    assert done.returncode == 0, f"the page's commands failed:\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def create_the_extension(system: System, name: str) -> None:
    """A cluster made the Debian way, a database `app`, and the page's
    command that creates the extension in it: this build's."""
    server = system.create_cluster("main", PORTS[name])
    server.create_database("app", extension=False)
    in_system(system, block(INSTALL, "Creating the extension"), "/", PORTS[name])
    with server.connect("app") as conn:
        assert conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() == (VERSION,)
        assert conn.execute("SELECT ulid_timestamp(gen_ulid('2025-01-01 00:00:00+00'))::text").fetchone() \
            == ("2025-01-01 00:00:00+00",)


def package_status(system: System, package: str) -> str:
    return system("dpkg-query", "-W", "-f", "${db:Status-Abbrev}${Version}", package, check=False).stdout.strip()


def test_the_apt_repository_from_a_local_path(debian):
    system = debian("apt")
    said = in_system(system, block(INSTALL, "The apt repository"), "/")
    # (apt's own note that a chroot has no /dev/pts is no error)
    assert not re.search(r"^(W|E): (?!Can not write log \(Is /dev/pts mounted\?\))", said, re.M), said
    assert package_status(system, "postgresql-15-ulid") == f"ii {deb_version(VERSION)}-1"
    policy = system("apt-cache", "policy", "postgresql-15-ulid").stdout
    assert f"file:{DIR}/apt stable/main amd64 Packages" in policy, policy
    create_the_extension(system, "apt")

    # the tool's page: from 0.4.0's package ulid-cli (a stand-in of that
    # name that installs /usr/bin/ulid) to ulid-tool, from the repository
    stand_in = system.here("/tmp/ulid-cli")
    (stand_in / "DEBIAN").mkdir(parents=True)
    (stand_in / "DEBIAN" / "control").write_text(
        "Package: ulid-cli\nVersion: 0.4.0-1\nArchitecture: amd64\nMaintainer: ulid maintainers "
        "<maintainers@ulid.invalid>\nDescription: stand-in for 0.4.0's ulid-cli\n")
    (stand_in / "usr" / "bin").mkdir(parents=True)
    (stand_in / "usr" / "bin" / "ulid").write_text("#!/bin/sh\necho 0.4.0\n")
    (stand_in / "usr" / "bin" / "ulid").chmod(0o755)
    run_captured("dpkg-deb", "--root-owner-group", "-b", stand_in, system.here("/tmp/ulid-cli.deb"))
    system("dpkg", "-i", "/tmp/ulid-cli.deb")
    assert package_status(system, "ulid-cli") == "ii 0.4.0-1"
    in_system(system, block(CLI, "Install", 3), "/")
    assert not package_status(system, "ulid-cli").startswith("ii") and not system.here("/usr/bin/ulid").exists()
    assert package_status(system, "ulid-tool") == f"ii {deb_version(CLI_VERSION)}-1"
    assert system("ulid-tool", "--version").stdout == f"ulid-tool {CLI_VERSION}\n"


def test_the_debian_package_as_a_file(debian):
    system = debian("deb")
    in_system(system, block(INSTALL, "Debian packages"))
    assert package_status(system, "postgresql-15-ulid") == f"ii {deb_version(VERSION)}-1"
    # it brought Debian's own server with it
    assert package_status(system, "postgresql-15").startswith("ii ")
    create_the_extension(system, "deb")


def test_the_tarball(debian):
    system = debian("tarball")
    # the server the user already runs
    system(*System.APT, "install", "-y", "--no-install-recommends", "postgresql-15")
    said = in_system(system, block(INSTALL, "Release tarballs"))
    assert "installed ulid into /usr/lib/postgresql/15/lib" in said, said
    assert package_status(system, "postgresql-15-ulid") == ""
    assert system.here("/usr/lib/postgresql/15/lib/ulid.so").is_file()
    create_the_extension(system, "tarball")


def test_the_tool_from_its_files(debian):
    system = debian("tool")
    said = in_system(system, block(CLI, "Install", 2))
    assert package_status(system, "ulid-tool") == f"ii {deb_version(CLI_VERSION)}-1", said
    assert system("ulid-tool", "bounds", "2025-01-01T00:00:00Z").stdout == "01JGFJJZ000000000000000000\n"
    assert system.here("/usr/share/man/man1/ulid-tool.1.gz").is_file()
    unpacked = system.here(f"{DIR}/ulid-tool-{CLI_VERSION}-linux-x86_64")
    assert {p.name for p in unpacked.iterdir()} >= {"ulid-tool", "ulid-tool.1", "completions"}
    assert system(f"{DIR}/ulid-tool-{CLI_VERSION}-linux-x86_64/ulid-tool", "--version").stdout \
        == f"ulid-tool {CLI_VERSION}\n"


# --- the tool built with cargo ----------------------------------------------

def test_the_tool_with_cargo_install(tmp_path):
    """`cargo install` as the page gives it, then its man page and
    completions block, in a home of the test's own. The program goes into
    a directory of the test's (CARGO_INSTALL_ROOT) rather than the
    machine's ~/.cargo/bin; cargo's cache is the machine's (CARGO_HOME), so
    that nothing is downloaded again, and what it compiles is kept for the
    next run in a directory of its own under the build's target."""
    home = tmp_path / "home"
    home.mkdir()
    root = tmp_path / "cargo-root"
    env = {**os.environ, "HOME": str(home), "CARGO_INSTALL_ROOT": str(root),
           "CARGO_TARGET_DIR": str(cargo_target() / "install-pages"),
           "CARGO_HOME": os.environ.get("CARGO_HOME") or str(Path.home() / ".cargo")}
    built = subprocess.run(["sh", "-c", script(block(CLI, "Install", 0))], cwd=ROOT, env=env,
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-6000:]
    program = root / "bin" / "ulid-tool"
    assert subprocess.run([str(program), "--version"], capture_output=True, text=True,
                          check=True).stdout == f"ulid-tool {CLI_VERSION}\n"

    env["PATH"] = f"{root / 'bin'}:{env['PATH']}"
    written = subprocess.run(["sh", "-c", script(block(CLI, "Install", 1))], cwd=home, env=env,
                             capture_output=True, text=True)
    assert written.returncode == 0, written.stderr
    man = (home / ".local/share/man/man1/ulid-tool.1").read_text()
    assert man.startswith(".ie") or ".TH ulid-tool" in man, man[:200]
    bash = (home / ".local/share/bash-completion/completions/ulid-tool").read_text()
    assert re.search(r"^\s*complete -F \w+ .*ulid-tool$", bash, re.M), bash[-300:]
    assert (home / ".zfunc/_ulid-tool").read_text().startswith("#compdef ulid-tool")
    assert "complete -c ulid-tool" in (home / ".config/fish/completions/ulid-tool.fish").read_text()
