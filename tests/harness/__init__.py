"""What the tests share, on top of tools/ulidtools (the manifest and its
PostgreSQL builds), one concern a module:

- `pgcluster`: private clusters, the builds at the ends of a run, which
  build has which extension;
- `upgrading`: the catalog as comparable text, a data set that uses every
  feature, one release's files swapped for another's;
- `preloaded`: what a server that preloads ulid still runs after its files
  are replaced, and whether its log tells of a crash;
- `regress`: the pg_regress suite, against a private cluster or a Debian
  server;
- `pages`: the one reader of the pages' Markdown (fenced blocks, sections);
- `vectors`: the test vectors and the checks an SQL implementation passes;
- `steps`: gen_monotonic_ulid()'s random step, native and portable;
- `holders`, `ordering`: sessions of gen_monotonic_ulid() holding or
  waiting on its shared table, and the order of their values;
- `soak`: pgbench inserting ids for a while, every index checked after;
- `clientrun`: the Go and JavaScript client suites run and their reports
  read;
- `cli`: the `ulid-tool` binary put beside a server;
- `clock`: a wait past midnight UTC for tests of "today";
- `standin`: stand-ins for other projects' extensions (`pgx_ulid/`: its
  install script and control file).
"""
