"""Which run of `bench/run` each figure comes from: a version's own run, or a later run of its case
alone (`later`). Runs are numbered oldest first and labelled with what their build kept as
gen_monotonic_ulid()'s state, so that figures of an older run are not read as those of a newer property.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.results_files import results_of, runs_of, sweep_of
from ulidtools.base import ROOT, output, run


def build_text(run: dict) -> str:
    if not run.get("build"):
        return ""
    return run["build"] + (f" of commit {run['commit']}" if run.get("commit") else "")


# Oldest first: (the commit that changed it, None for the start; what builds from it on keep as
# gen_monotonic_ulid()'s state). git tells which applies to the commit a run recorded.
MONOTONIC_STATES: list[tuple[str | None, str]] = [
    (None, "preloaded: one state for the whole server; not preloaded: one state per session"),
    ("d2a0ea6bdfb151745e8f333bcb408ed141a2342c",
     "preloaded: one state for the whole server; not preloaded: one state per session up to PostgreSQL 16, "
     "one for the whole server from 17 on (in the dynamic shared memory registry)"),
    ("51375affe873f62d368cf349e1de05f33f2acb31",
     "preloaded, or not preloaded on PostgreSQL 17 and later: one state per database; not preloaded up to 16: "
     "one state per session ([generators](generators.md#gen_monotonic_ulid))"),
]


@dataclass
class Run:
    """One run of `bench/run` as the results record it; `cases` None: every case."""

    number: int
    date: str
    build: str
    commit: str | None
    machine: str
    versions: list[int]
    cases: list[str] | None


def run_entries(record: dict) -> list[dict]:
    """A version's record as its runs, oldest first: its own (unless `superseded`), then each `later` note."""
    # "cases": None in records older than the field: every case
    first = {key: record.get(key) for key in ("date", "build", "commit", "machine", "cases")}
    return ([] if record.get("superseded") else [first]) + record.get("later", [])


def run_key(entry: dict) -> tuple[str, str]:
    return entry.get("date") or "a date not recorded", build_text(entry) or "build not recorded"


@dataclass
class Provenance:
    """The runs behind the results, numbered oldest first, and which run each result comes from."""

    runs: list[Run]
    of: dict[tuple[int, str], Run | None]  # (version, result key) -> its run; None: not recorded

    def runs_of(self, version: int) -> list[int]:
        """The numbers of the runs that measured VERSION, its own first."""
        return [run.number for run in self.runs if version in run.versions]

    def sentence(self, keys: dict[int, str]) -> str:
        cell = self.cell(keys)
        return f"From run {cell}" if cell[0].isdigit() else "The run these figures come from is not recorded"

    def cell(self, keys: dict[int, str]) -> str:
        """The runs of a row whose figure on each version comes from the case KEYS[version]: "1", or
        "1 (15), 2 (18, 19)"."""
        by_run: dict[str, list[int]] = {}
        for version, key in keys.items():
            run = self.of.get((version, key))
            by_run.setdefault(str(run.number) if run else "not recorded", []).append(version)
        if len(by_run) == 1:
            return next(iter(by_run))
        return ", ".join(f"{name} ({', '.join(map(str, versions))})" for name, versions in by_run.items())


def run_measured(run: Run) -> str:
    what = "every case but past memory" if run.cases is None else ", ".join(f"`{c}`" for c in run.cases)
    return f"{what}, on PostgreSQL {', '.join(map(str, run.versions))}"


def provenance(data: dict) -> Provenance:
    """Which run each result of DATA comes from: the last later note naming its case, else the version's run;
    for a result without a case, only if nothing was measured since (else not recorded)."""
    records = runs_of(data)
    sequences = [[run_key(entry) for entry in run_entries(record)] for record in records]
    entries = {run_key(entry): entry for record in records for entry in run_entries(record)}
    # the order: each version's own, and between versions the date, then the commit's time
    order: list[tuple[str, str]] = []
    pending = [list(sequence) for sequence in sequences]
    while any(pending):
        heads = {sequence[0] for sequence in pending if sequence}
        ready = [key for key in heads if not any(key in sequence[1:] for sequence in pending)]
        key = min(ready or heads, key=lambda k: (k[0], commit_time(entries[k].get("commit")), k[1]))
        order.append(key)
        pending = [[k for k in sequence if k != key] for sequence in pending]
    runs = {}
    for number, key in enumerate(order, 1):
        entry = entries[key]
        runs[key] = Run(number, key[0], key[1], entry.get("commit"), entry.get("machine") or "not recorded",
                        [record["version"] for record, sequence in zip(records, sequences) if key in sequence],
                        entry.get("cases"))
    of: dict[tuple[int, str], Run | None] = {}
    for record in records:
        first, *later = run_entries(record)
        for r in [*results_of(record), *sweep_of(record).values()]:
            notes = [note for note in later if r.step and r.step in note["cases"]]
            entry = notes[-1] if notes else first if r.step or not later else None
            of[(record["version"], r.key or r.case)] = runs[run_key(entry)] if entry else None
    return Provenance(list(runs.values()), of)


def commit_of(recorded: str | None) -> str | None:
    """The commit a run recorded, without " with local changes"."""
    return recorded.split()[0] if recorded else None


def commit_time(recorded: str | None) -> str:
    commit = commit_of(recorded)
    try:
        return output(["git", "-C", ROOT, "show", "-s", "--format=%cI", commit]) if commit else ""
    except OSError:
        return ""


def monotonic_state(recorded: str | None) -> str:
    """The gen_monotonic_ulid() state MONOTONIC_STATES gives the recorded commit's build, or why not known."""
    commit = commit_of(recorded)
    if not commit:
        return "not known: the run recorded no commit"
    state = MONOTONIC_STATES[0][1]
    try:
        for change, what in MONOTONIC_STATES[1:]:
            done = run(["git", "-C", ROOT, "merge-base", "--is-ancestor", change, commit], capture_output=True)
            if done.returncode == 0:
                state = what
            elif done.returncode != 1:
                return f"not known: this checkout's history does not hold commit {commit}"
    except OSError:
        return "not known: git is not installed"
    return state
