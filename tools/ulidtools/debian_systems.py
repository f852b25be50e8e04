"""Debian systems in directories, made with debootstrap and apt from exactly the packages inputs.manifest pins,
for the tests that need another Debian than this machine's, or one the build tools have not touched: sid
(PostgreSQL 19 and 18, Ruby), bookworm (a clean Debian 12), bullseye (Debian 11, glibc 2.31, postgresql-13) and
bookworm-arm64 (through qemu-user); see docs/development.md, "Packages". Their local archive is signed by a key
made for it alone, destroyed once it has signed; setup fails if dpkg then lists a package not in the archive at that
version, or, for sid, misses one. `run` mounts /proc, /dev/shm and the archive in a mount namespace of its own,
never on the host. Package scripts start no service (policy-rc.d), and installing a server makes no cluster.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ulidtools import debian_builds, debian_archive, manifest
from ulidtools.base import ToolError, as_root, log, pg_home, run, sha256_hex, sha256_of, stamp_is
from ulidtools.debian_package import apt_index

ARCHIVE_IN_SYSTEM = "/srv/ulid-archive"
# the local archive's public key: in the archive for debootstrap, in the system for apt's signed-by
ARCHIVE_KEYRING = "archive-keyring.gpg"
KEYRING_IN_SYSTEM = "/etc/apt/keyrings/ulid-local-archive.gpg"
# in sid's archive but not installed by setup (ulid-cli is /usr/bin/ulid)
ARCHIVE_ONLY = ("postgresql-server-dev-18", "postgresql-server-dev-19", "ulid-cli")
SERVERS = {
    "sid": ["postgresql-19", "postgresql-18", "postgresql-18-timescaledb", "postgresql-18-partman",
            "postgresql-18-auto-failover"],
    "bookworm": ["sudo", "ca-certificates"],
    "bullseye": ["postgresql-13"],
    "bookworm-arm64": ["postgresql-15"],
}
# run inside unshare: /proc, /dev/shm and the archive (read-only), then chroot
INSIDE = '''
system=$1 archive=$2 inside=$3; shift 3
mount -t proc proc "$system/proc" &&
    mount -t tmpfs -o mode=1777 shm "$system/dev/shm" &&
    mkdir -p "$system$inside" &&
    mount --bind -o ro "$archive" "$system$inside" &&
    exec chroot "$system" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \\
        DEBIAN_FRONTEND=noninteractive "$@"'''
# where a system's clusters keep their data, settings, logs and sockets
CLUSTER_PLACES = ("var/lib/postgresql", "etc/postgresql", "var/log/postgresql", "run/postgresql")


class System:
    def __init__(self, name: str, root: str | None = None):
        if name not in SERVERS:
            raise ToolError(f"no Debian system {name} (sid, bookworm, bullseye, bookworm-arm64)")
        self.name = name
        self.release, _, arch = name.partition("-")
        self.arch = arch or "amd64"
        self.system = Path(root) if root else pg_home() / f"system-{name}"
        self.archive = pg_home() / f"system-{name}-archive"
        self.log = pg_home() / f"system-{name}.log"
        self.servers = SERVERS[name]
        if name != "sid" and not self._lines():
            raise ToolError(f"inputs.manifest pins no package of the system {name}")

    def _lines(self) -> list[manifest.DebianFile]:
        """For sid the 18 and 19 builds' lines and the `debian-system` lines, else its `system` lines."""
        if self.name != "sid":
            return [r for r in manifest.of_kind("system") if r.kind == f"system:{self.name}"]
        builds = debian_builds.pins(19)
        return builds + [r for r in debian_builds.pins(18) if r not in builds] + manifest.of_kind("debian-system")

    def ensure_binfmt(self) -> None:
        """qemu-user registered with binfmt_misc, its interpreter opened then so that it works inside too."""
        if self.arch == "amd64":
            return
        qemu = "qemu-aarch64"
        binfmt = Path("/proc/sys/fs/binfmt_misc")
        if not (binfmt / "register").exists() and \
                as_root(["mount", "-t", "binfmt_misc", "binfmt_misc", str(binfmt)], check=False).returncode != 0:
            raise ToolError(f"binfmt_misc cannot be mounted: {self.name}'s programs cannot run here")

        def enabled() -> bool:
            try:
                return (binfmt / qemu).read_text().startswith("enabled")
            except OSError:
                return False

        if not enabled():
            if not shutil.which("update-binfmts") or not os.access(f"/usr/bin/{qemu}-static", os.X_OK):
                raise ToolError("qemu-user-static and binfmt-support are not installed "
                                "(scripts/setup installs them)")
            if as_root(["update-binfmts", "--enable", qemu], check=False, capture_output=True).returncode != 0:
                as_root(["update-binfmts", "--import", qemu], check=False)
            if not enabled():
                raise ToolError(f"{qemu} is not registered with binfmt_misc")

    def run(self, command: list[str], check: bool = False, **kwargs) -> subprocess.CompletedProcess:
        if not os.access(self.system / "usr" / "bin" / "apt-get", os.X_OK):
            raise ToolError(f"there is no Debian system in {self.system}: run scripts/setup")
        self.ensure_binfmt()
        return as_root(["unshare", "--mount", "--propagation", "private", "sh", "-c", INSIDE, "sh",
                        str(self.system), str(self.archive), ARCHIVE_IN_SYSTEM, *command], check=check, **kwargs)

    def server_versions(self) -> str:
        listed = self.run(["dpkg-query", "-W", "-f", "${Package} ${Version}\n", *self.servers],
                          capture_output=True, text=True).stdout
        return ", ".join(listed.splitlines())

    def make_archive(self) -> None:
        names = [f"{r.kind}:{r.package}/{r.suite}" for r in self._lines()]
        debs = debian_archive.fetch_named(names, debian_archive.downloads())
        shutil.rmtree(self.archive, ignore_errors=True)
        (self.archive / "pool").mkdir(parents=True)
        for deb in debs:
            target = self.archive / "pool" / Path(deb).name
            try:
                os.link(deb, target)
            except OSError:
                shutil.copyfile(deb, target)
        apt_index(self.archive, self.release, [self.arch])
        if len(self._archived()) != len(debs):
            raise ToolError(f"Debian system {self.name}: dpkg-scanpackages did not index every package in "
                            f"{self.archive}/pool")
        self.sign_archive()

    def sign_archive(self) -> None:
        dists = self.archive / "dists" / self.release
        keyring = self.archive / ARCHIVE_KEYRING
        home = tempfile.mkdtemp(prefix="ulid-archive-key.")
        try:
            for command in (["--passphrase", "", "--quick-gen-key", f"ulid local archive of the Debian system "
                             f"{self.name} <archive@ulid.invalid>", "ed25519", "sign", "never"],
                            ["--clearsign", "--output", dists / "InRelease", dists / "Release"],
                            ["--detach-sign", "--output", dists / "Release.gpg", dists / "Release"],
                            ["--output", keyring, "--export"]):
                done = run(["gpg", "--homedir", home, "--batch", "--quiet", *command], capture_output=True, text=True)
                if done.returncode != 0:
                    raise ToolError(f"Debian system {self.name}: the local archive could not be signed: "
                                    f"{done.stderr.strip()}")
        finally:
            subprocess.run(["gpgconf", "--homedir", home, "--kill", "all"], capture_output=True)
            shutil.rmtree(home, ignore_errors=True)
        if run(["gpgv", "--keyring", keyring, dists / "InRelease"], capture_output=True).returncode != 0:
            raise ToolError(f"Debian system {self.name}: the local archive's InRelease does not verify")

    def _archived(self) -> list[str]:
        index = self.archive / "dists" / self.release / "main" / f"binary-{self.arch}" / "Packages"
        return [f"{fields['Package']} {fields['Version']}" for fields in debian_archive.stanzas(index.read_text())]

    def check_installed(self) -> None:
        want = {line for line in self._archived() if line.split()[0] not in ARCHIVE_ONLY}
        listed = self.run(["dpkg-query", "-W", "-f", "${db:Status-Abbrev} ${Package} ${Version}\n"],
                          capture_output=True, text=True, check=True).stdout
        have = {re.sub(r":[a-z0-9]* ", " ", f"{w[1]} {w[2]}", count=1)
                for w in (line.split() for line in listed.splitlines()) if len(w) == 3 and w[0] == "ii"}
        missing, extra = sorted(want - have) if self.name == "sid" else [], sorted(have - want)
        for what, lines in (("pinned, not installed", missing), ("installed, not pinned", extra)):
            for line in lines:
                print(f"  {what}: {line}", file=sys.stderr)
        if missing or extra:
            raise ToolError(f"Debian system {self.name}: what apt installed is not what the local archive holds")

    def _write(self, path: Path, text: str, mode: str = "644") -> None:
        as_root(["install", "-D", "-m", mode, "/dev/stdin", str(path)], input=text, text=True)

    def _failed(self, what: str) -> ToolError:
        lines = self.log.read_text(errors="replace").splitlines()[-20:] if self.log.exists() else []
        sys.stderr.write("".join(f"{line}\n" for line in lines))
        return ToolError(f"Debian system {self.name}: {what} (log: {self.log})")

    def setup(self) -> None:
        started = time.monotonic()
        pins = [f"{r.archive} {r.suite} {r.package} {r.version} {r.path} {r.size} {r.sha256}" for r in self._lines()]
        stamp = sha256_hex("".join(f"{line}\n" for line in pins) + sha256_of(Path(__file__)))
        marker = self.system / ".ulid-system"
        if stamp_is(marker, stamp):
            log(f"Debian system {self.name}: present in {self.system} ({self.server_versions()})")
            return
        log(f"Debian system {self.name}: making {self.release} ({self.arch}) with {' '.join(self.servers)} "
            f"in {self.system}")
        self.ensure_binfmt()
        self.make_archive()
        as_root(["rm", "-rf", str(self.system)])
        with open(self.log, "w") as out:
            made = as_root(["debootstrap", f"--arch={self.arch}", "--variant=minbase",
                            f"--keyring={self.archive / ARCHIVE_KEYRING}", "--force-check-gpg",
                            "--merged-usr", self.release, str(self.system), f"file://{self.archive}"],
                           check=False, stdout=out, stderr=subprocess.STDOUT)
        if made.returncode != 0:
            raise self._failed("debootstrap failed")
        # apt reads the signed local archive only; no service starts; no main cluster
        as_root(["install", "-D", "-m", "644", str(self.archive / ARCHIVE_KEYRING),
                 str(self.system / KEYRING_IN_SYSTEM.lstrip("/"))])
        self._write(self.system / "etc" / "apt" / "sources.list",
                    f"deb [signed-by={KEYRING_IN_SYSTEM}] file:{ARCHIVE_IN_SYSTEM} {self.release} main\n")
        self._write(self.system / "usr" / "sbin" / "policy-rc.d", "#!/bin/sh\nexit 101\n", "755")
        self._write(self.system / "etc" / "postgresql-common" / "createcluster.d" / "no-main-cluster.conf",
                    "create_main_cluster = false\n")
        # sid's packages but ARCHIVE_ONLY (minbase misses one that only Debian's index, not its control file, ranks
        # `required`: bsdutils), another system's SERVERS (the rest stay in its archive)
        wanted = [r.package for r in self._lines() if r.package not in ARCHIVE_ONLY] if self.name == "sid" \
            else self.servers
        with open(self.log, "a") as out:
            for command in (["apt-get", "update"], ["apt-get", "install", "-y", "--no-install-recommends", *wanted],
                            ["apt-get", "clean"]):
                if self.run(command, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
                    raise self._failed(f"installing {' '.join(self.servers)} failed")
        self.check_installed()
        self._write(marker, f"{stamp}\n")
        log(f"Debian system {self.name}: {self.server_versions()} installed with apt in {self.system} "
            f"({len(pins)} pinned packages, {round(time.monotonic() - started)} s)")

    def clone(self, directory: str) -> None:
        """A copy, without CLUSTER_PLACES: runs using the system itself may be changing them."""
        if not (self.system / ".ulid-system").is_file():
            raise ToolError(f"there is no Debian system {self.name} in {self.system}: run scripts/setup")
        as_root(["rm", "-rf", directory])
        as_root(["mkdir", "-p", directory])
        left_out = [f"--exclude=./{place}/*" for place in CLUSTER_PLACES]
        as_root(["bash", "-o", "pipefail", "-c",
                 'tar -C "$1" "${@:3}" --numeric-owner -cf - . | tar -C "$2" --numeric-owner -xpf -',
                 "bash", str(self.system), directory, *left_out])

    def serves(self, major: str) -> bool:
        return any(r.package == f"postgresql-{major}" for r in self._lines())
