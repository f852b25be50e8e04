"""The release tarball's install.sh, run as root into library and extension
directories that another user may write (a server built from source and
owned by `postgres`), on a tree that scripts/tarball/tree.sh lays out from
a stage made here, with a stand-in pg_config: no server, no build.

- Symbolic links planted at the names the installer writes (the final
  names, and the temporary names an earlier installer used) are replaced,
  never followed: no file outside the target directories changes, and
  each installed file is a regular file of mode 0644 with our content.
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
thirty times.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.pgcluster import ROOT

pytestmark = pytest.mark.once_per_run

TREE_SH = ROOT / "scripts" / "tarball" / "tree.sh"
MAJOR = "15"
# the user that owns the target directories: not root, not us
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

if os.geteuid() != 0:
    pytest.skip("install.sh is run as root, and the targets are another user's", allow_module_level=True)


def write_pg_config(path: Path, version: str, pkglibdir: str, sharedir: str) -> Path:
    path.write_text("#!/bin/sh\n"
                    f"case $1 in\n"
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
                what = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                what = None
            seen[str(p.relative_to(top))] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_uid, what)
    return seen


@dataclass
class Server:
    """A stand-in PostgreSQL installation: its pg_config, library and
    extension directories (owned by OTHER, so writable by another user),
    and a tree laid out by tree.sh; `outside` holds files nothing may touch."""
    root: Path
    tree: Path
    libdir: Path
    extdir: Path
    pg_config: Path
    outside: Path

    def dirs(self) -> dict[str, Path]:
        return {"lib": self.libdir, "extension": self.extdir}

    def install(self, shell: str, *, path: Path | None = None, wrapper: str = "",
                pg_config: Path | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
        """Runs the tree's install.sh with SHELL; PATH searched first, if
        given (stand-in commands); WRAPPER, shell commands run first in the
        process that then becomes install.sh (so $$ there is install.sh's).
        Under umask 077, as on a hardened system: the files are 0644 still."""
        env = dict(os.environ, LC_ALL="C")
        if path is not None:
            env["PATH"] = f"{path}:{env['PATH']}"
        script = f'umask 077\n{wrapper}\nexec "$0" "$1" "$2"'
        return subprocess.run(
            [shell, "-c", script, shell, str(self.tree / "install.sh"), str(pg_config or self.pg_config)],
            capture_output=True, text=True, env=env, cwd=cwd or self.root, timeout=60,
            preexec_fn=default_signals)

    def temporaries(self) -> list[str]:
        return sorted(f"{d.name}/{p.name}" for d in self.dirs().values() for p in d.iterdir()
                      if p.name.startswith(".ulid-install."))

    def assert_installed(self, content: dict[str, dict[str, bytes]] = NEW) -> None:
        for key, files in content.items():
            for name, data in files.items():
                p = self.dirs()[key] / name
                st = p.lstat()
                assert stat.S_ISREG(st.st_mode), f"{p} is not a regular file"
                assert stat.S_IMODE(st.st_mode) == 0o644, f"{p}: mode {stat.S_IMODE(st.st_mode):o}"
                assert st.st_uid == 0
                assert p.read_bytes() == data, p


@pytest.fixture
def server(tmp_path) -> Server:
    stage = tmp_path / "stage"
    for key, sub, files in (("lib", "usr/lib/postgresql/15/lib", LIB),
                            ("extension", "usr/share/postgresql/15/extension", EXTENSION)):
        (stage / sub).mkdir(parents=True)
        for name, data in files.items():
            (stage / sub / name).write_bytes(data)
    tree = tmp_path / "ulid-0.4.0-pg15-linux-x86_64"
    subprocess.run(["sh", str(TREE_SH), str(stage), str(tree), MAJOR], check=True, capture_output=True)

    root = tmp_path / "pg"
    libdir, sharedir = root / "lib", root / "share"
    extdir = sharedir / "extension"
    for d in (libdir, extdir):
        d.mkdir(parents=True)
        os.chown(d, OTHER, OTHER)
        d.chmod(0o755)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_bytes(b"root:x:0:0:root:/root:/bin/sh\n")
    (outside / "shadow").write_bytes(b"root:*:19000:0:99999:7:::\n")
    (outside / "shadow").chmod(0o600)
    (outside / "cron.d").mkdir()
    # directories such as a link at a private directory's name could lead
    # to: root's, mode 0700, empty, like the ones mktemp makes
    for key in NEW:
        (outside / f"root-only-{key}").mkdir(mode=0o700)
    config = write_pg_config(tmp_path / "pg_config", f"PostgreSQL {MAJOR}.8", str(libdir), str(sharedir))
    return Server(tmp_path, tree, libdir, extdir, config, outside)


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


# Someone who may write the target directory wins the race between mktemp
# making the private directory and install.sh entering it: the name now a
# link to a directory elsewhere (root's, mode 0700, empty, one for each
# target directory: as like the one made as can be), or to one of theirs
# in the target directory
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
