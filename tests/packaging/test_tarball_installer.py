"""The release tarball's install.sh, run as root (and once as another
user) on a tree that scripts/tarball/tree.sh lays out from a stage made
here, with a stand-in pg_config: no server, no build.

- A pg_config that another user may change (theirs, in their home, or in a
  directory they own or may write, however deep, or reached through a
  link) is refused and never run: the stand-in leaves a mark when it runs.
- A target directory that is a symbolic link, or that another user owns
  or may write (sticky or not), or a directory on its path (as pg_config
  gives it, or after its links) that another user may change, or where
  mkdir -p would make a missing one, is refused: nothing changes anywhere
  under the test's directory. Root's links on the way, a sticky directory
  above root's, and missing directories in root's are installed into.
- Run as an ordinary user, its own pg_config and directories are used.
- Symbolic links left at the names the installer writes (the final names,
  and the temporary names an earlier installer used) are replaced, never
  followed: no file outside the target directories changes, and each
  installed file is a regular file of mode 0644 with our content.
- A private directory swapped for a link between its making and its use
  is refused.
- A failed install, or one stopped by a signal, leaves no temporary file
  behind and exits non-zero; one that fails before renaming changes no
  installed file.
- Only this release's files are installed, not whatever else the tree's
  lib/ and extension/ hold.
- pg_config's empty or relative directories are refused.
- The output names every file installed and what it replaced.

These run once (tools/ulidtools/testrun.py names this file), not on every build: see
the once_per_run marker in conftest.py. Seconds: the installer runs about
sixty times.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.pgcluster import ROOT
from ulidtools.base import sha256_of

pytestmark = pytest.mark.once_per_run

TREE_SH = ROOT / "scripts" / "tarball" / "tree.sh"
MAJOR = "15"
# another user: not root, not us (nobody)
OTHER = 65534

LIB = {"ulid.so": b"\x7fELF the library, new\n" * 64}
EXTENSION = {
    "ulid.control": b"default_version = '0.4.0'\nmodule_pathname = '$libdir/ulid'\n",
    "ulid--0.4.0.sql": b"CREATE TYPE ulid;\n",
    "ulid--0.3.0--0.4.0.sql": b"SELECT 1;\n",
}
NEW = {"lib": LIB, "extension": EXTENSION}
OLD = b"an older release's file\n"

# every shell install.sh may meet: /bin/sh (dash on Debian), and bash
SHELLS = sorted({os.path.realpath(p) for p in map(shutil.which, ("sh", "dash", "bash")) if p})
# the one its #! names
SH = os.path.realpath(shutil.which("sh"))

if os.geteuid() != 0:
    pytest.skip("install.sh is run as root, and as another user", allow_module_level=True)


def write_pg_config(path: Path, version: str, pkglibdir: str, sharedir: str, marker: Path | None = None) -> Path:
    """A stand-in pg_config; it appends a line to MARKER each time it runs."""
    path.write_text("#!/bin/sh\n"
                    + (f"echo ran >> '{marker}'\n" if marker else "")
                    + f"case $1 in\n"
                    f"--version) printf '%s\\n' '{version}' ;;\n"
                    f"--pkglibdir) printf '%s\\n' '{pkglibdir}' ;;\n"
                    f"--sharedir) printf '%s\\n' '{sharedir}' ;;\n"
                    f"*) exit 1 ;;\n"
                    f"esac\n")
    path.chmod(0o755)
    return path


def snapshot(top: Path) -> dict[str, tuple]:
    """Every name under TOP: its kind, mode, owner, and content's or link's hash."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode):
                what = os.readlink(p)
            elif stat.S_ISREG(st.st_mode):
                what = sha256_of(p)
            else:
                what = None
            seen[str(p.relative_to(top))] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_uid, what)
    return seen


