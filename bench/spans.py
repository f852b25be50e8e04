"""Figures other pages (the README, docs/) quote, in spans that report.write fills in again from the results."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from bench.pages import fmt, shown_path
from bench.results_files import PAGE, by_key
from ulidtools.base import ROOT

# <!-- figure: ratio 18 insert "VARIANT" "BASELINE" -->0.25<!-- /figure --> (the forms: tests/docs/test_figures.py,
# which checks them); the value is written as the performance page writes it (pages.fmt).
FIGURE = re.compile(r"<!-- figure: (?P<spec>.*?) -->(?P<value>.*?)<!-- /figure -->")


def figure(data: dict, spec: str) -> str:
    words = shlex.split(spec)
    if len(words) < 3 or words[0] not in ("ratio", "median", "size") or not words[1].isdigit():
        raise ValueError(f"cannot read the figure {spec!r} (write: ratio|median|size VERSION ...)")
    kind, version, rest = words[0], int(words[1]), words[2:]
    record = next((run for run in data["versions"] if run["version"] == version), None)
    if record is None:
        raise ValueError(f"figure {spec!r}: the results have no run of PostgreSQL {version}")
    if kind == "size":
        if len(rest) != 1 or rest[0] not in record.get("sizes", {}):
            raise ValueError(f"figure {spec!r}: the run of PostgreSQL {version} recorded no size {rest[0]!r}")
        return f"{record['sizes'][rest[0]]:,}"
    if len(rest) not in ((2, 3) if kind == "ratio" else (2,)):
        raise ValueError(f"figure {spec!r}: write {kind} VERSION KEY \"VARIANT\"" + (
            " [\"BASELINE\"]" if kind == "ratio" else ""))
    key, variant, *baseline = rest
    r = by_key(record).get(key)
    if r is None:
        raise ValueError(f"figure {spec!r}: PostgreSQL {version} has no case {key!r}")
    for name in [variant, *baseline]:
        if name not in r.values:
            raise ValueError(f"figure {spec!r}: the case {key!r} on PostgreSQL {version} has no variant {name!r}")
    if kind == "median":
        return f"{fmt(r.median(variant))} {r.unit}"
    return f"{r.ratio(variant, baseline[0] if baseline else None):.2f}"


def with_figures(text: str, data: dict) -> str:
    return FIGURE.sub(lambda m: f"<!-- figure: {m.group('spec')} -->{figure(data, m.group('spec'))}"
                                "<!-- /figure -->", text)


def figure_pages() -> list[Path]:
    return [p for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))] if p != PAGE]


def refigured(data: dict, pages: list[Path]) -> dict[Path, str]:
    """The PAGES whose figure spans DATA changes, with their text written again."""
    changed = {}
    for page in pages:
        text = page.read_text()
        try:
            new = with_figures(text, data)
        except ValueError as e:
            raise ValueError(f"{shown_path(page)}: {e}") from None
        if new != text:
            changed[page] = new
    return changed
