"""What tests read from the documentation pages: the SQL of a section, for
tests that run a page's own recipe on data of their own (the docs test,
tests/docs, runs every page as it is), and how a page's expected output is
compared with what was printed (`…`, U+2026, in an expected line stands
for any run of characters within the line)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
# a fence opens a code block: three or more backticks or tildes, then the
# info string (its first word: the language), which holds no backtick
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)[^`]*$")


@dataclass
class Fenced:
    """A fenced code block: the index of its opening fence line and of its
    closing one in the page's lines, its indentation, and its language."""
    start: int
    end: int
    indent: str
    info: str

    def body(self, lines: list[str]) -> list[str]:
        """Its lines, without the indentation of its fence."""
        return [line[len(self.indent):] if line.startswith(self.indent) else line.lstrip()
                for line in lines[self.start + 1:self.end]]


def fenced_blocks(lines: list[str], name: str = "page") -> dict[int, Fenced]:
    """Every fenced code block of a page's lines, by the index of its
    opening line: the one reader of fences for the docs tests. A block is
    closed by a line of at least as many of its fence's characters."""
    blocks: dict[int, Fenced] = {}
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        marker = fence.group("fence")
        end = i + 1
        while end < len(lines) and not (lines[end].strip().startswith(marker)
                                        and lines[end].strip().strip(marker[0]) == ""):
            end += 1
        if end == len(lines):
            raise ValueError(f"{name}:{i + 1}: the block is never closed")
        blocks[i] = Fenced(i, end, fence.group("indent"), fence.group("info"))
        i = end + 1
    return blocks


def sql_blocks(page: Path, heading: str) -> list[str]:
    """The `sql` blocks of the section under HEADING (its text, without the
    #s), up to the next heading of the same level or above, as written."""
    lines = page.read_text().split("\n")
    fenced = fenced_blocks(lines, page.name)
    blocks: list[str] = []
    level = None
    i = 0
    while i < len(lines):
        if i in fenced:
            block = fenced[i]
            if level is not None and block.info == "sql":
                blocks.append("\n".join(lines[i + 1:block.end]))
            i = block.end + 1
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


def sh_blocks(page: Path) -> list[tuple[int, str]]:
    """Every `sh` block of the page, as a script (a transcript's commands
    only, without their `$ `), with the line its body starts on."""
    lines = page.read_text().split("\n")
    blocks = []
    for i, block in fenced_blocks(lines, page.name).items():
        body = [line.strip() for line in lines[i + 1:block.end]]
        if block.info == "sh":
            if body and body[0].startswith("$ "):
                body = [line[2:] for line in body if line.startswith("$ ")]
            blocks.append((i + 2, "\n".join(body) + "\n"))
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
