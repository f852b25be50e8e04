"""The benchmarks. bench/run, bench/cli and bench/pg_uuidv7 run `python -m bench.run`,
`bench.cli_bench` and `bench.pg_uuidv7`; the modules import each other, and ulidtools, by package name.

Measuring: `run` (the command line), `cases`, `measure`, `past_memory`, `clusters`, `pg_uuidv7`,
`cli_bench` (the command-line tool). Showing: `results_files` (reads bench/results/), `provenance`
(which run each figure comes from), `pages` (latest.md and docs/performance.md), `plots`, `spans`
(figures other pages quote), `report` (writes the pages and quoted figures again from the results).
"""
