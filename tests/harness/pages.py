"""The one reader of the documentation pages' Markdown for the tests: fenced blocks, a section's blocks, a page's
prose and code, and expected output against printed. Pages show the release users install (CURRENT_RELEASE);
`as_built` puts the build's version (the next, between releases) where PostgreSQL prints or takes it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from ulidtools.project import CURRENT_RELEASE, VERSION

# the extension's version where a page shows PostgreSQL print or take it: `version "X"`, version `X`,
# `'X-resync'` or `X-resync`, or alone on an output line (an `extversion` row)
EXTENSION_VERSION = re.compile(r"(?<=version [\"`])\d+\.\d+\.\d+(?=[\"`])"
                               r"|(?<=['`])\d+\.\d+\.\d+(?=-resync['`])|(?<=^ )\d+\.\d+\.\d+$", re.M)


def _swap(text: str, old: str, new: str) -> str:
    return EXTENSION_VERSION.sub(lambda m: new if m.group() == old else m.group(), text)


as_built = partial(_swap, old=CURRENT_RELEASE, new=VERSION)
as_released = partial(_swap, old=VERSION, new=CURRENT_RELEASE)


# a fence: 3+ backticks or tildes, then an info string without backticks (first word: the language)
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)[^`]*$")


@dataclass
class Fenced:
    """A fenced block: the indexes of its opening and closing fence lines, its indentation, its language."""
    start: int
    end: int
    indent: str
    info: str

    def body(self, lines: list[str]) -> list[str]:
        return [line[len(self.indent):] if line.startswith(self.indent) else line.lstrip()
                for line in lines[self.start + 1:self.end]]


def fenced_blocks(lines: list[str], name: str = "page") -> dict[int, Fenced]:
    """Every fenced block of LINES, by its opening line's index; a block closes at a line of at least as many
    of its fence's characters."""
    blocks: dict[int, Fenced] = {}
    end = -1
    for i, line in enumerate(lines):
        fence = FENCE.match(line) if i > end else None
        if fence:
            marker = fence.group("fence")
            end = next((k for k in range(i + 1, len(lines))
                        if lines[k].strip().startswith(marker) and lines[k].strip().strip(marker[0]) == ""), None)
            if end is None:
                raise ValueError(f"{name}:{i + 1}: the block is never closed")
            blocks[i] = Fenced(i, end, fence.group("indent"), fence.group("info"))
    return blocks


def section_blocks(page: Path, heading: str, info: str = "sql", prefix: bool = False) -> list[str]:
    """The INFO blocks of the section titled HEADING (with PREFIX, the first title starting so), up to the next
    heading of its level or above."""
    lines = page.read_text().split("\n")
    fenced = fenced_blocks(lines, page.name)
    blocks: list[str] = []
    level = None
    for i, line in enumerate(prose(page).split("\n")):  # a heading is never inside a block
        title = re.match(r"^(#{1,6})\s+(.*?)\s*$", line)
        if title and level is not None and len(title.group(1)) <= level:
            break
        if title and level is None and (title.group(2).startswith(heading) if prefix else title.group(2) == heading):
            level = len(title.group(1))
        elif i in fenced and level is not None and fenced[i].info == info:
            blocks.append("\n".join(fenced[i].body(lines)))
    assert level is not None, f"{page.name} has no section {heading!r}"
    assert blocks, f"{page.name}: the section {heading!r} has no {info} block"
    return blocks


sql_blocks = section_blocks  # the `sql` blocks of the section under HEADING


def sh_blocks(page: Path) -> list[tuple[int, str]]:
    """Every `sh` block as a script (of a transcript, its `$ ` commands) and its body's line number."""
    lines = page.read_text().split("\n")
    blocks = []
    for i, block in fenced_blocks(lines, page.name).items():
        body = [line.strip() for line in lines[i + 1:block.end]]
        if block.info == "sh":
            if body and body[0].startswith("$ "):
                body = [line[2:] for line in body if line.startswith("$ ")]
            blocks.append((i + 2, "\n".join(body) + "\n"))
    return blocks


def prose(page: Path) -> str:
    """The page with its fenced blocks' lines blanked: text, headings, links and inline code."""
    lines = page.read_text().split("\n")
    for block in fenced_blocks(lines, page.name).values():
        lines[block.start:block.end + 1] = [""] * (block.end + 1 - block.start)
    return "\n".join(lines)


def paragraphs(page: Path) -> list[str]:
    """The page's paragraphs, each fenced block joined to the paragraph before it."""
    lines = page.read_text().split("\n")
    fenced = fenced_blocks(lines, page.name)
    parts: list[list[str]] = [[]]
    end = -1
    for i, line in enumerate(lines):
        if i in fenced:
            if parts[-1] == [] and len(parts) > 1:
                parts.pop()  # the block goes with the paragraph before it
            end = fenced[i].end
            parts[-1].extend(lines[i:end + 1])
        elif i > end and line.strip():
            parts[-1].append(line)
        elif i > end and parts[-1]:
            parts.append([])
    return ["\n".join(p) for p in parts if p]


def code(page: Path, languages: tuple[str, ...] | None = None) -> str:
    """The bodies of the page's fenced blocks (of LANGUAGES, if given) and its inline code."""
    lines = page.read_text().split("\n")
    blocks = ["\n".join(block.body(lines)) for block in fenced_blocks(lines, page.name).values()
              if languages is None or block.info in languages]
    return "\n".join(blocks + re.findall(r"`([^`\n]+)`", prose(page)))


def normalized(lines: list[str]) -> list[str]:
    out = [line.rstrip() for line in lines]
    while out and not out[-1]:
        out.pop()
    return out


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """Line for line, an ellipsis (\u2026) of an expected line standing for any run of characters within it."""
    expected, actual = normalized(expected), normalized(actual)
    return len(expected) == len(actual) and all(re.fullmatch(".*".join(map(re.escape, e.split("\u2026"))), a)
                                                for e, a in zip(expected, actual))
