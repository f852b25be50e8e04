"""Benchmarks: ulid against what users would pick instead, side by side, in one run (what a run does and writes:
docs/development.md, "Benchmarks"; how to run them, and what the figures mean: docs/performance.md).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from bench import cases, clusters, pg_uuidv7, plots, report, results_files
from bench.measure import FULL, QUICK, Bench
from ulidtools import package
from ulidtools.builds import BENCH_BUILDS


def run_version(version: int, quick: bool, build: bool, attempt: int = 1, only: list[str] | None = None) -> dict:
    """Measures one PostgreSQL version (every case, or those in `only`); returns its latest.json record."""
    sizes = QUICK if quick else FULL
    profile = "debug" if quick else "release"
    if build:
        package.install(str(version), profile)
    build_kind = f"{profile} build" if build else "the installed build (--installed)"
    commit = clusters.source_commit() if build else None  # what was built, before others commit more
    guard = clusters.LibraryGuard(version)
    pg_uuidv7.install(str(version))
    started = time.time()
    with clusters.benchmark_clusters(version) as (cluster, session_cluster, start_other):
        guard.check("the start of the clusters")
        bench = Bench(cluster, session_cluster, sizes, start_cluster=start_other)
        bench.release = not quick  # the build a case packages for another server
        try:
            (server_version,) = bench.sql("SHOW server_version").fetchone()
            cases.prepare(bench, pg_uuidv7.origin(cluster.build))
            durations = {}
            for name, step in cases.CASES:
                if (name not in only) if only is not None else (name in cases.NAMED_ONLY):
                    continue
                step_started = time.time()
                try:
                    step(bench)
                except Exception as e:
                    guard.check(name, e)
                    raise
                guard.check(name)
                durations[name] = time.time() - step_started
                # tag each result with its case, so a later `--case` run of it is told apart
                for r in [*bench.results, *bench.sweep.values()]:
                    r.step = r.step or name
                print(f"  PostgreSQL {version}: {time.time() - started:5.0f} s  {name}", file=sys.stderr)
            minutes = (time.time() - started) / 60
        finally:
            bench.close()
    return {
        "version": version, "server_version": server_version, "quick": quick, "minutes": minutes,
        "sweep_seconds": sizes.sweep_seconds, "sweep_repeats": sizes.sweep_repeats, "attempt": attempt,
        "pg_uuidv7": bench.pg_uuidv7, "unavailable": bench.unavailable,
        "results": [asdict(r) for r in bench.results],
        "sweep": {str(c): asdict(r) for c, r in bench.sweep.items()},
        "date": datetime.date.today().isoformat(), "machine": clusters.machine(),
        "random_bytes": clusters.random_bytes(version),
        "build": build_kind, "commit": commit, "cases": list(durations),
        "settings": clusters.SETTINGS, "session_settings": clusters.SESSION_SETTINGS,
        "sizes": asdict(sizes), "durations": durations, "series": bench.series,
    }


def measure(versions: list[int], quick: bool, build: bool, only: list[str] | None = None) -> dict:
    started = time.time()
    records = []
    for v in versions:
        for attempt in range(1, clusters.ATTEMPTS + 1):
            try:
                records.append(run_version(v, quick, build, attempt, only))
                break
            except clusters.LibraryReplaced as e:
                if attempt == clusters.ATTEMPTS:
                    raise
                print(f"  {e}: starting PostgreSQL {v} again", file=sys.stderr)
    records.sort(key=lambda r: r["version"])
    return {"minutes": (time.time() - started) / 60, "versions": records}


def replaced(results: list[dict], new: list[dict]) -> list[dict]:
    """`results` with each key's results replaced by those in `new`, where the first of them was (the page keeps
    the cases' order); keys new to `results` go at the end."""
    unplaced: dict[str, list[dict]] = {}
    for r in new:
        unplaced.setdefault(r["key"], []).append(r)
    replacing = set(unplaced)
    out: list[dict] = []
    for r in results:
        out += unplaced.pop(r["key"], []) if r["key"] in replacing else [r]
    return out + [r for r in new if r["key"] in unplaced]


