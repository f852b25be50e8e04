"""docs/development.md's map of the tree is the tree's: every top-level
folder and file git tracks has a row in "Where things live", every folder of tests/ one in the
table of what the tests check, and every path either table names exists."""

from __future__ import annotations

import re
import subprocess

import pytest

from ulidtools.base import ROOT

pytestmark = pytest.mark.builds("15")

PAGE = (ROOT / "docs" / "development.md").read_text()
ROW = re.compile(r"^\| `([^`]+)` \|(.*)\|$", re.M)


def section(title: str) -> str:
    start = PAGE.index(f"## {title}\n")
    end = PAGE.find("\n## ", start + 1)
    return PAGE[start:end if end != -1 else None]


def rows(text: str) -> dict[str, str]:
    return {path: what for path, what in ROW.findall(text)}


def tracked_top_level() -> set[str]:
    """The folders and files at the top of the tree that git tracks."""
    listed = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True, check=True).stdout
    return {line.split("/")[0] for line in listed.splitlines()}


def test_every_top_level_folder_and_file_has_a_row():
    mapped = rows(section("Where things live"))
    assert len(mapped) >= 25, mapped
    tracked = tracked_top_level()
    assert {"src", "inputs.manifest", ".ci", "Cargo.toml"} <= tracked, tracked
    missing = {entry for entry in tracked if not any(p.rstrip("/").split("/")[0] == entry for p in mapped)}
    assert not missing, missing


def test_every_folder_of_tests_has_a_row():
    described = {p.rstrip("/") for p in rows(PAGE) if p.startswith("tests/") and p.count("/") == 2}
    folders = {f"tests/{d.name}" for d in (ROOT / "tests").iterdir()
               if d.is_dir() and not d.name.startswith((".", "__"))}
    assert folders == described, folders ^ described


def test_every_path_the_maps_name_exists():
    named = [path for path in rows(section("Where things live"))] + [p for p in rows(PAGE) if p.startswith("tests/")]
    gone = [path for path in named if not (ROOT / path).exists()]
    # and the paths a row's text names, from the root or from its folder
    for row, what in rows(section("Where things live")).items():
        for path in re.findall(r"`([\w./-]+/[\w./-]*)`", what):
            if not ((ROOT / path).exists() or (ROOT / row / path).exists()):
                gone.append(f"{path} (row {row})")
    assert len(named) > 20, named
    assert not gone, gone
