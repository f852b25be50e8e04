"""The benchmark figures the pages quote are those of the results.

docs/performance.md is written whole by bench/report.py from
bench/results/latest.json; any other page (the README, docs/) that quotes a
figure of the results puts it in a span that names it,

    <!-- figure: ratio 18 insert "VARIANT" "BASELINE" -->0.25<!-- /figure -->

(`ratio VERSION KEY "VARIANT" ["BASELINE"]`: the variant's median over the
baseline's, the case's own baseline when none is named; `median VERSION KEY
"VARIANT"`: the median with its unit; `size VERSION NAME`: one of the run's
sizes), and `bench/run --report` writes the span's value again from the
results. Here:

- every span's value is the figure computed afresh from latest.json (the
  medians recomputed from the recorded measurements, not by the report's
  code), to the precision the page shows;
- a line that quotes a figure in a span quotes no other number with a
  decimal point beside it, outside a span;
- the report's own writing agrees: the performance page and every span are
  what bench/report.py makes of the results today, so a page is never left
  behind the results or the code that shows them;
- no page states a performance figure outside a span (a time per call, a
  ratio, "several times slower", "four fifths of it"): a figure written by
  hand is one no run stands behind, and goes stale when the results change;
  sizes of types ("16 bytes"), versions and counts are no such figures;
- and the check finds what it should: a changed value, a variant or a case
  the results lack, a span it cannot read, a figure written by hand.

Pure Python, on one build (it reads files only).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from harness.pages import fenced_blocks
from harness.pgcluster import ROOT

pytestmark = pytest.mark.builds("15")

RESULTS = ROOT / "bench" / "results" / "latest.json"
PERFORMANCE = ROOT / "docs" / "performance.md"
PAGES = [p for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))] if p != PERFORMANCE]
SPAN = re.compile(r"<!-- figure: (?P<spec>.*?) -->(?P<value>.*?)<!-- /figure -->")
NUMBER = re.compile(r"^(?P<number>\d[\d,]*(?:\.(?P<decimals>\d+))?)(?: (?P<unit>\S+))?$")
# a number with a decimal point that is not part of a version, a name or a path
BARE_DECIMAL = re.compile(r"(?<![\w.\-/])(?<!PostgreSQL )\d+\.\d+(?![\w.\-])")


def name(page: Path) -> str:
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else page.name


# a region a tool writes (`<!-- NAME: generated ... -->...<!-- /NAME -->`),
# a figure span among them, and inline code
GENERATED = re.compile(r"<!-- (?P<name>[\w ]+?)(?::[^>]*)? -->.*?<!-- /(?P=name) -->", re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
_WORD_NUMBER = r"(?:a\s+few|several|many|some|tens\s+of|hundreds\s+of|two|three|four|five|six|ten)"
_COMPARED = r"(?:as|faster|slower|quicker|more|less|longer|shorter|that|its|the)\b"
# a performance figure written in a page's text: a time per call (120 ns,
# 1.4 µs, "a few microseconds"), a ratio (0.78 of it, 2.3 times as long,
# 4×, "several times slower", "twice as fast", "four fifths"), a percentage;
# not a version (Drizzle 0.45), a size of a type (16 bytes), a count
PERFORMANCE_FIGURE = re.compile(
    r"(?<![\w.\-/])\d[\d,]*(?:\.\d+)?\s?(?:ns|µs|μs|us)(?:/\w+)?\b"
    r"|(?<![\w.\-/])\d[\d,]*(?:\.\d+)?\s?ms(?:/\w+)?\s+(?:a|per)\s+\w+"
    rf"|\b(?:{_WORD_NUMBER}|\d[\d,]*(?:\.\d+)?)\s+(?:nano|micro)seconds?\b"
    r"|(?<![\w.\-/])\d[\d,]*(?:\.\d+)?\s?(?:×|x\b(?!-))|×\s?\d"
    rf"|(?<![\w.\-/])\d[\d,]*(?:\.\d+)?\s+times\s+{_COMPARED}"
    rf"|\b{_WORD_NUMBER}\s+times\s+{_COMPARED}"
    r"|\b(?:twice|half|thrice)\s+as\s+(?:fast|slow|long|quick|much)\b"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine)[\s-]+(?:halves|thirds?|quarters?|fifths?|sixths?"
    r"|sevenths?|eighths?|ninths?|tenths?)\b"
    r"|(?<![\w.\-/])\d[\d,]*(?:\.\d+)?\s?(?:%|per\s?cent\b)"
    r"|(?<![\w.\-/])\d*\.\d+(?![\d.\w-])\s+(?:of\s+(?:it|its|the|that)|times)\b"
    r"|\b(?:about|around|roughly|nearly|almost|only|took|takes|costs?)\s+\d*\.\d+(?![\d.\w-])",
    re.I)


def figures_outside_spans(text: str) -> list[tuple[int, str]]:
    """The performance figures TEXT (a page's Markdown) writes by hand, with
    their line: outside fenced blocks, inline code, figure spans and the
    regions tools write."""
    lines = text.split("\n")
    for block in fenced_blocks(lines, "page").values():
        lines[block.start:block.end + 1] = [""] * (block.end + 1 - block.start)
    text = GENERATED.sub(lambda m: "\n" * m.group(0).count("\n"), "\n".join(lines))
    return [(n, m.group(0)) for n, line in enumerate(text.split("\n"), 1)
            for m in PERFORMANCE_FIGURE.finditer(INLINE_CODE.sub("", line))]


def unreleased() -> Path:
    """CHANGELOG.md's Unreleased section, as a page of its own (the released
    sections are history)."""
    text = (ROOT / "CHANGELOG.md").read_text()
    start = text.index("## [Unreleased]")
    end = text.find("\n## [", start + 1)
    page = Path(tempfile.mkdtemp(prefix="ulid-figures-")) / "CHANGELOG-unreleased.md"
    page.write_text(text[start:end if end >= 0 else None])
    return page


def load() -> dict:
    return json.loads(RESULTS.read_text())


def expected(data: dict, spec: str) -> tuple[float, str | None]:
    """The figure SPEC names, from the recorded measurements: its value and
    its unit (None for a ratio or a size). ValueError when the results do not
    have it or SPEC cannot be read."""
    try:
        words = shlex.split(spec)
    except ValueError as e:
        raise ValueError(f"cannot read {spec!r}: {e}") from None
    if len(words) < 3 or not words[1].isdigit():
        raise ValueError(f"cannot read {spec!r}")
    kind, version, rest = words[0], int(words[1]), words[2:]
    records = [r for r in data["versions"] if r["version"] == version]
    if not records:
        raise ValueError(f"no run of PostgreSQL {version}")
    record = records[0]
    if kind == "size":
        if len(rest) != 1 or rest[0] not in record["sizes"]:
            raise ValueError(f"no size {rest} in the run of PostgreSQL {version}")
        return float(record["sizes"][rest[0]]), None
    if kind not in ("ratio", "median") or len(rest) not in ((2, 3) if kind == "ratio" else (2,)):
        raise ValueError(f"cannot read {spec!r}")
    key, variant, *baseline = rest
    cases = [*record["results"], *record.get("sweep", {}).values()]
    found = [c for c in cases if c["key"] == key]
    if not found:
        raise ValueError(f"no case {key!r} on PostgreSQL {version}")
    case = found[0]
    against = baseline[0] if baseline else case["baseline"]
    for variant_name in (variant, against) if kind == "ratio" else (variant,):
        if variant_name not in case["values"]:
            raise ValueError(f"no variant {variant_name!r} in the case {key!r} on PostgreSQL {version}")
    median = statistics.median(case["values"][variant])
    if kind == "median":
        return median, case["unit"]
    return median / statistics.median(case["values"][against]), None


def mismatches(text: str, data: dict) -> list[str]:
    """What is wrong with the spans of TEXT, against DATA."""
    wrong = []
    for m in SPAN.finditer(text):
        spec, shown = m.group("spec"), m.group("value")
        try:
            value, unit = expected(data, spec)
        except ValueError as e:
            wrong.append(f"{spec}: {e}")
            continue
        number = NUMBER.match(shown)
        if number is None:
            wrong.append(f"{spec}: {shown!r} is not a figure")
            continue
        decimals = len(number.group("decimals") or "")
        tolerance = 0.5 * 10 ** -decimals + 1e-9
        if abs(float(number.group("number").replace(",", "")) - value) > tolerance or number.group("unit") != unit:
            wrong.append(f"{spec}: the page shows {shown!r}, the results {value:.4g}{' ' + unit if unit else ''}")
    return wrong


def spans(page: Path) -> list[re.Match]:
    return list(SPAN.finditer(page.read_text()))


def test_every_quoted_figure_is_the_results():
    data = load()
    seen, wrong = 0, []
    for page in PAGES:
        text = page.read_text()
        seen += len(SPAN.findall(text))
        wrong += [f"{name(page)}: {w}" for w in mismatches(text, data)]
    assert not wrong, "run bench/run --report, which writes them again from the results:\n" + "\n".join(wrong)
    # the pages that compare ulid with what users pick instead quote figures
    assert len(spans(ROOT / "docs" / "migrating.md")) >= 20
    assert len(spans(ROOT / "docs" / "time-series.md")) >= 3
    assert seen >= 23, seen


def test_no_figure_stands_beside_a_quoted_one_without_its_span():
    """A table row or a line that quotes a figure from the results quotes
    all of its figures that way: a number with a decimal point left outside
    a span is one no check compares with the results."""
    bare = []
    for page in PAGES:
        for n, line in enumerate(page.read_text().splitlines(), 1):
            if "<!-- figure:" not in line:
                continue
            outside = SPAN.sub("", line)
            if BARE_DECIMAL.search(outside):
                bare.append(f"{name(page)}:{n}: {BARE_DECIMAL.findall(outside)}")
    assert not bare, bare


def test_no_performance_figure_outside_a_span():
    """The README, docs/ (but the performance page, which the report writes
    whole), the crates' READMEs and CHANGELOG.md's Unreleased section state
    no performance figure by hand: one the results have goes in a span,
    any other is said without a number."""
    pages = [*PAGES, *sorted(ROOT.glob("crates/*/README.md")), unreleased()]
    found = [f"{name(page)}:{n}: {figure!r}" for page in pages
             for n, figure in figures_outside_spans(page.read_text())]
    assert not found, "put it in a span (bench/spans.py) or say it without a number:\n" + "\n".join(found)


def test_the_check_finds_a_figure_written_by_hand():
    planted = """A page.

