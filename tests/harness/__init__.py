"""What the tests share, on top of tools/ulidtools (the manifest and its
PostgreSQL builds): private clusters (`pgcluster`), installed releases and
catalog comparisons for the upgrade tests (`upgrading`), the runner of the
Go and node client suites (`clientrun`), and the soak load (`soak`)."""
