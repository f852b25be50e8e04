"""The gnuplot plots of one version's run, each with its .dat file beside it: INSERT throughput by
clients (clients-pgVERSION), the primary key as the table grows (growth-pgVERSION) and past memory
(past-memory-pgVERSION). The performance page shows the plots it finds beside the results.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from bench.results_files import sweep_of


def write_plots(run: dict, out: Path) -> None:
    """The .dat files and gnuplot plots of one version's run, in OUT."""
    tag = f"pg{run['version']}"
    sweep = sweep_of(run)
    if sweep:
        counts = list(sweep)
        first = sweep[counts[0]]
        names = list(first.values)
        data = out / f"clients-{tag}.dat"
        data.write_text("# clients " + " ".join(f'"{v}"' for v in names) + " (median tps)\n"
                        + "".join(f"{c} " + " ".join(f"{sweep[c].median(v):.1f}" for v in names) + "\n"
                                  for c in counts))
        plot_clients(data, names, out / f"clients-{tag}.png", run["version"], run["sweep_seconds"],
                     run["sweep_repeats"])
    growth = run.get("series", {}).get("growth")
    if growth:
        data = out / f"growth-{tag}.dat"
        data.write_text("# rows " + " ".join(f'"{v}" rows/s, MB' for v in growth["variants"]) + "\n"
                        + "\n".join(" ".join(f"{x:.3f}" for x in r) for r in growth["rows"]) + "\n")
        plot_growth(data, growth["variants"], out / f"growth-{tag}.png", run["version"], growth["n"])
    past = run.get("series", {}).get("past_memory")
    if past and past["runs"]:
        plot_past_memory(past, out, tag, run["version"])


def plot_past_memory(past: dict, out: Path, tag: str, version: int) -> None:
    """Insert rate and WAL per row against the rows in the table (log scale), a line per variant."""
    plots_rate, plots_wal = [], []
    for i, variant in enumerate(past["runs"]):
        data = out / f"past-memory-{tag}-{i}.dat"
        data.write_text("# rows rows/s wal_bytes_per_row fpi_per_row pk_mb\n" + "".join(
            f"{s['rows']} {s['rows_per_s']:.1f} {s['wal_bytes_per_row']:.2f} {s['fpi_per_row']:.5f} {s['pk_mb']:.1f}\n"
            for s in variant["steps"]))
        name = variant["variant"]
        plots_rate.append(f"'{data}' using ($1/1e6):($2/1e3) with linespoints dashtype {i + 1} lw 2 title '{name}'")
        plots_wal.append(f"'{data}' using ($1/1e6):3 with linespoints dashtype {i + 1} lw 2 title '{name}'")
    script = f"""
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output '{out / f"past-memory-{tag}.png"}'
set multiplot layout 1,2 title 'Past memory, PostgreSQL {version}: {past["label"]}'
set key outside below maxrows 3
set grid
set logscale x
set autoscale xfix
set xlabel 'rows in the table (millions, log scale)'
set ylabel 'insert throughput (thousand rows/s, log scale)'
set logscale y
plot {", ".join(plots_rate)}
unset logscale y
set ylabel 'WAL bytes per row inserted'
set yrange [0:*]
plot {", ".join(plots_wal)}
unset multiplot
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def plot_growth(data: Path, names: list[str], png: Path, version: int, n: int) -> None:
    cols = []
    for i, name in enumerate(names):
        cols.append((name, 2 + 2 * i, 3 + 2 * i))
    # distinct dash types: two time-ordered ids can draw the very same line
    size_plots = ", ".join(f"'{data}' using ($1/1e6):{s} with linespoints dashtype {i + 1} lw 2 title '{name}'"
                           for i, (name, _, s) in enumerate(cols))
    rate_plots = ", ".join(f"'{data}' using ($1/1e6):($" + str(r) + f"/1e3) with linespoints dashtype {i + 1} "
                           f"lw 2 title '{name}'" for i, (name, r, _) in enumerate(cols))
    script = f"""
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output '{png}'
set multiplot layout 1,2 title 'Primary key on a growing table: {n:,} rows inserted in batches, PostgreSQL {version}'
set key outside below maxrows 3
set grid
set xlabel 'rows in the table (millions)'
set ylabel 'primary key size (MB)'
plot {size_plots}
set ylabel 'insert throughput (thousand rows/s)'
set yrange [0:*]
plot {rate_plots}
unset multiplot
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def plot_clients(data: Path, names: list[str], png: Path, version: int, seconds: int, repeats: int) -> None:
    lines = ", ".join(f"'{data}' using 1:($" + str(2 + i) + f"/1e3) with linespoints dashtype {i + 1} "
                      f"pointtype {i + 1} lw 2 title '{name}'" for i, name in enumerate(names))
    script = f"""
set terminal pngcairo size 900,640 font 'sans,10' noenhanced
set output '{png}'
set title "pgbench: INSERT of one row with a DEFAULT id, PostgreSQL {version}\\nmedian of {repeats} runs of {seconds} s per point"
set key outside below maxrows 4
set grid
set logscale x 2
set xlabel 'clients'
set ylabel 'transactions per second (thousands)'
set yrange [0:*]
plot {lines}
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
