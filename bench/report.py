"""Writes the pages again from the results (`bench/run --report`, and every run); the run draws the plots."""

from __future__ import annotations

from pathlib import Path

from bench.pages import render_latest, render_page
from bench.results_files import PAGE, load, load_counts
from bench.spans import figure_pages, refigured


def write(out: Path, page: Path) -> list[Path]:
    """Returns the paths written; writes nothing unless every figure the pages quote can be read."""
    data = load(out)
    changed = refigured(data, figure_pages() if page.resolve() == PAGE.resolve() else [])
    (out / "latest.md").write_text(render_latest(data))
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(render_page(data, out, page, load_counts(out)))
    for quoted, text in changed.items():
        quoted.write_text(text)
    return [out / "latest.md", page, *changed]
