"""What the tests share, on top of tools/ulidtools, one concern a module:
`pgcluster` (private clusters, the builds a test runs on), `upgrading` (the
catalog as text, a data set using every feature, one release's files swapped
for another's), `preloaded` (a preloading server whose files are replaced),
`regress` (pg_regress), `pages` (the pages' Markdown), `vectors` (the test
vectors), `steps` (gen_monotonic_ulid()'s random step), `holders` and
`ordering` (concurrent sessions of gen_monotonic_ulid()), `soak` (pgbench,
then amcheck), `clientrun` (the Go and JavaScript suites), `cli`
(`ulid-tool`), `clock` (waiting past midnight UTC), `standin` (stand-ins for
other projects' extensions)."""