@dataclass
class Server:
    """A stand-in PostgreSQL installation: its pg_config, library and
    extension directories (root's, mode 0755), and a tree laid out by
    tree.sh; `outside` holds files nothing may touch."""
    root: Path
    tree: Path
    libdir: Path
    extdir: Path
    pg_config: Path
    outside: Path

    def dirs(self) -> dict[str, Path]:
        return {"lib": self.libdir, "extension": self.extdir}

    def install(self, shell: str, *, path: Path | None = None, wrapper: str = "",
                pg_config: Path | None = None, cwd: Path | None = None,
                user: int | None = None) -> subprocess.CompletedProcess:
        """Runs the tree's install.sh with SHELL; PATH searched first, if
        given (stand-in commands); WRAPPER, shell commands run first in the
        process that then becomes install.sh (so $$ there is install.sh's);
        as USER, if given, instead of root.
        Under umask 077, as on a hardened system: the files are 0644 still."""
        env = dict(os.environ, LC_ALL="C")
        if path is not None:
            env["PATH"] = f"{path}:{env['PATH']}"
        script = f'umask 077\n{wrapper}\nexec "$0" "$1" "$2"'
        return subprocess.run(
            [shell, "-c", script, shell, str(self.tree / "install.sh"), str(pg_config or self.pg_config)],
            capture_output=True, text=True, env=env, cwd=cwd or self.root, timeout=60,
            preexec_fn=default_signals, user=user, group=user, extra_groups=[] if user is not None else None)

    def temporaries(self) -> list[str]:
        return sorted(f"{d.name}/{p.name}" for d in self.dirs().values() for p in d.iterdir()
                      if p.name.startswith(".ulid-install."))

    def assert_installed(self, content: dict[str, dict[str, bytes]] = NEW, owner: int = 0) -> None:
        for key, files in content.items():
            for name, data in files.items():
                p = self.dirs()[key] / name
                st = p.lstat()
                assert stat.S_ISREG(st.st_mode), f"{p} is not a regular file"
                assert stat.S_IMODE(st.st_mode) == 0o644, f"{p}: mode {stat.S_IMODE(st.st_mode):o}"
                assert st.st_uid == owner
                assert p.read_bytes() == data, p


@pytest.fixture
def server(tmp_path) -> Server:
    return make_server(tmp_path)


def make_server(top: Path, owner: int = 0) -> Server:
    """A Server in TOP whose directories are OWNER's."""
    stage = top / "stage"
    for key, sub, files in (("lib", "usr/lib/postgresql/15/lib", LIB),
                            ("extension", "usr/share/postgresql/15/extension", EXTENSION)):
        (stage / sub).mkdir(parents=True)
        for name, data in files.items():
            (stage / sub / name).write_bytes(data)
    tree = top / "ulid-0.4.0-pg15-linux-x86_64"
    subprocess.run(["sh", str(TREE_SH), str(stage), str(tree), MAJOR], check=True, capture_output=True)

    root = top / "pg"
    libdir, sharedir = root / "lib", root / "share"
    extdir = sharedir / "extension"
    for d in (libdir, extdir):
        d.mkdir(parents=True)
    for d in (root, libdir, sharedir, extdir):
        os.chown(d, owner, owner)
        d.chmod(0o755)
    outside = top / "outside"
    outside.mkdir()
    (outside / "passwd").write_bytes(b"root:x:0:0:root:/root:/bin/sh\n")
    (outside / "shadow").write_bytes(b"root:*:19000:0:99999:7:::\n")
    (outside / "shadow").chmod(0o600)
    (outside / "cron.d").mkdir()
    # directories such as a link at a private directory's name could lead
    # to: root's, mode 0700, empty, like the ones mktemp makes
    for key in NEW:
        (outside / f"root-only-{key}").mkdir(mode=0o700)
    config = write_pg_config(top / "pg_config", f"PostgreSQL {MAJOR}.8", str(libdir), str(sharedir))
    return Server(top, tree, libdir, extdir, config, outside)


def default_signals() -> None:
    """The signals install.sh traps, at their default action, as in a
    terminal: a shell cannot trap a signal it was started with ignored, and
    a test run started in the background (`nohup`, or `&` without job
    control) passes SIGHUP or SIGINT on ignored."""
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


