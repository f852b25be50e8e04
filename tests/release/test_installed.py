"""A release's files installed the way its users install them, each in a
clean copy of a Debian system (scripts/debian-system), then the pg_regress
suite on Debian's own server there:

- the x86-64 tarball for 13 with its install.sh into Debian 11's
  postgresql-13 (glibc 2.31: older than the glibc the files were built on);
- the apt repository, added as a signed source of Debian 12 for each
  architecture it has a package for 15: `apt install postgresql-15-ulid`
  (for arm64, Debian's arm64 postgresql-15 running through qemu);
- the same repository beside Debian's own archive in sid, which has a
  `ulid-cli` of its own (another ULID program, /usr/bin/ulid): ulid-tool
  and Debian's ulid-cli installed by their names, together, neither
  replaced by the other on upgrade, nor touched when the other goes.
"""

from __future__ import annotations

import fcntl
import json
import re
import shutil
import tarfile
from contextlib import ExitStack
from pathlib import Path

import pytest

from harness import regress
from ulidtools.debian_servers import DEBIAN_SYSTEM, System, run_captured
from harness.pgcluster import cluster_port
from ulidtools.project import CLI_VERSION

pytestmark = pytest.mark.once_per_run

# each a port of its own, among the 13 and 15 builds' slots
PORTS = {"bullseye": cluster_port("13", 25), "bookworm-arm64": cluster_port("15", 26), "bookworm": cluster_port("15", 27)}


@pytest.fixture
def clone(tmp_path_factory):
    made = []

    def make(name: str, major: str) -> System:
        system = System.clone(name, major, tmp_path_factory.mktemp(name) / "root")
        made.append(system)
        return system

    yield make
    for system in made:
        system.discard()


def regress_suite(server, tmp_path: Path) -> None:
    failures = {}
    for name in regress.names_for(server.version):
        failure = regress.run(name, server, tmp_path / name)
        if failure:
            failures[name] = failure
    assert not failures, "\n".join(f"--- {name}\n{text}" for name, text in failures.items())


def one_row(server, sql: str):
    with server.connect() as conn:
        return conn.execute(sql).fetchone()


def add_release_repository(system: System, release) -> Path:
    """The release's apt repository and its key in SYSTEM, as the install
    page has users add them; returns the file of the apt source, still to
    be written."""
    shutil.copytree(release.dir / "apt", system.here("/srv/ulid-release"))
    keyring = system.here("/etc/apt/keyrings/ulid.gpg")
    keyring.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(release.keyring, keyring)
    return system.here("/etc/apt/sources.list.d/ulid.list")


def test_the_x86_64_tarball_on_debian_11(release, clone, tmp_path):
    tarball = release.one("ulid-*-pg13-linux-x86_64.tar.gz")
    system = clone("bullseye", "13")
    assert re.search(r"GLIBC 2\.31", system("ldd", "--version").stdout), "Debian 11 has glibc 2.31"
    with tarfile.open(tarball) as tar:
        tar.extractall(system.here("/tmp"))
    top = f"/tmp/{tarball.name.removesuffix('.tar.gz')}"
    installed = system(f"{top}/install.sh", "/usr/lib/postgresql/13/bin/pg_config").stdout
    assert "installed ulid into /usr/lib/postgresql/13/lib" in installed
    server = system.create_cluster("ulid", PORTS["bullseye"])
    assert "Debian" in one_row(server, "SELECT version()")[0]
    regress_suite(server, tmp_path)


# Debian 12 for each architecture the release's apt repository has a
# package for 15 (scripts/test: amd64; scripts/test-release: arm64 too,
# through qemu)
SYSTEMS = {"amd64": "bookworm", "arm64": "bookworm-arm64"}


