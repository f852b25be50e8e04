"""The tables of versions are the `build` lines of inputs.manifest: a build
added, moved to a new minor version or taken away there must show on the
pages (`python3 -m ulidtools tables --write docs/versions.md
docs/development.md`, with tools/ on PYTHONPATH): the versions every test
runs on for users, and where each build comes from for developers."""

from __future__ import annotations

import pytest

from harness.pgcluster import ROOT, assertions_build_for, has_extension
from ulidtools import tested
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


@pytest.mark.builds("15")
def test_the_table_of_what_is_tested_where_is_current():
    """Made from the tests' markers as pytest collects them: a test whose
    builds change changes the table, and this fails until the page has it."""
    page = (ROOT / "docs" / "versions.md").read_text()
    assert tested.START in page and tested.UPGRADES_START in page
    collected = tested.collect()
    assert tested.with_tables(page, collected) == page, \
        f"run python3 -m ulidtools tables --write {' '.join(TABLE_PAGES)}"
    # every row stands for tests that exist, and the table follows them: one
    # build fewer for the two writers' tests is another table
    narrowed = {node: dict(t, builds=[b for b in t["builds"] if b != "18"])
                if node.startswith("tests/operations/test_two_writers.py") else t
                for node, t in collected.items()}
    assert tested.table(narrowed) != tested.table(collected)
    with pytest.raises(ValueError, match="no test is"):
        tested.builds_of(tested.Row("tested-nothing", "nothing", ("tests/no_such_test.py",)), collected)


@pytest.mark.builds("15")
def test_the_extensions_marker_follows_the_builds():
    """A build without contrib (16's wheel) has no postgres_fdw: its row has
    no mark for it, as the test is skipped there. (A build whose version has
    a build with assertions that has postgres_fdw, 18, leaves it to that one.)"""
    collected = tested.collect()
    row = next(r for r in tested.ROWS if r.anchor == "tested-postgres-fdw")
    on = tested.builds_of(row, collected)
    for name in BUILDS:
        # (the table is made for a run of every build, as tested.collect collects)
        instead = assertions_build_for(name, list(BUILDS))
        checked_instead = instead is not None and has_extension(instead, "postgres_fdw")
        assert (name in on) == (has_extension(name, "postgres_fdw") and not checked_instead), name


def test_a_row_marked_but_skipped_is_found():
    """What a build's run records (conftest.py's --ran-report) is checked
    against the table: a row it marks for the build whose every test was
    skipped there (a stack whose tool is missing, a node too old) is named,
    with the reasons; one test of it run is enough; a row the table does
    not mark for the build, or whose tests the run did not have, is not
    judged."""
    page = (ROOT / "docs" / "versions.md").read_text()
    marks = tested.marked(page)
    assert set(marks) == {row.anchor for row in tested.ROWS}
    orms = "tests/clients/test_client_js_orm.py"
    build = sorted(marks["tested-js-orms"])[0]
    skipped = {f"{orms}::test_{name}": {"outcome": "skipped", "reason": "node 20.11 is older than 20.19"}
               for name in ("prisma", "drizzle")}
    found = tested.rows_not_run(build, skipped, page)
    assert len(found) == 1 and found[0].startswith("tested-js-orms") and "node 20.11" in found[0], found
    one_ran = dict(skipped, **{f"{orms}::test_typeorm": {"outcome": "passed"}})
    assert tested.rows_not_run(build, one_ran, page) == []
    unmarked = next(name for name in BUILDS if name not in marks["tested-js-orms"])
    assert tested.rows_not_run(unmarked, skipped, page) == []
    assert tested.rows_not_run(build, {}, page) == []