def install_old_files(server: Server) -> None:
    """An earlier install: every file there, with older content, owned by root."""
    for key, files in NEW.items():
        for name in files:
            (server.dirs()[key] / name).write_bytes(OLD)
            (server.dirs()[key] / name).chmod(0o644)


def stand_in(bindir: Path, name: str, body: str) -> None:
    """A stand-in for the command NAME, searched before the real one."""
    bindir.mkdir(exist_ok=True)
    real = shutil.which(name)
    (bindir / name).write_text(f"#!/bin/sh\nreal={real}\n{body}\n")
    (bindir / name).chmod(0o755)


@pytest.mark.parametrize("shell", SHELLS)
def test_planted_links_are_replaced_never_followed(server, shell):
    outside = server.outside
    # the final names: a link to a file, a link to a directory, a dangling
    # link, a link to a file only root may read
    planted = {
        server.libdir / "ulid.so": outside / "passwd",
        server.extdir / "ulid.control": outside / "shadow",
        server.extdir / "ulid--0.4.0.sql": outside / "cron.d",
        server.extdir / "ulid--0.3.0--0.4.0.sql": outside / "cron.d" / "job",
    }
    for link, target in planted.items():
        link.symlink_to(target)
        os.lchown(link, OTHER, OTHER)
    # the temporary names an earlier install.sh used, .NAME.new.PID, at the
    # PID install.sh runs as (the wrapper's, which exec keeps) and the
    # next ones; every one a link to a file outside
    wrapper = "\n".join(
        f'for pid in $(seq $$ $(($$ + 20))); do'
        f' ln -s {outside}/passwd "{server.dirs()[key]}/.{name}.new.$pid";'
        f' chown -h {OTHER}:{OTHER} "{server.dirs()[key]}/.{name}.new.$pid"; done'
        for key, files in NEW.items() for name in files)
    before = snapshot(outside)

    run = server.install(shell, wrapper=wrapper)

    assert run.returncode == 0, run.stderr
    assert snapshot(outside) == before, "a file outside the target directories changed"
    server.assert_installed()
    assert server.temporaries() == []
    for key, files in NEW.items():
        d = server.dirs()[key]
        names = {p.name for p in d.iterdir()}
        assert names - {n for n in names if ".new." in n} == set(files), names
    for link in planted:
        assert f"{link}: replaced a symbolic link, not followed" in run.stdout, run.stdout
    assert f"installed ulid into {server.libdir} and {server.extdir}" in run.stdout


@pytest.mark.parametrize("shell", SHELLS)
def test_output_names_each_file_and_what_it_replaced(server, shell):
    first = server.install(shell)
    assert first.returncode == 0, first.stderr
    for key, files in NEW.items():
        for name in files:
            assert f"{server.dirs()[key]}/{name}: new\n" in first.stdout, first.stdout

    # a loaded library is never written into: the old file keeps its
    # content, a new file takes its name
    kept = server.root / "loaded-ulid.so"
    os.link(server.libdir / "ulid.so", kept)
    (server.extdir / "ulid.control").write_bytes(OLD)
    again = server.install(shell)
    assert again.returncode == 0, again.stderr
    assert kept.read_bytes() == LIB["ulid.so"]
    assert not (server.libdir / "ulid.so").samefile(kept)
    for key, files in NEW.items():
        for name in files:
            assert f"{server.dirs()[key]}/{name}: replaced the one there\n" in again.stdout, again.stdout
    server.assert_installed()
    assert server.temporaries() == []


