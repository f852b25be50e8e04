"""The tables of versions are the `build` lines of inputs.manifest: a build
added, moved to a new minor version or taken away there must show on the
pages (`python3 -m ulidtools tables --write docs/versions.md
docs/development.md`, with tools/ on PYTHONPATH): the versions every test
runs on for users, and where each build comes from for developers."""

from __future__ import annotations

import pytest

from harness.pgcluster import ROOT
from ulidtools.builds import BUILDS, ORIGINS_START, TABLE_PAGES, TABLE_START, with_table


@pytest.mark.parametrize("name", TABLE_PAGES)
def test_the_tables_list_every_build_the_manifest_declares(name):
    page = (ROOT / name).read_text()
    assert with_table(page) == page, f"{name}: run python3 -m ulidtools tables --write {' '.join(TABLE_PAGES)}"
    for build in BUILDS.values():
        assert f"| {build.name} | {build.version} |" in page


def test_each_table_is_on_its_page():
    versions, development = ((ROOT / name).read_text() for name in TABLE_PAGES)
    assert TABLE_START in versions and ORIGINS_START not in versions
    assert ORIGINS_START in development and TABLE_START not in development
