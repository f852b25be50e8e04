"""The command-line tool's benchmark (bench/cli): ulid-tool against ulid-core's own loops (examples/core_loop.rs),
built first in release mode (dev with --quick) in cargo's target directory (ULID_CARGO_TARGET), unless --tool and
--core name binaries already built. What a round runs and what the ratio means: docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from bench import pages, report, results_files
from ulidtools import cargo_env
from ulidtools.base import ROOT, output, run

CASES = [
    ("new", ["new", "{n}"], False),
    ("new --monotonic", ["new", "{n}", "--monotonic"], False),
    ("parse", ["parse"], True),
]


def cpu_model() -> str:
    try:
        return next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or "unknown"


def measure(tool: Path, core: Path, n: int, rounds: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        ids = Path(tmp) / "ids.txt"
        ids.write_bytes(run([tool, "new", n], stdout=subprocess.PIPE, check=True).stdout)
        seconds: dict[str, list[float]] = {name: [] for name, _, _ in CASES}
        core_ns: dict[str, list[float]] = {name: [] for name, _, _ in CASES}
        for _ in range(rounds):
            for name, args, reads in CASES:
                with open(ids if reads else "/dev/null", "rb") as stdin:
                    start = time.perf_counter()
                    run([tool, *(a.format(n=n) for a in args)], stdin=stdin, stdout=subprocess.DEVNULL, check=True)
                    seconds[name].append(time.perf_counter() - start)
            loops = json.loads(output([core, n, "1"], check=True))
            for name in core_ns:
                core_ns[name].append(loops[name])
    cases = []
    for name, _, _ in CASES:
        tool_ns = statistics.median(seconds[name]) * 1e9 / n
        loop_ns = statistics.median(core_ns[name])
        cases.append({"case": name, "tool_ns_per_id": round(tool_ns, 2), "core_ns_per_id": round(loop_ns, 2),
                      "ratio": round(tool_ns / loop_ns, 3)})
    return {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d"), "ids": n, "rounds": rounds,
            "cpu": cpu_model(), "tool": output([tool, "--version"]), "cases": cases}


def build(quick: bool) -> tuple[Path, Path]:
    target = cargo_env.cargo_target()
    print(f"building ulid-tool and ulid-core's loops ({'dev' if quick else 'release'})", file=sys.stderr)
    subprocess.run(["cargo", "build", "--quiet", "--profile", "dev" if quick else "release", "-p", "ulid-tool",
                    "--bin", "ulid-tool", "--example", "core_loop"],
                   cwd=ROOT, env={**os.environ, "CARGO_TARGET_DIR": str(target)}, check=True)
    built = target / ("debug" if quick else "release")
    return built / "ulid-tool", built / "examples" / "core_loop"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tool", type=Path, help="a ulid-tool already built (with --core): nothing is built")
    parser.add_argument("--core", type=Path, help="its core_loop example, built with it")
    parser.add_argument("--ids", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="20,000 ids, one round, into a temporary directory")
    parser.add_argument("--out", type=Path, default=results_files.RESULTS, metavar="DIR")
    args = parser.parse_args()
    if (args.tool is None) != (args.core is None):
        parser.error("--tool and --core go together")
    if args.tool is None:
        args.tool, args.core = build(args.quick)
    if args.quick:
        args.ids, args.rounds = 20_000, 1
        args.out = Path(tempfile.mkdtemp(prefix="ulid-bench-cli-"))
    data = measure(args.tool, args.core, args.ids, args.rounds)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / results_files.CLI_RESULTS_FILE).write_text(json.dumps(data, indent=2) + "\n")
    print("\n".join(pages.render_cli(data)))
    if args.out.resolve() == results_files.RESULTS.resolve():
        report.write(args.out, results_files.PAGE)
        print(f"wrote {args.out / results_files.CLI_RESULTS_FILE} and {results_files.PAGE}")
    else:
        print(f"wrote {args.out / results_files.CLI_RESULTS_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