# Someone who may write the target directory (a directory install.sh now
# refuses; its writing stays safe without that) wins the race between
# mktemp making the private directory and install.sh entering it: the name
# now a link to a directory elsewhere (root's, mode 0700, empty, one for
# each target directory: as like the one made as can be), or to one of
# theirs in the target directory
@pytest.mark.parametrize("to", ["outside", "theirs"])
def test_a_private_directory_swapped_for_a_link_is_refused(server, to):
    install_old_files(server)
    for d in server.dirs().values():
        (d / "theirs").mkdir(mode=0o777)
        os.chown(d / "theirs", OTHER, OTHER)
    target = f"{server.outside}/root-only-${{PWD##*/}}" if to == "outside" else "$PWD/theirs"
    bindir = server.root / "bin"
    stand_in(bindir, "mktemp", f'd=$("$real" "$@") || exit\nmv "$d" "$d.taken"\nln -s "{target}" "$d"\necho "$d"')
    before = snapshot(server.outside)

    run = server.install(SHELLS[0], path=bindir)

    assert snapshot(server.outside) == before, "a file outside the target directories changed"
    assert [list((d / "theirs").iterdir()) for d in server.dirs().values()] == [[], []]
    server.assert_installed({k: dict.fromkeys(v, OLD) for k, v in NEW.items()})
    assert run.returncode != 0
    assert "is not the directory just made there" in run.stderr, run.stderr


@pytest.mark.parametrize("shell", SHELLS)
def test_a_failure_while_writing_changes_nothing_and_leaves_no_temporary_file(server, shell):
    install_old_files(server)
    bindir = server.root / "bin"
    # the extension directory's files cannot be written: after the
    # library's are, in their private directory
    stand_in(bindir, "chmod", 'case $PWD in */extension/*) echo "chmod: no space left" >&2; exit 1 ;; esac\n'
                              'exec "$real" "$@"')
    run = server.install(shell, path=bindir)
    assert run.returncode != 0
    assert server.temporaries() == []
    server.assert_installed({k: dict.fromkeys(v, OLD) for k, v in NEW.items()})


@pytest.mark.parametrize("shell", SHELLS)
def test_a_failure_while_renaming_leaves_no_temporary_file(server, shell):
    # a directory at a final name: not replaced, not moved into
    (server.extdir / "ulid.control").mkdir()
    (server.extdir / "ulid.control" / "inside").write_bytes(OLD)
    run = server.install(shell)
    assert run.returncode != 0
    assert server.temporaries() == []
    assert [p.name for p in (server.extdir / "ulid.control").iterdir()] == ["inside"]


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_leaves_no_temporary_file(server, sig, shell):
    bindir = server.root / "bin"
    # the signal comes while the first file is renamed into place
    stand_in(bindir, "mv", f'kill -{sig.name.removeprefix("SIG")} $PPID\nexec "$real" "$@"')
    run = server.install(shell, path=bindir)
    assert run.returncode == 128 + sig, (run.returncode, run.stderr)
    assert server.temporaries() == []


def test_a_missing_file_is_refused_before_anything_is_written(server):
    install_old_files(server)
    (server.tree / "extension" / "ulid--0.4.0.sql").unlink()
    run = server.install(SHELLS[0])
    assert run.returncode != 0
    assert "ulid--0.4.0.sql is missing" in run.stderr, run.stderr
    assert server.temporaries() == []
    server.assert_installed({k: dict.fromkeys(v, OLD) for k, v in NEW.items()})


def test_only_this_releases_files_are_installed(server):
    extra = ["lib/evil.so", "lib/.hidden.so", "extension/evil.control",
             "extension/ulid--0.4.0--9.9.sql", "extension/ulid.control.orig"]
    for f in extra:
        (server.tree / f).write_bytes(b"not ours\n")
    run = server.install(SHELLS[0])
    assert run.returncode == 0, run.stderr
    server.assert_installed()
    assert sorted(p.name for p in server.libdir.iterdir()) == sorted(LIB)
    assert sorted(p.name for p in server.extdir.iterdir()) == sorted(EXTENSION)
    for f in extra:
        assert f"ignored {f}: not a file of this release" in run.stderr, run.stderr


def test_a_list_naming_other_files_is_refused(server):
    installer = server.tree / "install.sh"
    (server.tree / "lib" / "evil.so").write_bytes(b"not ours\n")
    text = installer.read_text()
    assert "files='lib/ulid.so " in text
    installer.write_text(text.replace("files='lib/ulid.so ", "files='lib/ulid.so lib/evil.so "))
    run = server.install(SHELLS[0])
    assert run.returncode != 0
    assert "not a file of ulid's: lib/evil.so" in run.stderr, run.stderr
    assert list(server.libdir.iterdir()) == [] and list(server.extdir.iterdir()) == []