def merge(earlier: dict, later: dict, names: list[str]) -> dict:
    """`earlier` with a run of the cases `names` only (`later`) merged in: in each version's record the cases'
    results (client sweep and plot data included) are replaced, and a `later` note says when, on what server and
    from which build. Once the notes cover every case, the record is `superseded` and takes the later runs'
    server. A version `earlier` lacks gets the new record."""
    records = {run["version"]: run for run in earlier["versions"]}
    for run in later["versions"]:
        record = records.setdefault(run["version"], run)
        if record is run:  # a version `earlier` lacks
            continue
        note = {**{key: run[key] for key in ("date", "server_version", "build", "commit", "machine", "minutes")},
                "cases": names}
        if run.get("random_bytes"):
            # the server the later run measured: a build may have changed origin
            record["random_bytes"] = run["random_bytes"]
        record["results"] = replaced(record["results"], run["results"])
        if run.get("sweep"):
            record["sweep"] = run["sweep"]
            record.update({key: run[key] for key in ("sweep_seconds", "sweep_repeats")})
        record["series"] = {**record.get("series", {}), **run.get("series", {})}
        record["durations"] = {**record.get("durations", {}), **run["durations"]}
        record["later"] = standing(record.get("later", []) + [note])
        if set(record["durations"]) <= {c for n in record["later"] for c in n["cases"]}:
            record["superseded"] = True
            record["server_version"] = run["server_version"]
            if run.get("pg_uuidv7"):
                record["pg_uuidv7"] = run["pg_uuidv7"]
    for record in records.values():
        record["later"] = standing(record.get("later", []))
    earlier["versions"] = sorted(records.values(), key=lambda r: r["version"])
    return earlier


def standing(notes: list[dict]) -> list[dict]:
    """NOTES, oldest first, without those all of whose cases a later note measured again."""
    return [n for k, n in enumerate(notes)
            if not set(n["cases"]) <= {c for m in notes[k + 1:] for c in m["cases"]}]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=int, nargs="+", default=[int(b) for b in BENCH_BUILDS], metavar="BUILD")
    parser.add_argument("--case", nargs="+", metavar="NAME",
                        help="run these cases only, and merge their results into DIR/latest.json")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repeat: checks the runner works")
    parser.add_argument("--out", type=Path, default=results_files.RESULTS, metavar="DIR",
                        help="where the results go (default: bench/results)")
    parser.add_argument("--installed", action="store_true", help="use the extension already installed")
    parser.add_argument("--report", action="store_true",
                        help="write latest.md and the page again from DIR/latest.json, without measuring")
    parser.add_argument("--builds", action="store_true",
                        help="print the builds a run with these arguments measures (bench/run sets them up)")
    args = parser.parse_args()

    if args.builds:
        print(" ".join(map(str, args.build)))
        return 0

    if args.report:
        if not (args.out / "latest.json").exists():
            parser.error(f"{args.out / 'latest.json'} does not exist: run bench/run first")
        try:
            written = report.write(args.out, page_for(args.out))
        except ValueError as e:  # a figure a page quotes that the results do not have
            print(f"bench/run: {e}", file=sys.stderr)
            return 1
        print("written: " + ", ".join(map(str, written)), file=sys.stderr)
        return 0

    if args.case:
        unknown = sorted(set(args.case) - {name for name, _ in cases.CASES})
        if unknown:
            parser.error(f"no such case: {', '.join(unknown)} (the cases: {', '.join(n for n, _ in cases.CASES)})")
    out = Path(tempfile.mkdtemp(prefix="ulid-bench-")) if args.quick else args.out
    out.mkdir(parents=True, exist_ok=True)
    measured = measure(args.build, args.quick, not args.installed, args.case)
    earlier = args.case and (out / "latest.json").exists()
    data = merge(results_files.load(out), measured, args.case) if earlier else measured
    (out / "latest.json").write_text(json.dumps(data, indent=1) + "\n")
    for run in measured["versions"]:
        plots.write_plots(run, out)
    written = report.write(out, page_for(out))
    print(written[0].read_text())
    print("written: " + ", ".join(map(str, written)) + ", latest.json and the plots beside them", file=sys.stderr)
    return 0


def page_for(out: Path) -> Path:
    return results_files.PAGE if out.resolve() == results_files.RESULTS.resolve() else out / "performance.md"


if __name__ == "__main__":
    sys.exit(main())
