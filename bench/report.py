"""Writes the pages of a run's results again from them (`bench/run
--report`, and every run): latest.md beside the results, the user's page
(docs/performance.md for bench/results) and, for bench/results, every
figure the other pages quote. What each shows is pages.py's, the quoted
figures spans.py's; the plots (plots.py) are drawn by the run itself.
"""

from __future__ import annotations

from pathlib import Path

from bench.pages import render_latest, render_page
from bench.results_files import PAGE, load, load_counts
from bench.spans import figure_pages, with_figures, write_figures


def write(out: Path, page: Path) -> list[Path]:
    """Writes OUT/latest.md and the page from OUT/latest.json and OUT's
    instruction counts; for the results of bench/results, also the figures
    the other pages quote (figure_pages). Returns what it wrote."""
    data = load(out)
    quoting = figure_pages() if page.resolve() == PAGE.resolve() else []
    for quoted in quoting:  # every figure readable before anything is written
        with_figures(quoted.read_text(), data)
    (out / "latest.md").write_text(render_latest(data))
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(render_page(data, out, page, load_counts(out)))
    return [out / "latest.md", page, *write_figures(data, quoting)]
