"""The gnuplot plots of one version's run, each with its .dat file beside it: the client sweep, growth, past memory."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bench.results_files import sweep_of

SIDE_BY_SIDE = "set multiplot layout 1,2 title '{title}'\nset key outside below maxrows 3\nset grid\n"


def gnuplot(png: Path, size: str, script: str) -> None:
    subprocess.run(["gnuplot"], input=f"\nset terminal pngcairo size {size} font 'sans,10' noenhanced\n"
                   f"set output '{png}'\n{script}", text=True, check=True)


def curve(data: Path, using: str, i: int, name: str, style: str = "") -> str:
    # distinct dash types: two time-ordered ids can draw the very same line
    return f"'{data}' using {using} with linespoints dashtype {i + 1}{style} lw 2 title '{name}'"


def write_plots(run: dict, out: Path) -> None:
    version = run["version"]
    sweep = sweep_of(run)
    if sweep:
        names = list(sweep[next(iter(sweep))].values)
        data = out / f"clients-pg{version}.dat"
        data.write_text("# clients " + " ".join(f'"{v}"' for v in names) + " (median tps)\n"
                        + "".join(f"{c} " + " ".join(f"{r.median(v):.1f}" for v in names) + "\n"
                                  for c, r in sweep.items()))
        title = (f"pgbench: INSERT of one row with a DEFAULT id, PostgreSQL {version}\\nmedian of "
                 f"{run['sweep_repeats']} runs of {run['sweep_seconds']} s per point")
        gnuplot(out / f"clients-pg{version}.png", "900,640", f"""set title "{title}"
set key outside below maxrows 4
set grid
set logscale x 2
set xlabel 'clients'
set ylabel 'transactions per second (thousands)'
set yrange [0:*]
plot {", ".join(curve(data, f"1:(${2 + i}/1e3)", i, name, f" pointtype {i + 1}") for i, name in enumerate(names))}
""")
    growth = run.get("series", {}).get("growth")
    if growth:
        names = growth["variants"]
        data = out / f"growth-pg{version}.dat"
        data.write_text("# rows " + " ".join(f'"{v}" rows/s, MB' for v in names) + "\n"
                        + "\n".join(" ".join(f"{x:.3f}" for x in r) for r in growth["rows"]) + "\n")
        title = f"Primary key on a growing table: {growth['n']:,} rows inserted in batches, PostgreSQL {version}"
        gnuplot(out / f"growth-pg{version}.png", "1100,560", SIDE_BY_SIDE.format(title=title) + f"""\
set xlabel 'rows in the table (millions)'
set ylabel 'primary key size (MB)'
plot {", ".join(curve(data, f"($1/1e6):{3 + 2 * i}", i, name) for i, name in enumerate(names))}
set ylabel 'insert throughput (thousand rows/s)'
set yrange [0:*]
plot {", ".join(curve(data, f"($1/1e6):(${2 + 2 * i}/1e3)", i, name) for i, name in enumerate(names))}
unset multiplot
""")
    past = run.get("series", {}).get("past_memory")
    if not past or not past["runs"]:
        return
    rates, wal = [], []  # insert rate and WAL per row against the rows in the table (log scale), a line per variant
    for i, variant in enumerate(past["runs"]):
        data = out / f"past-memory-pg{version}-{i}.dat"
        data.write_text("# rows rows/s wal_bytes_per_row fpi_per_row pk_mb\n" + "".join(
            f"{s['rows']} {s['rows_per_s']:.1f} {s['wal_bytes_per_row']:.2f} {s['fpi_per_row']:.5f} {s['pk_mb']:.1f}\n"
            for s in variant["steps"]))
        rates.append(curve(data, "($1/1e6):($2/1e3)", i, variant["variant"]))
        wal.append(curve(data, "($1/1e6):3", i, variant["variant"]))
    title = f"Past memory, PostgreSQL {version}: {past['label']}"
    gnuplot(out / f"past-memory-pg{version}.png", "1100,560", SIDE_BY_SIDE.format(title=title) + f"""\
set logscale x
set autoscale xfix
set xlabel 'rows in the table (millions, log scale)'
set ylabel 'insert throughput (thousand rows/s, log scale)'
set logscale y
plot {", ".join(rates)}
unset logscale y
set ylabel 'WAL bytes per row inserted'
set yrange [0:*]
plot {", ".join(wal)}
unset multiplot
""")
