"""The results, read: latest.json, callgrind-pgVERSION.json and cli.json, in bench/results/ or another directory."""

from __future__ import annotations

import json
from pathlib import Path

from bench.measure import Result
from ulidtools.base import ROOT

RESULTS = ROOT / "bench" / "results"
CLI_RESULTS_FILE = "cli.json"  # what bench/cli (cli_bench.py) writes
PAGE = ROOT / "docs" / "performance.md"


def load(out: Path) -> dict:
    return json.loads((out / "latest.json").read_text())


def runs_of(data: dict) -> list[dict]:
    return sorted(data["versions"], key=lambda run: run["version"])


def results_of(run: dict) -> list[Result]:
    return [Result(**r) for r in run["results"]]


def sweep_of(run: dict) -> dict[int, Result]:
    return {int(c): Result(**r) for c, r in sorted(run.get("sweep", {}).items(), key=lambda kv: int(kv[0]))}


def by_key(run: dict) -> dict[str, Result]:
    return {**{r.key: r for r in results_of(run)}, **{r.key or f"sweep-{c}": r for c, r in sweep_of(run).items()}}


def load_counts(out: Path) -> list[dict]:
    """What bench/callgrind recorded in OUT, in version order."""
    counts = [json.loads(p.read_text()) for p in out.glob("callgrind-pg*.json")]
    return sorted(counts, key=lambda c: (int(str(c["version"]).split("-")[0]), str(c["version"])))


def load_cli(out: Path) -> dict | None:
    path = out / CLI_RESULTS_FILE
    return json.loads(path.read_text()) if path.exists() else None
