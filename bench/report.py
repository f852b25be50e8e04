"""Writes the pages again from a run's results (`bench/run --report`, and every run): latest.md, the user's page
and, for bench/results, the figures other pages quote. The run draws the plots.
"""

from __future__ import annotations

from pathlib import Path

from bench.pages import render_latest, render_page
from bench.results_files import PAGE, load, load_counts
from bench.spans import figure_pages, with_figures, write_figures


def write(out: Path, page: Path) -> list[Path]:
    """Returns the paths written."""
    data = load(out)
    quoting = figure_pages() if page.resolve() == PAGE.resolve() else []
    for quoted in quoting:  # every figure readable before anything is written
        with_figures(quoted.read_text(), data)
    (out / "latest.md").write_text(render_latest(data))
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(render_page(data, out, page, load_counts(out)))
    return [out / "latest.md", page, *write_figures(data, quoting)]
