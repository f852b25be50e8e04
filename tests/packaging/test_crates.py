"""ulid-core and ulid-tool package as crates: `cargo package` makes both
(ulid-tool's dependency on ulid-core by version, as crates.io needs it),
each with its README, licence and description, keywords and categories,
and with the files a build needs. The tool's program has its crate's name,
which is also its Debian package's (ulid-cli, on crates.io and in Debian,
is another project's). The extension's own package is not one
for crates.io (`publish = false`): it is built against a PostgreSQL.

Runs once (tools/ulidtools/testrun.py names this file): seconds, with crates.io's index
already fetched by the builds.
"""

from __future__ import annotations

import os
import subprocess
import tarfile
import tomllib

import pytest

from harness.pgcluster import ROOT
from ulidtools.project import VERSION

pytestmark = pytest.mark.once_per_run

CRATES = ["ulid-core", "ulid-tool"]


@pytest.fixture(scope="module")
def packaged(tmp_path_factory) -> dict[str, tarfile.TarFile]:
    target = tmp_path_factory.mktemp("package-target")
    # offline first: the crates' dependencies, at Cargo.lock's versions, are in cargo's cache once the
    # workspace has been built (scripts/test builds it first), and what is checked is the crates' contents, so a
    # slow crates.io must not fail it; where the cache lacks what packaging reads, online, retrying
    command = ["cargo", "package", "--no-verify", "--allow-dirty", *[a for c in CRATES for a in ("-p", c)],
               "--target-dir", str(target)]
    env = {**os.environ, "CARGO_TERM_COLOR": "never", "CARGO_NET_RETRY": "10"}
    run = subprocess.run([*command, "--offline"], cwd=ROOT, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    out = {}
    for crate in CRATES:
        manifest = tomllib.loads((ROOT / "crates" / crate / "Cargo.toml").read_text())
        path = target / "package" / f"{crate}-{manifest['package']['version']}.crate"
        assert path.is_file(), sorted(p.name for p in (target / "package").iterdir())
        out[crate] = tarfile.open(path)
    return out


@pytest.mark.parametrize("crate", CRATES)
def test_the_crate_holds_what_a_build_and_a_reader_need(packaged, crate):
    archive = packaged[crate]
    names = {n.split("/", 1)[1] for n in archive.getnames()}
    assert {"Cargo.toml", "README.md", "src/lib.rs"} <= names, sorted(names)
    manifest = tomllib.loads(archive.extractfile(f"{archive.getnames()[0].split('/')[0]}/Cargo.toml")
                             .read().decode())
    package = manifest["package"]
    for field in ("description", "license", "readme", "keywords", "categories"):
        assert package.get(field), (crate, field)
    assert package["license"] == "MIT"
    assert 1 <= len(package["keywords"]) <= 5
    if crate == "ulid-tool":
        # a crate names its dependencies by version; the path is gone
        core = manifest["dependencies"]["ulid-core"]
        assert core.get("version") and "path" not in core, core
        assert core["version"] == VERSION, core
        assert "src/main.rs" in names
        assert [b["name"] for b in manifest["bin"]] == [crate], manifest["bin"]


def test_the_crates_carry_the_extension_s_version():
    """One version for the extension, ulid-core and ulid-tool: the release's,
    raised together when the next one opens (docs/development.md)."""
    versions = {c: tomllib.loads((ROOT / "crates" / c / "Cargo.toml").read_text())["package"]["version"]
                for c in CRATES}
    assert versions == {c: VERSION for c in CRATES}


def test_the_extension_is_not_a_crates_io_package():
    package = tomllib.loads((ROOT / "Cargo.toml").read_text())["package"]
    assert package.get("publish") is False
