"""The README's commands for building from source, run exactly as written
in a clean Debian 12 (scripts/debian-system's `bookworm`, copied) with
Debian's PostgreSQL 15 already running, as an ordinary user who has sudo,
in a copy of this source tree. Then installing over that running server
never harms it: with ulid preloaded, a release tarball's install.sh and the
same from-source command again replace the library while the server runs,
and new sessions call every generator on a server that never restarted.

The commands are read from the README, and docs/install.md must give the
same ones, so the pages cannot drift from what is tested. Slow: cargo-pgrx
and ulid are compiled from nothing in the clean system (about ten minutes),
so scripts/test-release runs it. scripts/test runs the rest: the pages give
the same commands, and their last one, `scripts/install-from-source` for
this machine's PostgreSQL 15 (Debian 12's, set up for pgrx by
scripts/setup), run as written over a server of it that preloads ulid.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from ulidtools.debian_servers import System
from harness.pages import section_blocks
from harness.pgcluster import ROOT, Cluster, build_of, cluster_port
from harness.preloaded import call_every_generator, crashes_in
from harness.upgrading import InstalledRelease
from ulidtools.cargo_env import native_release_target
from ulidtools.project import VERSION

pytestmark = pytest.mark.once_per_run

PORT = cluster_port("15", 28)
USER = "builder"
PG_CONFIG = "/usr/lib/postgresql/15/bin/pg_config"


def from_source_commands(page) -> list[str]:
    """The shell commands of the first `sh` block after the page's heading
    that starts with "From source"."""
    block = section_blocks(page, "From source", "sh", prefix=True)[0]
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_install_page_gives_the_readme_commands():
    assert from_source_commands(ROOT / "docs" / "install.md") == from_source_commands(ROOT / "README.md")


def test_install_from_source_over_a_running_preloaded_server(tmp_path):
    """The pages' last from-source command, as written, on this machine,
    as root (who may write the server's directories, so nothing goes
    through sudo): the extension built in release mode from this tree and
    installed into Debian 12's PostgreSQL 15 while a server of it runs with
    ulid preloaded. New sessions call every generator on a server that
    never restarted, with no crash in its log; after a restart it runs the
    new library. The build's own files are put back afterwards."""
    command = from_source_commands(ROOT / "README.md")[-1]
    assert command == f"scripts/install-from-source {PG_CONFIG}" and str(build_of("15").pg_config) == PG_CONFIG, command
    saved = InstalledRelease("15", tmp_path / "installed")
    cluster = Cluster("15", "from-source", slot=29, settings={"shared_preload_libraries": "ulid"})
    try:
        cluster.start_empty()
        db = cluster.create_database("from_source")
        call_every_generator(lambda: cluster.connect(db))
        pid = int((cluster.dir / "postmaster.pid").read_text().split()[0])
        libdir = build_of("15").pkglibdir
        library = libdir / "ulid.so"
        inode = library.stat().st_ino

        # (what it compiles kept for the next run, in a directory of its own)
        env = {**os.environ, "CARGO_TARGET_DIR": str(native_release_target())}
        done = subprocess.run(["sh", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
        assert f"installed ulid into {libdir}" in done.stdout, done.stdout
        assert library.stat().st_ino != inode, "the library was not replaced by a new file"
        call_every_generator(lambda: cluster.connect(db))
        assert int((cluster.dir / "postmaster.pid").read_text().split()[0]) == pid
        assert not crashes_in(cluster.log_tail(10_000)), crashes_in(cluster.log_tail(10_000))
        cluster.start()
        call_every_generator(lambda: cluster.connect(db), sessions=1)
        with cluster.connect(db) as conn:
            assert conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() == (VERSION,)
    finally:
        cluster.stop("immediate")
        saved.restore()
        cluster.destroy()


def postmaster_pid(system: System) -> int:
    return int(system.here("/var/lib/postgresql/15/main/postmaster.pid").read_text().split()[0])


@pytest.fixture
def clean_debian(tmp_path):
    system = System.clone("bookworm", "15", tmp_path / "root")
    try:
        yield system
    finally:
        system.discard()


@pytest.mark.slow
def test_readme_from_source_then_installs_over_a_running_preloaded_server(clean_debian, tmp_path):
    system = clean_debian
    # what a machine on this network needs to reach crates.io: its DNS and
    # the certificate authorities it trusts
    shutil.copy("/etc/resolv.conf", system.here("/etc/resolv.conf"))
    for ca in sorted(Path("/usr/local/share/ca-certificates").glob("*.crt")):
        shutil.copy(ca, system.here(f"/usr/local/share/ca-certificates/{ca.name}"))
    system("update-ca-certificates")
    # the server the user already runs: Debian's postgresql-15 and its main cluster
    system(*System.APT, "install", "-y", "--no-install-recommends", "postgresql-15")
    server = system.create_cluster("main", PORT)
    # the user: an ordinary account with sudo, and this source tree in it;
    # apt is told to answer its own question, as a user at a terminal would
    system("useradd", "--create-home", "--shell", "/bin/bash", USER)
    system.here(f"/etc/sudoers.d/{USER}").write_text(f"{USER} ALL=(ALL) NOPASSWD: ALL\n")
    system.here("/etc/apt/apt.conf.d/90yes").write_text('APT::Get::Assume-Yes "true";\n')
    system("sh", "-c", "echo 'debconf debconf/frontend select Noninteractive' | debconf-set-selections")
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           check=True, capture_output=True).stdout.split(b"\0")
    archive = tmp_path / "source.tar"
    with tarfile.open(archive, "w") as tar:
        for name in filter(None, files):
            path = ROOT / name.decode()
            if path.exists():
                tar.add(path, arcname=f"ulid/{name.decode()}")
    with tarfile.open(archive) as tar:
        tar.extractall(system.here(f"/home/{USER}"))
    system("chown", "-R", f"{USER}:{USER}", f"/home/{USER}/ulid")

    commands = from_source_commands(ROOT / "README.md")
    script = "set -ex\ncd ~/ulid\n" + "\n".join(commands) + "\n"
    built = system("su", "--login", USER, "-c", script, check=False)
    assert built.returncode == 0, f"the README's commands failed:\n{built.stdout[-6000:]}\n{built.stderr[-6000:]}"

    with server.connect() as conn:
        conn.execute("CREATE EXTENSION ulid")
        assert conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'ulid'").fetchone() == (VERSION,)
        conn.execute("ALTER SYSTEM SET shared_preload_libraries = 'ulid'")
    system("pg_ctlcluster", "15", "main", "restart")
    with server.connect() as conn:
        assert conn.execute("SHOW shared_preload_libraries").fetchone() == ("ulid",)
    call_every_generator(server.connect)
    pid = postmaster_pid(system)
    library = system.here("/usr/lib/postgresql/15/lib/ulid.so")
    built_bytes = library.read_bytes()

    # a different build (this tree's debug build, as a tarball), by its install.sh
    subprocess.run([str(ROOT / "scripts" / "package"), "--debug", "--out", str(tmp_path / "debug"), "15"],
                   check=True, capture_output=True)
    tarball = next((tmp_path / "debug").glob("ulid-*-pg15-linux-x86_64.tar.gz"))
    with tarfile.open(tarball) as tar:
        tar.extractall(system.here("/tmp"))
    system(f"/tmp/{tarball.name.removesuffix('.tar.gz')}/install.sh", PG_CONFIG)
    assert library.read_bytes() != built_bytes
    call_every_generator(server.connect)
    assert postmaster_pid(system) == pid

    # and the README's install command again, over it
    again = system("su", "--login", USER, "-c", f"cd ~/ulid && {commands[-1]}", check=False)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert library.read_bytes() == built_bytes
    call_every_generator(server.connect)
    assert postmaster_pid(system) == pid

    log = "\n".join(p.read_text(errors="replace") for p in system.here("/var/log/postgresql").glob("*.log"))
    assert not crashes_in(log), crashes_in(log)
