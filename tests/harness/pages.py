"""What tests read from the documentation pages: the SQL of a section, for
tests that run a page's own recipe on data of their own (the docs test,
tests/docs, runs every page as it is), and how a page's expected output is
compared with what was printed (`…`, U+2026, in an expected line stands
for any run of characters within the line)."""

from __future__ import annotations

import re
from pathlib import Path

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
FENCE = re.compile(r"^\s*(`{3,})\s*(\w*)")


def sql_blocks(page: Path, heading: str) -> list[str]:
    """The `sql` blocks of the section under HEADING (its text, without the
    #s), up to the next heading of the same level or above, as written."""
    lines = page.read_text().split("\n")
    blocks: list[str] = []
    level = None
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == fence.group(1))
            if level is not None and fence.group(2) == "sql":
                blocks.append("\n".join(lines[i + 1:end]))
            i = end + 1
            continue
        title = HEADING.match(lines[i])
        if title:
            if level is not None and len(title.group(1)) <= level:
                break
            if title.group(2) == heading:
                level = len(title.group(1))
        i += 1
    assert level is not None, f"{page.name} has no section {heading!r}"
    assert blocks, f"{page.name}: the section {heading!r} has no sql block"
    return blocks


ANY = "\u2026"


def normalized(lines: list[str]) -> list[str]:
    """Lines without trailing whitespace, and without trailing blank lines."""
    out = [line.rstrip() for line in lines]
    while out and not out[-1]:
        out.pop()
    return out


def line_matches(expected: str, actual: str) -> bool:
    if ANY not in expected:
        return expected == actual
    return re.fullmatch(".*".join(map(re.escape, expected.split(ANY))), actual) is not None


def output_matches(expected: list[str], actual: list[str]) -> bool:
    expected, actual = normalized(expected), normalized(actual)
    return len(expected) == len(actual) and all(map(line_matches, expected, actual))
