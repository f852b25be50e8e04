"""ulid as PGXN takes it: META.json at the root, valid under the PGXN Meta
Spec 1.0.0 by pgxn_meta's validator (tests/packaging/pgxn, a program of
its own outside the workspace, with its own lock file), its versions,
abstract and licence the ones Cargo.toml and LICENSE give; the release
file, `git archive --format=zip --prefix=ulid-VERSION/ HEAD`, with
META.json and the Makefile at the top of ulid-VERSION/; the Makefile's
targets, which `pgxn install` runs (`make`, then `make install`, with
PG_CONFIG given as a make variable), running scripts/install-from-source
for the server given. The validator is shown to fail on copies of
META.json broken on purpose.

`pgxn install ./ulid-VERSION.zip` itself builds the extension (minutes):
docs/install.md#pgxn says what it needs; it is not run here.

Runs once (once_per_run): the validator's first build takes a minute or
two, into cargo's target directory (ULID_CARGO_TARGET), and seconds after that.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import zipfile

import pytest

from harness.pgcluster import ROOT
from ulidtools import cargo_env
from ulidtools.project import VERSION, field

pytestmark = pytest.mark.once_per_run

META_PATH = ROOT / "META.json"
META = json.loads(META_PATH.read_text())
CHECKER = ROOT / "tests" / "packaging" / "pgxn"
# cargo's target directory outside the checkout: a fresh clone reuses it
TARGET = cargo_env.cargo_target() / "pgxn"


@pytest.fixture(scope="module")
def checker() -> str:
    run = subprocess.run(
        ["cargo", "build", "--release", "--locked", "--quiet", "--manifest-path", str(CHECKER / "Cargo.toml"),
         "--target-dir", str(TARGET)],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "CARGO_TERM_COLOR": "never"})
    assert run.returncode == 0, run.stderr
    program = TARGET / "release" / "ulid-pgxn-check"
    assert program.is_file()
    return str(program)


def validate(checker: str, meta: dict, tmp_path, name: str) -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_text(json.dumps(meta, indent=3))
    return subprocess.run([checker, str(path)], capture_output=True, text=True)


def test_meta_json_is_valid_under_the_spec_1_0_0(checker):
    run = subprocess.run([checker, str(META_PATH)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == f"{META_PATH}: valid, spec 1", run.stdout


@pytest.mark.parametrize("break_it, why", [
    pytest.param(lambda m: m.pop("license"), "missing properties 'license'", id="no-license"),
    pytest.param(lambda m: m.update(version="0.5"), "at '/version': '0.5' does not match", id="bad-version"),
    pytest.param(lambda m: m["provides"]["ulid"].update(version="v1"), "at '/provides/ulid/version': 'v1'",
                 id="bad-extension-version"),
    pytest.param(lambda m: m["prereqs"]["runtime"]["requires"].update(PostgreSQL="thirteen"),
                 "'thirteen'", id="bad-prerequisite-version"),
])
def test_the_validator_fails_a_copy_broken_on_purpose(checker, tmp_path, break_it, why):
    broken = copy.deepcopy(META)
    break_it(broken)
    run = validate(checker, broken, tmp_path, "META.json")
    assert run.returncode == 1, run.stdout + run.stderr
    assert ": invalid: " in run.stdout and why in run.stdout, run.stdout


def test_an_unchanged_copy_is_valid(checker, tmp_path):
    """The broken copies fail for what was broken, not for being copies."""
    run = validate(checker, copy.deepcopy(META), tmp_path, "META.json")
    assert run.returncode == 0, run.stdout + run.stderr


def test_meta_json_carries_cargo_toml_s_version_and_abstract():
    """One version, written once, in Cargo.toml: the distribution's and the
    extension's in META.json are checked against it."""
    assert META["name"] == "ulid"
    assert META["version"] == VERSION
    assert META["provides"]["ulid"]["version"] == VERSION
    assert META["abstract"] == field("description")
    assert META["meta-spec"] == {"version": "1.0.0", "url": "https://pgxn.org/meta/spec.txt"}
    assert META["prereqs"]["runtime"]["requires"] == {"PostgreSQL": "13.0.0"}
    # unstable until a release: released versions are CHANGELOG.md's dated sections
    assert META["release_status"] == "unstable"


def test_meta_json_s_licence_is_the_license_file_s():
    assert (ROOT / "LICENSE").read_text().splitlines()[0] == "MIT License"
    assert field("license") == "MIT"
    assert META["license"] == "mit"


def test_meta_json_names_a_repository_only_where_cargo_toml_does():
    """No address is invented: resources follow Cargo.toml's `repository`."""
    repository = field("repository")
    if not repository:
        assert "resources" not in META, META.get("resources")
    else:
        assert META["resources"]["repository"]["web"] == repository


def test_the_files_meta_json_names_exist():
    for key in ("file", "docfile"):
        assert (ROOT / META["provides"]["ulid"][key]).is_file(), key


def test_the_release_file_holds_meta_json_at_its_top(tmp_path):
    path = tmp_path / f"ulid-{VERSION}.zip"
    subprocess.run(["git", "-C", str(ROOT), "archive", "--format=zip", f"--prefix=ulid-{VERSION}/",
                    "-o", str(path), "HEAD"], check=True)
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        assert all(n.startswith(f"ulid-{VERSION}/") for n in names), names[:5]
        top = f"ulid-{VERSION}/"
        for name in ("META.json", "Makefile", "scripts/install-from-source", "Cargo.toml", "ulid.control"):
            assert top + name in names, name
        meta = json.loads(archive.read(top + "META.json"))
    # the commit's META.json, as committed
    assert meta["version"] == VERSION


def make_n(*args: str, env: dict | None = None) -> str:
    run = subprocess.run(["make", "-n", "-s", *args], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, **(env or {})})
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_make_install_runs_install_from_source_for_the_server_given():
    # as pgxn install runs it: `make PG_CONFIG=... install`
    assert make_n("PG_CONFIG=/srv/pg/bin/pg_config", "install") == \
        'sh scripts/install-from-source "/srv/pg/bin/pg_config"\n'
    # PG_CONFIG in the environment, and pg_config on PATH without either
    assert make_n("install", env={"PG_CONFIG": "/srv/pg/bin/pg_config"}) == \
        'sh scripts/install-from-source "/srv/pg/bin/pg_config"\n'
    env = {k: v for k, v in os.environ.items() if k != "PG_CONFIG"}
    run = subprocess.run(["make", "-n", "install"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert run.stdout == 'sh scripts/install-from-source "pg_config"\n', run.stdout


def test_make_alone_builds_nothing():
    """The build is the install's, for the server it is given."""
    out = make_n("PG_CONFIG=/srv/pg/bin/pg_config")
    assert "cargo" not in out and "install-from-source" not in out, out
