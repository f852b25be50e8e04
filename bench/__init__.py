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
- `bench.report`: the results shown (bench/results/, docs/performance.md), read, never measured;
- `bench.cli_bench`: the command-line tool's benchmark.
"""