@pytest.mark.parametrize("pkglibdir,sharedir", [
    ("", "SHARE"), ("lib", "SHARE"), ("./lib", "SHARE"),
    ("LIB", ""), ("LIB", "share"), ("LIB", "share/postgresql"),
])
def test_empty_or_relative_directories_are_refused(server, pkglibdir, sharedir):
    config = write_pg_config(server.root / "pg_config.bad", f"PostgreSQL {MAJOR}.8",
                             pkglibdir.replace("LIB", str(server.libdir)),
                             sharedir.replace("SHARE", str(server.extdir.parent)))
    cwd = server.root / "cwd"
    cwd.mkdir()
    run = server.install(SHELLS[0], pg_config=config, cwd=cwd)
    assert run.returncode != 0
    assert "not an absolute directory: refusing to install" in run.stderr, run.stderr
    assert list(cwd.iterdir()) == []
    assert list(server.libdir.iterdir()) == [] and list(server.extdir.iterdir()) == []


def test_another_major_version_is_refused(server):
    config = write_pg_config(server.root / "pg_config.16", "PostgreSQL 16.4",
                             str(server.libdir), str(server.extdir.parent))
    run = server.install(SHELLS[0], pg_config=config)
    assert run.returncode != 0
    assert f"built for PostgreSQL {MAJOR}, but {config} is PostgreSQL 16" in run.stderr
    assert list(server.libdir.iterdir()) == []


# --- What another user may change is refused


def mkdir_owned(path: Path, owner: int, mode: int = 0o755) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    os.chown(path, owner, owner)
    path.chmod(mode)
    return path


def assert_refused(run: subprocess.CompletedProcess, *parts: str) -> None:
    assert run.returncode != 0, run.stdout
    assert run.stderr.startswith("install.sh: refusing "), run.stderr
    for part in parts:
        assert part in run.stderr, run.stderr
    assert run.stderr.count("\n") == 1, run.stderr


# Each: who owns what on the stand-in's way (its directory `home`, the
# other user's home, and the file), and what the message names: the file
# or `home`, and why
PG_CONFIG_REFUSED = {
    "another user's, in their home": (dict(home=OTHER, file=OTHER), "file", f"owned by uid {OTHER}"),
    "root's, in another user's home": (dict(home=OTHER), "home", f"owned by uid {OTHER}"),
    "root's, in root's directory in another user's home": (dict(home=OTHER, deeper=True), "home",
                                                          f"owned by uid {OTHER}"),
    "root's, in a directory its group may write": (dict(home_mode=0o775), "home", "(mode 0775)"),
    "root's, in a directory others may write": (dict(home_mode=0o777), "home", "(mode 0777)"),
    "root's, writable by its group": (dict(file_mode=0o775), "file", "(mode 0775)"),
    "root's link to another user's": (dict(home=OTHER, file=OTHER, link=True), "file", f"owned by uid {OTHER}"),
}


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("case", PG_CONFIG_REFUSED)
def test_a_pg_config_another_user_may_change_is_never_run(server, case, shell):
    how, named, why = PG_CONFIG_REFUSED[case]
    home = mkdir_owned(server.root / "home" / "alice", how.get("home", 0), how.get("home_mode", 0o755))
    where = mkdir_owned(home / "pg" / "bin", 0) if how.get("deeper") else home
    marker = server.root / "marker"
    config = write_pg_config(where / "pg_config", f"PostgreSQL {MAJOR}.8", str(server.libdir),
                             str(server.extdir.parent), marker)
    os.chown(config, how.get("file", 0), how.get("file", 0))
    config.chmod(how.get("file_mode", 0o755))
    given = config
    if how.get("link"):
        given = server.root / "pg_config.link"
        given.symlink_to(config)
    before = snapshot(server.root)

    run = server.install(shell, pg_config=given)

    assert not marker.exists(), "install.sh ran a pg_config another user may change"
    assert snapshot(server.root) == before, "something changed"
    shown = f"{config} (where {given} leads)" if given != config else str(config)
    if named == "file":
        assert_refused(run, f"refusing to run pg_config {shown}: ", why, "and it would run as you")
    else:
        assert_refused(run, f"refusing to run pg_config {shown}: {home}, a directory on its path, is not safe: ",
                       why)
    assert "; give the server's own pg_config, one that root owns" in run.stderr