`gen_ulid()` takes 120 ns per call, and 1.4 µs in the portable layer.
The portable layer takes a few microseconds.
`ulid_encrypt` costs about four fifths of what `gen_ulid()` does.
Its ratio is 0.78 of it; inserting was 2.3 times as long, a 4× slowdown.
A temporary table would be several times slower, and twice as slow again.
Lookups are 12% faster; costs 0.9 in all.
"""
    assert [f for _, f in figures_outside_spans(planted)] == [
        "120 ns", "1.4 µs", "a few microseconds", "four fifths", "0.78 of it", "2.3 times as", "4×",
        "several times slower", "twice as slow", "12%", "costs 0.9"]
    assert [n for n, _ in figures_outside_spans(planted)][:2] == [3, 3]
    # the same in spans, in code, in a region a tool writes; and what is no
    # performance figure: sizes of types, versions, counts, times of day
    fine = """A page.

`gen_ulid()` takes <!-- figure: median 19 gen "gen_ulid()" -->111 ns/call<!-- /figure -->; `EXPLAIN` says `0.5 ms`.
<!-- figure: ratio 19 public-ids "ulid_encrypt(u, key)" -->0.78<!-- /figure --> of its time; 1.86 in
<!-- tested where: generated by a tool -->
| 4× | 0.78 of it |
<!-- /tested where -->

