"""The table of supported versions is the `build` lines of inputs.manifest:
a build added, moved to a new minor version or taken away there must show
on the page (`python3 tests/harness/builds.py --write docs/versions.md`)."""

from __future__ import annotations

from harness.builds import BUILDS, with_table
from harness.pgcluster import ROOT


def test_the_versions_page_lists_every_build_the_manifest_declares():
    page = (ROOT / "docs" / "versions.md").read_text()
    assert with_table(page) == page, "docs/versions.md: run tests/harness/builds.py --write docs/versions.md"
    for build in BUILDS.values():
        assert f"| {build.name} | {build.version} |" in page