def test_a_pg_config_not_on_path_or_missing_is_refused(server):
    run = server.install(SHELLS[0], pg_config=server.root / "no-such-pg_config")
    assert run.returncode != 0
    assert f"install.sh: {server.root}/no-such-pg_config: no such file" in run.stderr, run.stderr
    run = server.install(SHELLS[0], pg_config=Path("no-such-pg_config"), cwd=server.root)
    assert run.returncode != 0
    assert "install.sh: no no-such-pg_config on PATH: give the server's pg_config" in run.stderr, run.stderr
    assert list(server.libdir.iterdir()) == [] and list(server.extdir.iterdir()) == []


@pytest.mark.parametrize("how", ["root's, in a sticky directory others may write",
                                 "a link in another user's home to root's"])
def test_a_pg_config_only_root_may_change_is_run(server, how):
    marker = server.root / "marker"
    if how.startswith("root's"):
        where = mkdir_owned(server.root / "shared", 0, 0o1777)
    else:
        where = mkdir_owned(server.root / "root-bin", 0)
    config = write_pg_config(where / "pg_config", f"PostgreSQL {MAJOR}.8", str(server.libdir),
                             str(server.extdir.parent), marker)
    given = config
    if how.startswith("a link"):
        home = mkdir_owned(server.root / "home" / "alice", OTHER)
        given = home / "pg_config"
        given.symlink_to(config)
        os.lchown(given, OTHER, OTHER)
    run = server.install(SHELLS[0], pg_config=given)
    assert run.returncode == 0, run.stderr
    assert marker.read_text() == "ran\n" * 3  # --version, --pkglibdir, --sharedir
    server.assert_installed()


def other_share(server: Server) -> Path:
    """Another user's directory, to hold what the extension directory becomes."""
    return mkdir_owned(server.root / "home" / "alice" / "share", OTHER)


# Each: what is done to the stand-in's directories, and what the message
# says: the directory it names and why
TARGETS_REFUSED = {
    "library directory another user's": (
        lambda s: os.chown(s.libdir, OTHER, OTHER), "libdir", f"owned by uid {OTHER}"),
    "extension directory others may write": (
        lambda s: s.extdir.chmod(0o777), "extdir", "group or others may write it (mode 0777)"),
    "extension directory its group may write": (
        lambda s: s.extdir.chmod(0o2775), "extdir", "group or others may write it (mode 2775)"),
    "extension directory sticky, others may write": (
        lambda s: s.extdir.chmod(0o1777), "extdir", "group or others may write it (mode 1777)"),
    "share directory another user's": (
        lambda s: os.chown(s.extdir.parent, OTHER, OTHER), "share", f"owned by uid {OTHER}"),
    "directory above both others may write": (
        lambda s: s.libdir.parent.chmod(0o757), "pg", "group or others may write it (mode 0757)"),
    "extension directory a link": (
        lambda s: (s.extdir.rmdir(), s.extdir.symlink_to(s.outside / "cron.d")), "link", "cron.d"),
    "share directory another user's link to root's": (
        lambda s: (shutil.rmtree(s.extdir.parent), mkdir_owned(s.root / "share-real" / "extension", 0),
                   s.extdir.parent.symlink_to(s.root / "share-real"),
                   os.lchown(s.extdir.parent, OTHER, OTHER)), "share", f"owned by uid {OTHER}"),
    "share directory root's link to another user's": (
        lambda s: (shutil.rmtree(s.extdir.parent), mkdir_owned(other_share(s) / "extension", 0),
                   s.extdir.parent.symlink_to(other_share(s))), "alice-share", f"owned by uid {OTHER}"),
    "missing extension directory in a sticky directory": (
        lambda s: (s.extdir.rmdir(), s.extdir.parent.chmod(0o1777)), "missing", "(mode 1777)"),
}