def test_the_apt_repository_on_debian_12(release, clone, tmp_path):
    assert release.keyring, "the checked release's apt repository is signed"
    arches = [arch for arch in SYSTEMS if release.has(f"postgresql-15-ulid_*_{arch}.deb")]
    assert arches, "the release has no package for 15"
    for arch in arches:
        system = clone(SYSTEMS[arch], "15")
        assert system("dpkg", "--print-architecture").stdout.strip() == arch
        source = add_release_repository(system, release)
        # a key that is not the release's: apt refuses the repository
        system.here("/etc/apt/keyrings/other.gpg").write_bytes(b"")
        source.write_text("deb [signed-by=/etc/apt/keyrings/other.gpg] file:/srv/ulid-release stable main\n")
        refused = system(*System.APT, "update", check=False)
        assert refused.returncode != 0, refused.stdout + refused.stderr
        # the release's key, as the install page says
        source.write_text("deb [signed-by=/etc/apt/keyrings/ulid.gpg] file:/srv/ulid-release stable main\n")
        updated = system(*System.APT, "update")
        assert "W: " not in updated.stdout + updated.stderr, updated.stdout + updated.stderr
        system(*System.APT, "install", "-y", "--no-install-recommends", "postgresql-15-ulid")
        assert system.dpkg_status() == "install ok installed"
        # it brought Debian's own server with it
        assert system("dpkg-query", "-W", "-f", "${Status}", "postgresql-15").stdout == "install ok installed"
        server = system.create_cluster("main", PORTS[SYSTEMS[arch]])
        machine = {"amd64": "x86_64", "arm64": "aarch64"}[arch]
        assert f"on {machine}-" in one_row(server, "SELECT version()")[0]
        regress_suite(server, tmp_path / arch)
        # removing it leaves none of its files
        system(*System.APT, "purge", "-y", "postgresql-15-ulid")
        assert not system.present(system.expected_files())
        system.discard()


# Debian's own ulid-cli, as inputs.manifest pins it in the sid system's
# archive (not installed there until a test asks for it)
DEBIAN_ULID_CLI = "1.2.1-4"
AN_ID = "01JGFJJZ00XHF7E02JJ03AE4T7"  # 2025-01-01 00:00:00 UTC


@pytest.fixture
def sid(tmp_path):
    """A copy of the sid system. The 18 and 19 runs use sid itself, maybe
    at this moment (these tests run beside the builds' tests): the copy is
    made holding dpkg's locks there, as apt and dpkg take them, so that it
    holds no half-done install, and without their clusters, which they may
    be making or dropping while it is copied."""
    # scripts/setup makes sid for the runs of 18 and 19; this makes it for
    # a run without them (a minute), and finds it made otherwise
    run_captured(*DEBIAN_SYSTEM, "-s", "sid", "setup")
    root = Path(run_captured(*DEBIAN_SYSTEM, "-s", "sid", "root").stdout.strip())
    with ExitStack() as held:
        for name in ("lock-frontend", "lock"):
            lock = held.enter_context(open(root / "var" / "lib" / "dpkg" / name, "a"))
            fcntl.lockf(lock, fcntl.LOCK_EX)
        system = System.clone("sid", "19", tmp_path / "root")
    assert system("pg_lsclusters", "-h").stdout == "", "the copy holds no cluster of the runs that use sid"
    yield system
    run_captured("rm", "-rf", "--one-file-system", system.root)