```
Time: 0.512 ms
 cost=0.00..35.50 rows=2550 width=16 (4 times the rows)
```

A ULID is 16 bytes, 128 bits; Drizzle 0.45, pgx v5.9, PostgreSQL 18.1, `ulid` 1.2.
2,000,000 rows in 31 chunks, 2,000 values a statement, every 10 minutes,
an id made one millisecond after another, 2^48 values, run it 3 times, the last 30 days.
"""
    assert figures_outside_spans(fine) == []


def test_the_check_finds_what_differs():
    data = load()
    insert_18 = ('<!-- figure: ratio 18 insert "ulid gen_monotonic_ulid() (preloaded)" "uuid uuidv7()" -->'
                 "{}<!-- /figure -->")
    value, _ = expected(data, 'ratio 18 insert "ulid gen_monotonic_ulid() (preloaded)" "uuid uuidv7()"')
    assert mismatches(insert_18.format(f"{value:.2f}"), data) == []
    # one hundredth off either way, a figure with another precision, no figure at all
    assert mismatches(insert_18.format(f"{value + 0.01:.2f}"), data)
    assert mismatches(insert_18.format(f"{value - 0.01:.2f}"), data)
    assert mismatches(insert_18.format(f"{value + 0.1:.1f}"), data)
    assert mismatches(insert_18.format("fast"), data)
    # what the results do not have, or a span that cannot be read
    for spec in ('ratio 18 insert "ulid gen_monotonic_ulid() (not preloaded)" "uuid uuidv7()"',
                 'ratio 15 insert "ulid gen_ulid()" "uuid uuidv7()"',
                 'ratio 17 insert "ulid gen_ulid()"', 'ratio 18 no-such-case "ulid"',
                 'median 18 pk-size', 'size 18 rows', 'speed 18 insert "ulid gen_ulid()"', 'ratio 18 "unclosed'):
        found = mismatches(f"<!-- figure: {spec} -->1.00<!-- /figure -->", data)
        assert len(found) == 1 and found[0].startswith(spec), (spec, found)
    # a size with its unit, and a unit the results do not give
    assert mismatches('<!-- figure: median 18 pk-size "bigint identity" -->42.9 MB<!-- /figure -->', data) == []
    assert mismatches('<!-- figure: median 18 pk-size "bigint identity" -->42.9 kB<!-- /figure -->', data)
    assert mismatches("<!-- figure: size 18 n -->2,000,000<!-- /figure -->", data) == []
    assert mismatches("<!-- figure: size 18 n -->2,000,001<!-- /figure -->", data)
    # and a bare figure beside a quoted one
    line = "| x | <!-- figure: size 18 n -->2,000,000<!-- /figure --> | 0.93 (18) | PostgreSQL 18.6 |"
    assert BARE_DECIMAL.findall(SPAN.sub("", line)) == ["0.93"]


def report(code: str) -> subprocess.CompletedProcess:
    """Runs CODE with bench.report importable, as bench/run runs it."""
    path = os.pathsep.join(str(ROOT / d) for d in ("", "tools", "tests"))
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PYTHONPATH": path},
                          capture_output=True, text=True, timeout=120)


def test_the_report_writes_what_the_pages_show():
    """docs/performance.md and every span are what `bench/run --report`
    writes from the results today; the report refuses a figure the results
    lack, naming it."""
    done = report(
        "import json, sys\nfrom bench import pages, results_files as results, spans\n"
        "data = results.load(results.RESULTS)\n"
        "page = pages.render_page(data, results.RESULTS, results.PAGE, results.load_counts(results.RESULTS))\n"
        "stale = [str(p) for p in spans.figure_pages() if spans.with_figures(p.read_text(), data) != p.read_text()]\n"
        "try:\n"
        "    spans.figure(data, 'ratio 18 insert \"no such variant\"')\n"
        "    refused = ''\n"
        "except ValueError as e:\n"
        "    refused = str(e)\n"
        "json.dump({'page': page, 'stale': stale, 'refused': refused}, sys.stdout)\n")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["page"] == PERFORMANCE.read_text(), "docs/performance.md is behind the results: run bench/run --report"
    assert out["stale"] == [], f"run bench/run --report: {out['stale']}"
    assert "no such variant" in out["refused"], out["refused"]


def test_each_row_of_the_performance_page_says_its_run():
    """Every table of ratios and sizes names, for each row, the run its
    figures come from, and every run is in the table of runs with its date
    and the commit it measured."""
    page = PERFORMANCE.read_text()
    runs = re.search(r"### The runs behind the figures\n\n(?P<table>(?:\|.*\n)+)", page)
    assert runs, "no table of runs"
    numbers = {}
    for row in runs.group("table").splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", cells[1]) and "commit " in cells[2], cells
        numbers[cells[0]] = cells
    data = load()
    assert len(numbers) == len({(e.get("date"), e.get("commit")) for r in data["versions"]
                                for e in [r, *r.get("later", [])]})
    tables = re.findall(r"^\| case \| variant \|.*\| run \|\n\|.*\n((?:\|.*\n)+)", page, re.M)
    assert len(tables) >= 9, len(tables)
    for table in tables:
        for row in table.splitlines():
            last = row.strip("|").split("|")[-1].strip()
            named = re.findall(r"(?:^|, )(\d+)(?: \(|$)", last)
            assert named and set(named) <= set(numbers), row


def test_a_version_measured_again_case_by_case_keeps_only_what_stands():
    """bench/run --case merges a later run into the results: a note whose
    cases were all measured again since goes, and once later runs cover
    every case of a version's own run, the version is theirs (its server,
    no word of the first run's date or time)."""
    done = report(
        "import json, sys\nfrom bench.run import merge\n"
        "def run(server, cases, date):\n"
        "    return {'version': 18, 'server_version': server, 'date': date, 'build': 'release build',\n"
        "            'commit': date, 'machine': 'm', 'minutes': 1.0, 'results': [],\n"
        "            'durations': {c: 1.0 for c in cases}, 'pg_uuidv7': None}\n"
        "data = {'minutes': 3.0, 'versions': [run('18.6', ['a', 'b', 'c'], 'd1')]}\n"
        "steps = []\n"
        "for cases, date in ((['a', 'b'], 'd2'), (['b'], 'd3'), (['a', 'c'], 'd4')):\n"
        "    data = merge(data, {'versions': [run('18.6 (Debian)', cases, date)]}, cases)\n"
        "    record = data['versions'][0]\n"
        "    steps.append([[n['date'] for n in record['later']], record['server_version'],\n"
        "                  bool(record.get('superseded'))])\n"
        "other = {**run('15', ['a'], 'd1'), 'version': 15, 'later': [{'date': 'e1', 'cases': ['a']},\n"
        "                                                      {'date': 'e2', 'cases': ['a']}]}\n"
        "data = merge({'minutes': 1.0, 'versions': [other, run('18.6', ['a'], 'd1')]},\n"
        "             {'versions': [run('18.6', ['a'], 'd2')]}, ['a'])\n"
        "steps.append([n['date'] for n in data['versions'][0]['later']])\n"
        "json.dump(steps, sys.stdout)\n")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        [["d2"], "18.6", False],
        [["d2", "d3"], "18.6", False],
        # d2's a and b were measured again by d4 and d3: it goes; a, b and c are all later runs'
        [["d3", "d4"], "18.6 (Debian)", True],
        # a version the later run did not measure keeps only its standing notes too
        ["e2"],
    ]