@pytest.mark.parametrize("case", TARGETS_REFUSED)
def test_a_target_directory_another_user_may_change_is_refused(server, case):
    change, named, why = TARGETS_REFUSED[case]
    change(server)
    before = snapshot(server.root)

    # (the checks' shell arithmetic runs in both shells in the pg_config cases)
    run = server.install(SH)

    assert snapshot(server.root) == before, "something changed"
    lib, ext = f"{server.libdir} (pg_config --pkglibdir)", f"{server.extdir} (pg_config --sharedir/extension)"
    expected = {
        "libdir": f"refusing to install into {lib}: it is",
        "extdir": f"refusing to install into {ext}: group or others may write it",
        "share": f"refusing to install into {ext}: {server.extdir.parent}, a directory on its path, is not safe: ",
        "pg": f"refusing to install into {lib}: {server.libdir.parent}, a directory on its path, is not safe: ",
        "link": f"refusing to install into {ext}: it is a symbolic link (to {server.outside}/cron.d)",
        "alice-share": f"refusing to install into {ext}: {server.root}/home/alice/share, a directory on its path, "
                       "is not safe: ",
        "missing": f"refusing to install into {ext}: {server.extdir} is missing, and {server.extdir.parent}, "
                   "where mkdir -p would make it, is not safe: ",
    }[named]
    assert_refused(run, expected, why)
    if named != "link":
        assert "run install.sh as the user that owns it" in run.stderr
    assert list(server.outside.glob("cron.d/*")) == []


@pytest.mark.parametrize("how", ["root's links on the way", "missing directories in root's",
                                 "a sticky directory above root's"])
def test_a_target_directory_only_root_may_change_is_installed_into(server, how):
    if how == "root's links on the way":
        # as a build unpacked elsewhere and linked to (/opt/ulid-postgres/16)
        real = server.root / "real"
        server.libdir.parent.rename(real)
        server.libdir.parent.symlink_to(real)
    elif how == "missing directories in root's":
        shutil.rmtree(server.libdir.parent)
    else:
        shutil.rmtree(server.libdir.parent)
        mkdir_owned(server.libdir.parent.parent / "sticky", 0, 0o1777)
        sticky = server.libdir.parent.parent / "sticky" / "pg"
        mkdir_owned(sticky / "lib", 0)
        mkdir_owned(sticky / "share" / "extension", 0)
        server.libdir.parent.symlink_to(sticky)
    run = server.install(SHELLS[0])
    assert run.returncode == 0, run.stderr
    server.assert_installed()
    for d in (server.libdir, server.extdir):
        st = d.stat()
        assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (0, 0o755)


def test_an_ordinary_user_installs_into_their_own_directories():
    """Their own server, their own pg_config: as root's are for root; a
    third user's are refused. (pytest's tmp_path is root's alone: this
    server is in a directory all may read.)"""
    top = Path(tempfile.mkdtemp(prefix="ulid-install-", dir="/tmp"))
    third = 4242  # a uid with no name
    try:
        top.chmod(0o755)
        server = make_server(top, owner=OTHER)
        os.chown(server.pg_config, OTHER, OTHER)
        run = server.install(SHELLS[0], user=OTHER)
        assert run.returncode == 0, run.stderr
        server.assert_installed(owner=OTHER)

        os.chown(server.extdir, third, third)
        before = snapshot(top)
        run = server.install(SHELLS[0], user=OTHER)
        assert_refused(run, f"refusing to install into {server.extdir} (pg_config --sharedir/extension): "
                            f"it is owned by uid {third}, neither root nor the user running install.sh (uid {OTHER})")
        assert snapshot(top) == before

        os.chown(server.extdir, OTHER, OTHER)
        os.chown(server.pg_config, third, third)
        before = snapshot(top)
        run = server.install(SHELLS[0], user=OTHER)
        assert_refused(run, f"refusing to run pg_config {server.pg_config}: it is owned by uid {third}, "
                            f"neither root nor the user running install.sh (uid {OTHER})")
        assert snapshot(top) == before
    finally:
        shutil.rmtree(top)
