"""The pages that show the benchmark results: bench/results/latest.md (every case of every version) and
docs/performance.md (the user's page), every figure computed from the results; RATIOS is what the page compares.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bench.measure import Result
from bench.past_memory import window
from bench.provenance import build_text, monotonic_state, provenance, run_measured
from bench.results_files import by_key, load_cli, results_of, runs_of, sweep_of
from ulidtools.base import ROOT
from ulidtools.builds import BENCH_BUILDS

CLI_TARGET = 2.0  # the ratio the section on the command-line tool (bench/cli) aims at


# Reasons and origins as runs record them (for latest.md), said for the user's page as what they mean for the figures.
READER_WORDS = [
    (r"^no pg_uuidv7 for PostgreSQL (\d+) \(.*\)$", r"pg_uuidv7 was not installed in this run"),
    (r"^this build of PostgreSQL (\d+) has no pgcrypto$",
     r"the build measured has no pgcrypto, so there is no comparison with pgcrypto's AES"),
    (r"^Debian's TimescaleDB is for PostgreSQL (\d+): measured in its run$",
     r"TimescaleDB was measured on PostgreSQL \1 only"),
    (r"^(pg_uuidv7 [^:]+): Debian's binary package (\S+) (\S+), unpacked\b.*$", r"\1, from Debian's package \2 \3"),
    (r"^(pg_uuidv7 [^:]+): built from Debian's source package (\S+?)(?:\.orig)?\.tar\.\w+$",
     r"\1, built from Debian's source package \2"),
]


def for_readers(text: str) -> str:
    return next((re.sub(pattern, words, text) for pattern, words in READER_WORDS if re.match(pattern, text)), text)


def fmt(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def settings_text(settings: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in settings.items())


def session_difference(run: dict) -> str | None:
    main, session = run.get("settings"), run.get("session_settings")
    if main is None or session is None:
        return None
    return ", ".join(f"{k}='{v}'" if v == "" else f"{k}={v}" for k, v in session.items() if main.get(k) != v)


def run_time(run: dict, source) -> str:
    """How long the version's run took and its number; where none of its figures is left, the later runs'."""
    numbers = source.runs_of(run["version"])
    if run.get("superseded"):
        minutes = sum(note.get("minutes", 0) for note in run.get("later", []))
        return f"{minutes:.1f} min (every case again: runs {', '.join(map(str, numbers))})"
    return f"{run['minutes']:.1f} min (run {numbers[0]})"


def rounds_text(results: list[Result]) -> str:
    counts = sorted({r.runs() for r in results if r.runs()}) or [1]
    return plural(counts[0], "round") if len(counts) == 1 else f"{counts[0]} to {counts[-1]} rounds, by case"


def table(header: list[str], rows: list[list[str]], right_from: int) -> list[str]:
    return ["| " + " | ".join(header) + " |",
            "| " + " | ".join("---:" if i >= right_from else "---" for i in range(len(header))) + " |",
            *("| " + " | ".join(row) + " |" for row in rows)]


def render_latest(data: dict) -> str:
    return (
        "# ulid benchmarks\n\n"
        "Produced by `bench/run`: ulid against a bigint identity, uuid v4 and uuid v7 (core's uuidv7() and "
        "pg_uuidv7's uuid_generate_v7()) on the same machine in the same run, each case repeated with the "
        "variants interleaved. Only the ratios are meant to be compared; absolute "
        f"times drift on this shared machine. Whole run: {data['minutes']:.1f} min.\n\n"
        + "\n".join(render_version(run) for run in runs_of(data))
    )


def render_version(run: dict) -> str:
    results = results_of(run)
    # the number of runs most cases take their medians from
    usual = Counter(r.runs() for r in results).most_common(1)[0][0] if results else 1
    superseded = run.get("superseded")
    quick = " (quick mode: sizes too small to mean anything)" if run.get("quick") else ""
    lines = [f"## PostgreSQL {run['server_version']}{quick}", ""]
    # (a run whose every case was measured again: the later runs say when and where)
    facts = [] if superseded else [x for x in (run.get("date"), run.get("machine")) if x]
    if facts:
        lines.append(", ".join(facts) + ".  ")
    medians = (rounds_text(results) if superseded else plural(usual, "interleaved run")
               + (" where the notes below say no other" if any(r.runs() != usual for r in results) else ""))
    sweep = (f" (client sweep: {plural(run['sweep_repeats'], 'round')} of {run['sweep_seconds']} s per point)"
             if run.get("sweep") else "")
    difference = session_difference(run)
    method = [f"Medians of {medians}{sweep}",
              "" if superseded else build_text(run),
              run.get("pg_uuidv7") or "pg_uuidv7 not available",
              f"random bytes of gen_random_uuid() and uuidv7(): {run.get('random_bytes', 'not recorded')}",
              f"cluster settings: {settings_text(run['settings'])}" if run.get("settings") else "",
              f"\"not preloaded\" runs on a second cluster with the same settings and {difference}"
              if difference else ""]
    lines.append("; ".join(part for part in method if part) + ".  ")
    if superseded:
        lines.append("Every case of this version's first run was measured again since, in the runs below; "
                     "none of that run's figures is left.")
    else:
        seconds = run.get("durations", {}).get("client_sweep")
        lines.append(f"This version's run took {run['minutes']:.1f} min"
                     + ("" if seconds is None else f" (client sweep {seconds / 60:.1f} min)") + ".")
    for note in run.get("later", []):
        lines[-1] += (f"  \nRun on its own{'' if superseded else ' since'} (`bench/run --case`): "
                      f"{', '.join(note['cases'])}: measured on its own on {note.get('date', 'a date not recorded')}, "
                      f"PostgreSQL {note.get('server_version', '?')}, {build_text(note) or 'build not recorded'}, "
                      f"in {note.get('minutes', 0):.1f} min.")
    if run.get("attempt", 1) > 1:
        lines[-1] += (f"  \nThis is attempt {run['attempt']}: the earlier ones stopped because ulid was "
                      "reinstalled by something else on this machine while they ran.")
    rows = []
    for r in results:
        for variant in r.values:
            # a baseline of zero (bigint's full-page images per row can be) has no ratio
            ratio = f"{r.ratio(variant):.2f}" if r.baseline in r.values and r.median(r.baseline) else "–"
            rows.append([r.case, variant, f"{fmt(r.median(variant))} {r.unit}", ratio])
        rows += [[r.case, variant, f"not available: {why}", "–"] for variant, why in r.missing.items()]
    lines += ["", *table(["case", "variant", "median", "ratio"], rows, right_from=2)]
    notes, seen = [], []
    for r in results:
        # a case showing another's measurements against another baseline needs no note of its own
        shared = r.values in seen and not r.note
        seen.append(r.values)
        parts = ([f"{r.runs()} runs" if r.runs() != 1 else "measured once"] if r.runs() != usual and not shared
                 else []) + ([r.note] if r.note else [])
        if parts and r.values:  # a case with nothing measured has its reasons in the table
            notes.append(f"- {r.case}: {'; '.join(parts)}")
    if notes:
        lines += ["", *notes]
    lines += ["", "Ratios divide each median by the median of its case's baseline variant (here: "
              + ", ".join(dict.fromkeys(r.baseline for r in results)) + "), whose own ratio is one. "
              "For times and sizes lower is better; for tps higher is better."]
    return "\n".join(lines) + "\n" + render_sweep(run)


def render_sweep(run: dict) -> str:
    sweep = sweep_of(run)
    if not sweep:
        return ""
    counts = list(sweep)
    first = sweep[counts[0]]
    ref = 2 if 2 in sweep else counts[0]
    rows = [[v, *(f"{fmt(sweep[c].median(v))} ({sweep[c].ratio(v):.2f})" for c in counts),
             f"{sweep[counts[-1]].median(v) / sweep[ref].median(v):.2f}"] for v in first.values]
    rows += [[v, f"not available: {why}", *["–"] * len(counts)] for v, why in first.missing.items()]
    return "\n".join([
        "", "### INSERT throughput by number of clients", "",
        f"{first.case.split(',')[0]}: tps, median of each point, and in brackets the ratio to {first.baseline} "
        f"at the same client count. The last column is the tps at {counts[-1]} clients over the tps at "
        f"{ref} clients. Plot: [clients-pg{run['version']}.png](clients-pg{run['version']}.png).", "",
        *table(["variant", *(plural(c, "client") for c in counts), "scaling"], rows, right_from=1),
    ]) + "\n"


@dataclass(frozen=True)
class Ratio:
    """A row of a ratio table: `variant` of the case `key` against `baseline` (None: the case's own)."""

    key: str
    variant: str
    baseline: str | None = None
    target: float | None = None  # the design's target for this ratio (at most); the page says where it is met


def against(key: str, variant: str, *baselines: str | None) -> list[Ratio]:
    return [Ratio(key, variant, baseline) for baseline in baselines]


# The page's sections: (title, what the section compares, rows); a case a version lacks shows n/a.
RATIOS: list[tuple[str, str, list[Ratio]]] = [
    ("Generating one value",
     "The cost of one call in `SELECT count(f()) FROM generate_series(...)`, against the uuid generators and against "
     "`clock_timestamp()`, a volatile call that does almost nothing and so stands for the executor's own cost per row.",
     [*against("gen", "gen_ulid()", None, "uuidv7()", "uuid_generate_v7() (pg_uuidv7)"),
      *against("gen", "gen_monotonic_ulid() (preloaded)", None, "uuid_generate_v7() (pg_uuidv7)"),
      *(Ratio("gen-floor", variant) for variant in ("gen_ulid()", "gen_monotonic_ulid() (preloaded)",
                                                     "gen_monotonic_ulid() (not preloaded)")),
      Ratio("gen-floor", "gen_monotonic_ulid() (not preloaded)", "gen_monotonic_ulid() (preloaded)")]),
    ("Inserting rows",
     "One `INSERT ... SELECT` into a table whose primary key has a DEFAULT id; time, lower is better.",
     [*against("insert", "ulid gen_monotonic_ulid() (preloaded)", None, "uuid gen_random_uuid()", "uuid uuidv7()",
               "uuid uuid_generate_v7() (pg_uuidv7)"),
      Ratio("insert", "ulid gen_ulid()", "uuid gen_random_uuid()")]),
    ("Sorting, indexing, text and binary input and output",
     "The same random ULIDs (times drawn from 1990 to 2030, 80 random bits) stored as `ulid` and as `uuid`; time, "
     "lower is better.",
     [Ratio(key, "ulid") for key in ("sort", "index", "text-out", "copy-text-out", "text-in", "bin-out", "bin-in")]),
    ("Lookups and time ranges",
     "Point lookups of a random row, by its key (the md5 of the row number, as `ulid` and as `uuid`; a `bigint` "
     "of the row number), are transactions per second (higher is better); range queries, over time-ordered values "
     "stored as `ulid` and as `uuid`, are time (lower is better).",
     [*against("lookup", "ulid", None, "uuid"), Ratio("range-btree", "ulid"), Ratio("range-brin", "ulid")]),
    ("Public ids",
     "`ulid_encrypt()` and `ulid_decrypt()` per call (time, lower is better), against `gen_ulid()` and against "
     "pgcrypto's AES of the same bytes; a point lookup by public id against one by id (transactions per second, "
     "higher is better).",
     [*(Ratio("public-ids", variant) for variant in ("ulid_encrypt(u, key)", "ulid_decrypt(u, key)",
                                                     "ulid_encrypt(u, key), AES-128")),
      Ratio("public-ids", "ulid_encrypt(u, key)", "pgcrypto encrypt(u::bytea, key, 'aes-ecb/pad:none')"),
      Ratio("public-id-lookup", "WHERE id = ulid_decrypt($1, key)")]),
    ("The portable layer",
     "`portable/ulid_portable.sql` ([portable ULIDs](portable.md)), SQL and PL/pgSQL on `uuid`, against the "
     "extension, per call, on the cluster without `ulid` preloaded (time, lower is better). Its target: "
     "`ulid_portable.gen_ulid()` at most 3 times `gen_random_uuid()`, which it calls once, and no slower than "
     "the one-line SQL generator people paste (`lpad(to_hex(...)) || encode(gen_random_bytes(10), 'hex')`, "
     "which checks neither the range nor `ulid.layout`). What `gen_random_uuid()` costs depends on how the server "
     "was built: with OpenSSL (as Debian's packages are) it asks OpenSSL for the bytes; built without it, it reads "
     "`/dev/urandom` on every call (PostgreSQL's `src/port/pg_strong_random.c`; what that costs is not measured "
     "here). The table of the servers above says which each server measured here does "
     "(the times: [bench/results/latest.md](../bench/results/latest.md)).",
     [Ratio("portable-gen", "ulid_portable.gen_ulid()", target=3),
      Ratio("portable-gen", "ulid_portable.gen_ulid()", "gen_ulid()"),
      Ratio("portable-gen", "ulid_portable.gen_ulid()", "the common one-line SQL generator (pgcrypto)", target=1),
      *against("portable-gen", "ulid_portable.gen_monotonic_ulid()", None, "gen_monotonic_ulid() (not preloaded)"),
      Ratio("portable-gen", "ulid_portable.gen_monotonic_ulid(), its state in a temporary table",
            "ulid_portable.gen_monotonic_ulid()"),
      Ratio("portable-text-out", "ulid_portable.ulid_text(uuid)"),
      Ratio("portable-text-in", "ulid_portable.ulid_parse(text)"),
      Ratio("portable-timestamp", "ulid_portable.ulid_timestamp(uuid)")]),
    ("TimescaleDB",
     "Daily hypertables on Debian's PostgreSQL 18 with Debian's TimescaleDB: inserting with a DEFAULT id, and "
     "counting the last day of 30 in each query shape (which chunks each reads is in bench/results/latest.md); "
     "time, lower is better, against a bigint identity with a timestamptz time column.",
     [*(Ratio("ts-insert", variant) for variant in ("ulid column (partition_func ulid_timestamp)",
                                                    "uuid column, ulid.layout = uuidv7")),
      *(Ratio("ts-last-day", f"ulid column (partition_func ulid_timestamp): {query}") for query in (
          "ulid_timestamp(id) >= now() - 1 day", "id >= (now() - 1 day)::ulid", "both bounds")),
      Ratio("ts-last-day", "uuid column, ulid.layout = uuidv7: id >= (now() - 1 day)::ulid::uuid"),
      Ratio("ts-last-day", "ulid column (partition_func ulid_timestamp): id >= a constant::ulid",
            "bigint identity + timestamptz: ts >= a constant")]),
    ("Index and table sizes",
     "Sizes in bytes on disk, lower is better; the sizes themselves are in the next section.",
     [Ratio("btree-size", "ulid"),
      Ratio("brin-size", "ulid"),
      *against("pk-size", "ulid (gen_monotonic_ulid)", None, "uuid v4 (gen_random_uuid)", "uuid v7 (uuidv7)",
               "uuid v7 (a SQL function: this server has no uuidv7)", "uuid v7 (pg_uuidv7)"),
      Ratio("table-size", "ulid (gen_monotonic_ulid)")]),
]
ABSOLUTE = ["btree-size", "brin-size", "pk-size", "table-size"]  # medians shown as they are: sizes drift far less


def render_cli(data: dict | None) -> list[str]:
    lines = ["## The command-line tool", ""]
    if data is None:
        return lines + ["The results hold no figures for the command-line tool yet: `bench/cli` measures them.", ""]
    rows = [[f"`ulid-tool {case['case']}`", f"{1e9 / case['tool_ns_per_id']:,.0f}",
             f"{1e9 / case['core_ns_per_id']:,.0f}", f"{case['ratio']:.2f}"] for case in data["cases"]]
    return lines + [
        f"`bench/cli` runs `ulid-tool` over {data['ids']:,} ids, the output to `/dev/null` (`parse` reads them from a "
        "file), and ulid-core's own loop for the same work in memory (the clock, the CSPRNG and the text for "
        "`new`; the decoder and the fields `parse` prints for `parse`), in the same run; a figure is the median "
        f"of {plural(data['rounds'], 'round')}. The ratio is the tool's time per id over the loop's; "
        f"the target is at most {CLI_TARGET:g}.", "",
        *table(["command", "tool: ids/s", "ulid-core loop: ids/s", "ratio"], rows, right_from=1),
        "",
        f"Measured on {data['date']} ({data['tool']}, {data['cpu']}).", "",
    ]


def case_title(found: dict[int, dict[str, Result]], key: str) -> str:
    """A case's title as the results give it, noting versions whose run titled it otherwise."""
    titles = {v: found[v][key].case for v in found if key in found[v]}
    first = next(iter(titles.values()))
    others = [f"PostgreSQL {v}: {t}" for v, t in titles.items() if t != first]
    return first + (f" ({'; '.join(others)})" if others else "")


def ratio_cell(found: dict[str, Result], ratio: Ratio) -> str:
    r = found.get(ratio.key)
    baseline = ratio.baseline or (r.baseline if r else None)
    if r is None or ratio.variant not in r.values or baseline not in r.values:
        return "n/a"
    return f"{r.ratio(ratio.variant, baseline):.2f}"


def target_text(ratio: Ratio, baseline: str, cells: dict[str, str]) -> str:
    """Whether a ratio's target is met on each server (CELLS: the ratio by version)."""
    measured = {v: float(cell) for v, cell in cells.items() if cell != "n/a"}
    verdict = "; ".join(f"{word} on {', '.join(vs)}" for word, vs in (
        ("met", [v for v, x in measured.items() if x <= ratio.target]),
        ("not met", [v for v, x in measured.items() if x > ratio.target])) if vs)
    return f"Target for `{ratio.variant}` against {baseline}: at most {ratio.target:.2f}; {verdict or 'not measured'}."


def link(target: Path, page: Path) -> str:
    return os.path.relpath(target, page.parent)


def image(png: Path, page: Path, alt: str) -> list[str]:
    return ["", f"![{alt}]({link(png, page)})"] if png.exists() else []


def shown_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def render_page(data: dict, out: Path, page: Path, counts: list[dict] | None = None) -> str:
    """docs/performance.md, from OUT/latest.json and what bench/callgrind recorded in OUT."""
    runs = runs_of(data)
    versions = [run["version"] for run in runs]
    found = {run["version"]: by_key(run) for run in runs}
    source = provenance(data)
    results_dir = link(out, page)
    pg = [f"PostgreSQL {v}" for v in versions]
    lines = [
        "# Performance", "",
        f"<!-- Generated by bench/report.py from {shown_path(out / 'latest.json')}: `bench/run --report` writes "
        "it again. Change the code or the results, not this page. -->", "",
        "How `ulid` compares with the ids PostgreSQL users pick instead: a `bigint` identity column, `uuid` from "
        "`gen_random_uuid()` (version 4), core's `uuidv7()` where the server has it, and `uuid_generate_v7()` from "
        "the pg_uuidv7 extension. Every figure on this page comes from the results in "
        f"[`{shown_path(out)}/`]({results_dir}/), which `bench/run`, `bench/callgrind` and `bench/cli` write; "
        f"[`latest.md`]({results_dir}/latest.md) lists every case with its medians in absolute units.",
        "", "## How the figures were made", "",
        "- Each PostgreSQL version runs every case it can (\"Not available\" below lists what it could not; past "
        "memory only where it is named, `bench/run --case past_memory`) on private clusters of its own, all on the "
        "one machine of that run (the table of runs below says each run's machine). Within a case the variants run "
        "in rounds, one after another (A, B, C, A, B, C, ...; the client sweep turns the order each round), so that "
        "whatever the machine does meanwhile hits all of them alike; a figure is the median of a variant's rounds "
        "(how many rounds each case had is in `latest.md`). Past memory is the exception: each variant runs once, "
        "on a server started afresh for it, as its section says.",
        "- A ratio divides one variant's median by another's, both measured in the same run on the same machine, "
        "and on the same server but for the \"not preloaded\" variants, which run on a second cluster with "
        "identical settings but that one. For times and sizes, below one means `ulid` needs less; for transactions "
        "per second, above one means it does more. Compare ratios, not absolute times: those drift from run to run "
        "on a shared machine, and differ from one machine to the next.",
        "- `gen_monotonic_ulid()` is measured twice: with `ulid` in `shared_preload_libraries` (\"preloaded\") "
        "and on a second cluster, identical but for that setting (\"not preloaded\"). Where each keeps its "
        "state is what the build of the run measured kept: the table of runs below says it for each run.",
        "- A case can be measured again on its own (`bench/run --case`): its figures then come from that later "
        "run, and the other cases' from the earlier one. The tables of ratios and sizes say in their last "
        "column which run each row's figures come from; the client sweep's tables, the plots and the past "
        "memory's table, in the sentence beside them.",
        "- n/a: the variant does not exist on that version, or was not installed there (see below).",
        "", "### The runs behind the figures", "",
        *table(["run", "date", "ulid build", "measured", "machine", "`gen_monotonic_ulid()`'s state in that build"],
               [[str(run.number), run.date, run.build, run_measured(run), run.machine, monotonic_state(run.commit)]
                for run in source.runs], right_from=6),
        "",
    ]
    rows = [
        ["server"] + [run["server_version"] for run in runs],
        ["pg_uuidv7"] + [for_readers(run["pg_uuidv7"]) if run.get("pg_uuidv7") else "not installed" for run in runs],
        ["random bytes of `gen_random_uuid()`, `uuidv7()`"] + [run.get("random_bytes", "not recorded") for run in runs],
        ["medians of"] + [rounds_text(results_of(run)) for run in runs],
        ["time of the version's run"] + [run_time(run, source) for run in runs],
    ]
    if any(run.get("quick") for run in runs):
        rows.append(["sizes"] + ["quick mode: too small to mean anything" if run.get("quick") else "full"
                                 for run in runs])
    lines += [*table([""] + pg, rows, right_from=len(pg) + 1), ""]
    settings = {settings_text(run["settings"]) for run in runs if run.get("settings")}
    if len(settings) == 1:
        difference = session_difference(runs[0])
        lines.append(f"Settings of the benchmark clusters: `{settings.pop()}`"
                     + (f"; the second cluster differs in `{difference}`." if difference else "."))
    else:
        lines += [f"- Settings on PostgreSQL {run['version']}: "
                  + (f"`{settings_text(run['settings'])}`" if run.get("settings") else "not recorded") for run in runs]
    missing = dict.fromkeys((run["version"], why) for run in runs for why in [
        *run.get("unavailable", {}).values(), *(w for r in results_of(run) for w in r.missing.values())])
    if missing:
        lines += ["", "Not available:", ""] + [f"- PostgreSQL {v}: {for_readers(why)}" for v, why in missing]

    def runs_cell(key: str, cells: list[str]) -> str:
        return source.cell({v: key for v, cell in zip(versions, cells) if cell != "n/a"})

    lines += ["", "## Ratios", ""]
    for title, about, ratios in RATIOS:
        lines += [f"### {title}", "", about, ""]
        rows, targets, last = [], [], None
        for ratio in ratios:
            present = [found[v][ratio.key] for v in versions if ratio.key in found[v]]
            baseline = ratio.baseline or next((r.baseline for r in present), "?")
            cells = [ratio_cell(found[v], ratio) for v in versions]
            if all(cell == "n/a" for cell in cells) and not any(ratio.variant in r.missing for r in present):
                continue  # a variant these results do not have yet (measured by a later run)
            rows.append([case_title(found, ratio.key) if ratio.key != last else "", ratio.variant, baseline]
                        + cells + [runs_cell(ratio.key, cells)])
            if ratio.target is not None:
                targets += [target_text(ratio, baseline, dict(zip(map(str, versions), cells))), ""]
            last = ratio.key
        lines += [*table(["case", "variant", "against"] + pg + ["run"], rows, right_from=3), "", *targets]

    rows = []
    for key in ABSOLUTE:
        variants = dict.fromkeys(n for v in versions if key in found[v] for n in found[v][key].values)
        for i, name in enumerate(variants):
            cells = [f"{fmt(found[v][key].median(name))} {found[v][key].unit}"
                     if key in found[v] and name in found[v][key].values else "n/a" for v in versions]
            rows.append([case_title(found, key) if i == 0 else "", name] + cells + [runs_cell(key, cells)])
    lines += ["## Sizes as measured", "",
              "Sizes drift far less than times from run to run (a random key's index by about a percent), "
              "so here they are as they were measured.", "",
              *table(["case", "variant"] + pg + ["run"], rows, right_from=2), "",
              "## INSERT throughput by number of clients", ""]

    for run in runs:
        sweep = sweep_of(run)
        if not sweep:
            continue
        first = next(iter(sweep.values()))
        rows = []
        for name in first.values:
            ratios = [r.ratio(name) for r in sweep.values()]
            rows.append([name, *(f"{r.median(name) / 1e3:.1f}" for r in sweep.values()),
                         "baseline" if name == first.baseline else f"{min(ratios):.2f} to {max(ratios):.2f}"])
        rows += [[name, *["n/a"] * len(sweep), "n/a"] for name in first.missing]
        lines += [
            f"### PostgreSQL {run['version']}", "",
            f"pgbench, one INSERT of a row with a DEFAULT id per transaction, on PostgreSQL "
            f"{run['server_version']}: thousands of transactions per second, each the median of "
            f"{plural(run['sweep_repeats'], 'run')} of {run['sweep_seconds']} s. Higher is better. The last "
            f"column is the lowest and the highest ratio to {first.baseline} over these client counts. "
            f"{source.sentence({run['version']: first.key or first.case})} (what its build kept as "
            "`gen_monotonic_ulid()`'s state: [the runs](#the-runs-behind-the-figures)).", "",
            *table(["id", *(plural(c, "client") for c in sweep), f"against {first.baseline}"], rows, right_from=1),
            *image(out / f"clients-pg{run['version']}.png", page,
                   f"INSERT throughput by number of clients, PostgreSQL {run['version']}"),
            "",
        ]

    growth = [run for run in runs if (out / f"growth-pg{run['version']}.png").exists()]
    if growth:
        lines += ["## Primary key as the table grows", "",
                  "Rows with a DEFAULT id inserted into an empty table in batches: after each batch, the size "
                  "of the primary key (left) and the insert rate of the batch (right). The final sizes are "
                  "in the tables above.", ""]
    for version in (run["version"] for run in growth):
        lines += [f"![Primary key size and insert rate as a table grows, PostgreSQL {version}]"
                  f"({link(out / f'growth-pg{version}.png', page)})", "",
                  f"PostgreSQL {version}: {source.sentence({version: 'pk-size'}).lower()}.", ""]

    for run in runs:
        lines += render_past_memory(run, out, page, source)
    lines += render_counts(counts or []) + render_cli(load_cli(out)) + [
        "## Reproduce", "",
        "As root, in a checkout (`bench/run` installs the servers it measures with `scripts/setup`, and builds "
        "and installs `ulid` first: a release build, a debug one with `--quick`, none with `--installed`):", "",
        "```sh",
        f"bench/run                # {', '.join(BENCH_BUILDS[:-1])} and {BENCH_BUILDS[-1]}, into bench/results/ "
        "and this page",
        "bench/run --build 18      # one build",
        "bench/run --build 18 --case portable   # chosen cases only, merged into bench/results/latest.json",
        "bench/run --build 18 --case past_memory   # past memory: tens of minutes, run only when named",
        "bench/run --quick        # tiny sizes: checks that the runner works, writes to a temporary directory",
        "bench/run --report       # this page and bench/results/latest.md again, from latest.json",
        "bench/callgrind 18       # instructions per call on 18, into bench/results/callgrind-pg18.json",
        "bench/cli                # the command-line tool, into bench/results/cli.json",
        "```",
    ]
    return "\n".join(lines) + "\n"


def render_counts(counts: list[dict]) -> list[str]:
    lines = ["## Instructions per call", ""]
    if not counts:
        return lines + ["The results hold no instruction counts yet: `bench/callgrind VERSION` counts them, "
                        "on the build installed into that version.", ""]
    floors = [next((r["instructions"] for r in c["rows"] if r["expr"] == "clock_timestamp()"), None) for c in counts]
    rows = []
    for label in dict.fromkeys(r["label"] for c in counts for r in c["rows"]):
        found = [next((r["instructions"] for r in c["rows"] if r["label"] == label), None) for c in counts]
        rows.append([label] + ["n/a" if n is None else f"{n:,}" + (f" ({n / floor:.2f})" if floor else "")
                               for n, floor in zip(found, floors)])
    lines += [
        "`bench/callgrind` counts the instructions the executor runs for one row of "
        "`SELECT count(f()) FROM generate_series(...)` under valgrind: unlike times, counts repeat exactly "
        "on a busy machine. In brackets, the ratio to `clock_timestamp()` on the same server. "
        "The kernel's side of reading the clock is not counted.", "",
        *table(["per call"] + [f"PostgreSQL {c['version']}" for c in counts], rows, right_from=1),
        "",
    ]
    for c in counts:
        lines.append(f"- PostgreSQL {c['version']} ({c.get('server_version', 'version not recorded')}): "
                     f"counted on {c.get('date', 'a date not recorded')} over {c['calls']:,} and "
                     f"{2 * c['calls']:,} calls{', ' + c['build'] if c.get('build') else ''}.")
        for preloaded in (True, False):
            step = {r.get("step") or "random": r["instructions"] for r in c["rows"]
                    if r["expr"] == "gen_monotonic_ulid()" and r.get("preloaded") == preloaded}
            if "random" in step and "one" in step:
                more = 100 * (step["random"] / step["one"] - 1)
                lines.append(f"  - `gen_monotonic_ulid()` {'preloaded' if preloaded else 'not preloaded'}: a random "
                             f"step costs {abs(more):.1f} % {'more' if more >= 0 else 'fewer'} instructions per "
                             "call than a step of one.")
    return lines + [""]


def summary(runs: dict, base: dict | None, five: int, of) -> list[str]:
    """The past-memory summary: uuid v4, then the time-ordered ids, against bigint, in the run's figures."""
    v4 = runs.get("uuid gen_random_uuid()")
    if not base or not v4 or not base["steps"] or not v4["steps"]:
        return []

    def ratio(r: dict, field: str, rows: int | None, step: bool = True) -> str:
        """R's FIELD over bigint's: around ROWS, or (STEP) over the last fifth; else the run's own."""
        v, b = of(r, field, rows, step), of(base, field, rows, step)
        return "n/a" if v is None or not b else f"{v / b:.2f}"

    text = (f"What to expect: once the index of a random key outgrows memory, every insert reads a page of it "
            f"and, after each checkpoint, logs that page whole. By {five:,} rows `uuid` v4 inserted at "
            f"{ratio(v4, 'rows_per_s', five)} of `bigint`'s rate, and at {ratio(v4, 'rows_per_s', None)} at the end "
            f"(the last fifth of its {v4['rows']:,} rows), writing {ratio(v4, 'wal_bytes_per_row', None)} times its "
            f"WAL per row ({of(v4, 'fpi_per_row', None, True) * 1000:,.0f} full-page images per 1,000 rows); its "
            f"point lookups ran at {ratio(v4, 'lookups_per_s', None, step=False)} of `bigint`'s. The time-ordered "
            "ids insert at the right-hand end of their index, whose few pages stay in memory:")
    parts = [f"`{name.split(' ', 1)[1]}` kept {ratio(runs[name], 'rows_per_s', None)} of `bigint`'s rate and "
             f"wrote {ratio(runs[name], 'wal_bytes_per_row', None)} times its WAL per row at the end"
             for name in ("ulid gen_monotonic_ulid()", "ulid gen_ulid()", "uuid uuidv7()")
             if runs.get(name) and runs[name]["steps"]]
    if parts:
        text += " " + "; ".join(parts) + "."
    text += (" What they still cost is size: a 16-byte key makes a larger primary key than `bigint`'s "
             "8 bytes (the table's primary key column).")
    mono, rand = runs.get("ulid gen_monotonic_ulid()"), runs.get("ulid gen_ulid()")
    per_ms = of(rand, "rows_per_s", None, True) if rand and rand["steps"] else None
    if mono and rand and mono.get("pk_mb") and rand.get("pk_mb") and per_ms:
        text += (f" `gen_ulid()`'s primary key is {rand['pk_mb'] / mono['pk_mb']:.2f} times "
                 f"`gen_monotonic_ulid()`'s: at its rate at the end, {per_ms:,.0f} rows a second, a "
                 f"millisecond holds about {per_ms / 1000:,.0f} ids, which "
                 "`gen_ulid()` draws in random order, so pages split in the middle and are left part empty; "
                 "`gen_monotonic_ulid()` keeps them in order, so only the last page splits.")
    return [text, ""]


def render_past_memory(run: dict, out: Path, page: Path, source) -> list[str]:
    past = run.get("series", {}).get("past_memory")
    if not past or not past["runs"]:
        return []
    version = run["version"]
    runs = {r["variant"]: r for r in past["runs"]}
    base = runs.get("bigint identity")
    five = min(5_000_000, past["rows"] // 4)
    budget = plural(past["budget_s"] // 60, "minute")

    def of(r: dict, field: str, rows: int | None = None, at_end: bool = False) -> float | None:
        """FIELD of the steps around ROWS (or, AT_END, the last fifth: past_memory.window); else the run's own."""
        if rows is None and not at_end:
            return r.get(field)
        return (window(r["steps"], rows) or {}).get(field)

    def cell(r: dict, field: str, rows: int | None = None, at_end: bool = False, scale: float = 1,
             digits: int = 0, floor: float = 0) -> str:
        """FIELD (see of()) and its ratio to bigint's, unless bigint's is at most FLOOR (next to nothing)."""
        v = of(r, field, rows, at_end)
        if v is None:
            return "n/a"
        b = of(base, field, rows, at_end) if base else None
        ratio = b is not None and b * scale > floor and r is not base
        return f"{v * scale:,.{digits}f}" + (f" ({v / b:.2f})" if ratio else "")

    def missed(r: dict) -> str:
        last = window(r["steps"])
        if not last or not last["index_blocks_read"] + last["index_blocks_hit"]:
            return "n/a"
        return f"{100 * last['index_blocks_read'] / (last['index_blocks_read'] + last['index_blocks_hit']):.1f} %"

    settings = past["settings"]
    lines = ["## Past memory", "",
             f"What happens once a table's primary key no longer fits in memory, on PostgreSQL {version}: "
             f"each id type grows a table of its own to {past['rows']:,} rows, "
             f"{past['clients']} clients inserting {past['batch']} rows a transaction (a multi-row `VALUES` with "
             f"DEFAULT ids, as an application sends them), on a server started afresh for each, "
             f"under {past['label']}; checkpoints at `checkpoint_timeout = {settings['checkpoint_timeout']}` and "
             f"`max_wal_size = {settings['max_wal_size']}`, `full_page_writes = {settings['full_page_writes']}`, "
             f"`synchronous_commit = {settings['synchronous_commit']}`. A variant that falls far behind stops after "
             f"{budget} of inserts, at the rows it reached. In brackets, the ratio to "
             f"`bigint` in the same run. \"Around {five / 1e6:g} M\" takes the rows from {0.8 * five / 1e6:g} M to "
             f"{1.2 * five / 1e6:g} M together, \"at the end\" the last fifth of the rows reached, so that the "
             "full-page images after a checkpoint weigh in each as they do on average. Before the lookups, "
             "`VACUUM (ANALYZE)`, as autovacuum would have run on a table that grew over days.", ""]
    lines += summary(runs, base, five, of)
    header = ["id", "rows reached", f"rows/s around {five / 1e6:g} M", "rows/s at the end",
              f"WAL bytes/row around {five / 1e6:g} M", "WAL bytes/row at the end", "full-page images per 1,000 rows "
              "at the end", "primary key blocks not in shared_buffers at the end", "primary key MB",
              "on disk MB", "point lookups/s", f"the newest {past['step']:,} rows (ms)"]
    rows = [[name, f"{r['rows']:,}" + ("" if r["reached_all"] else " (time budget)"),
             cell(r, "rows_per_s", five), cell(r, "rows_per_s", at_end=True),
             cell(r, "wal_bytes_per_row", five), cell(r, "wal_bytes_per_row", at_end=True),
             cell(r, "fpi_per_row", at_end=True, scale=1000, digits=1, floor=0.05), missed(r), cell(r, "pk_mb"),
             cell(r, "total_mb"), cell(r, "lookups_per_s"), cell(r, "newest_ms", digits=1)] for name, r in runs.items()]
    rows += [[name] + ["n/a"] * (len(header) - 2) + [why] for name, why in past.get("missing", {}).items()]
    return lines + table(header, rows, right_from=1) + image(
        out / f"past-memory-pg{version}.png", page,
        f"Insert rate and WAL per row as the table grows past memory, PostgreSQL {version}") + [
        "", f"{source.sentence({version: 'past-memory-rows'})}. The newest rows, those of the last step (as the "
        "newest hour is a small slice of a real table), are counted as a user would ask for them without "
        "another index: a range of the key for the time-ordered ids, a scan of `created_at` for `bigint` "
        "and `uuid` v4, whose keys say nothing of time. A ratio to `bigint`'s full-page images is left out "
        f"where it has next to none. `bench/run --build {version} --case past_memory` measures it again (tens of "
        f"minutes: at most {budget} of inserts a variant); "
        "`ULID_PAST_MEMORY_VARIANTS` names the variants to run, one alone included.", ""]
