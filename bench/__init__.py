"""The benchmarks, a package (bench/run runs `python -m bench.run`, bench/cli
`python -m bench.cli_bench`, bench/pg_uuidv7 `python -m bench.pg_uuidv7`);
its modules import each other by the package's name, and the tooling's
(ulidtools) for the servers:

- `bench.run`: the command line; measures each version and writes the results;
- `bench.cases`: the id variants compared, and the cases;
- `bench.measure`: how a case measures, and what it records;
- `bench.past_memory`: inserts, WAL and lookups as a table outgrows memory;
- `bench.clusters`: the servers the benchmarks run on, and what is installed into them;
- `bench.pg_uuidv7`: pg_uuidv7 put into a build where it can be had (bench/pg_uuidv7);
- `bench.results_files`: the results read (bench/results/: latest.json, the instruction counts, cli.json);
- `bench.provenance`: which run of bench/run each figure comes from, and what its build kept;
- `bench.pages`: the pages that show the results (bench/results/latest.md, docs/performance.md);
- `bench.plots`: the gnuplot plots of a run, with their .dat files;
- `bench.spans`: the figures other pages quote, in spans written again from the results;
- `bench.report`: writes the pages and the quoted figures again from the results (bench/run --report);
- `bench.cli_bench`: the command-line tool's benchmark.
"""
