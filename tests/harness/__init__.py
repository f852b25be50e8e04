"""What the tests share: private clusters (`pgcluster`), installed releases
and catalog comparisons for the upgrade tests (`upgrading`), and the runner
of the Go and node client suites (`clientrun`)."""