def test_the_tool_beside_debians_own_ulid_cli(release, sid):
    """Debian (13 and later, and sid) has a package ulid-cli of its own,
    another ULID program that installs /usr/bin/ulid. With the release's
    apt repository beside Debian's archive, in sid: `apt install ulid-tool`
    takes ours and `apt install ulid-cli` Debian's, in either order, the
    two together with no dpkg error and each program its own; an upgrade
    replaces neither with the other; removing one leaves every file of the
    other."""
    assert release.keyring, "the checked release's apt repository is signed"
    ours = release.one("ulid-tool_*_amd64.deb").name.split("_")[1]
    system = sid
    add_release_repository(system, release).write_text(
        "deb [signed-by=/etc/apt/keyrings/ulid.gpg] file:/srv/ulid-release stable main\n")
    updated = system(*System.APT, "update")
    assert "W: " not in updated.stdout + updated.stderr, updated.stdout + updated.stderr

    def apt(*args: str) -> str:
        """apt-get ARGS, which must succeed with no word from dpkg of a
        file another package has (apt's own note that a chroot has no
        /dev/pts is no error)."""
        done = system(*System.APT, *args)
        said = done.stdout + done.stderr
        assert not re.search(r"^dpkg: (error|warning)|trying to overwrite|Errors were encountered", said, re.M), said
        return said

    def status(package: str) -> str:
        return system("dpkg-query", "-W", "-f", "${db:Status-Abbrev}${Version}", package, check=False).stdout

    def files(package: str) -> list[str]:
        listed = system("dpkg-query", "-L", package).stdout.splitlines()
        return [f for f in listed if system.here(f).is_file()]

    def there(paths: list[str]) -> list[str]:
        return [f for f in paths if system.here(f).is_file()]

    # each name has one candidate, from its own archive: ours has no
    # ulid-cli, Debian's no ulid-tool
    policy = system("apt-cache", "policy", "ulid-tool", "ulid-cli").stdout
    tool, cli = policy.split("\nulid-cli:")
    assert re.search(rf"Candidate: {re.escape(ours)}\n", tool) and "/srv/ulid-archive" not in tool, policy
    assert f"Candidate: {DEBIAN_ULID_CLI}\n" in cli and "/srv/ulid-release" not in cli, policy

    apt("install", "-y", "--no-install-recommends", "ulid-tool")
    assert status("ulid-tool") == f"ii {ours}"
    assert status("ulid-cli") == "" and not system.here("/usr/bin/ulid").exists()
    assert system("ulid-tool", "--version").stdout == f"ulid-tool {CLI_VERSION}\n"

    # Debian's beside it: no file of one is the other's
    apt("install", "-y", "--no-install-recommends", "ulid-cli")
    assert status("ulid-cli") == f"ii {DEBIAN_ULID_CLI}" and status("ulid-tool") == f"ii {ours}"
    assert system("dpkg", "--audit").stdout == ""
    assert system("dpkg-query", "-S", "/usr/bin/ulid").stdout == "ulid-cli: /usr/bin/ulid\n"
    assert system("dpkg-query", "-S", "/usr/bin/ulid-tool").stdout == "ulid-tool: /usr/bin/ulid-tool\n"
    tool_files, cli_files = files("ulid-tool"), files("ulid-cli")
    assert "/usr/share/man/man1/ulid-tool.1.gz" in tool_files and not set(tool_files) & set(cli_files)

    # each program is its own: Debian's reads an id given alone, which ours
    # refuses as a command
    debian = system("/usr/bin/ulid", AN_ID).stdout
    assert "Timestamp: 1735689600000" in debian, debian
    assert system("/usr/bin/ulid", "--version").stdout.startswith("ulid-cli ")
    parsed = json.loads(system("/usr/bin/ulid-tool", "parse", AN_ID, "--format", "json").stdout)
    assert parsed["unix_ms"] == 1735689600000 and parsed["uuid"] == "01941f29-7c00-ec5e-7700-529006a71347"
    refused = system("/usr/bin/ulid-tool", AN_ID, check=False)
    assert refused.returncode == 2 and "is an id, not a command" in refused.stderr, refused.stderr

    # an upgrade installs, removes and replaces nothing
    for upgrade in ("upgrade", "full-upgrade"):
        simulated = apt("-s", upgrade)
        assert not re.search(r"^(Inst|Remv|Conf|Purg) ", simulated, re.M), simulated
        assert "0 upgraded, 0 newly installed, 0 to remove" in simulated, simulated

    # removing ours leaves Debian's whole, and installing it again beside
    # Debian's works as well; removing Debian's leaves ours whole
    apt("purge", "-y", "ulid-tool")
    assert status("ulid-tool") == "" and there(tool_files) == []
    assert there(cli_files) == cli_files
    assert system("/usr/bin/ulid", "--version").stdout.startswith("ulid-cli ")
    apt("install", "-y", "--no-install-recommends", "ulid-tool")
    apt("purge", "-y", "ulid-cli")
    assert status("ulid-cli") == "" and there(cli_files) == []
    assert there(tool_files) == tool_files
    assert system("ulid-tool", "bounds", "2025-01-01T00:00:00Z").stdout == "01JGFJJZ000000000000000000\n"
