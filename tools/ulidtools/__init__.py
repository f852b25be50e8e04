"""The project's own tooling in Python, importable by scripts/, bench/ and
tests/ (scripts/lib.sh puts tools/ on PYTHONPATH, and the tests'
virtualenv has it on its path); what the benchmarks and the tests share is
here, not in the tests' harness. Its modules, from the ground floor up:

- `ulidtools.base`: the ground floor, importing nothing of the package:
  the root and the install directories, log and the error line, running a
  command (as root too), checksums;
- `ulidtools.manifest`: inputs.manifest, read once into typed records;
- `ulidtools.project`: the extension's version and pgrx, the crates' fields;
- `ulidtools.builds`: the PostgreSQL builds, their clusters' ports and
  directory, the groups tested side by side, the docs' tables of them;
- `ulidtools.tested`: the docs' table of what is tested on which build;
- `ulidtools.cargo_env`: where and how the extension and the command-line
  tool are compiled: pgrx's environment, a release build's, the build lock;
- `ulidtools.debian_archive`: the files of Debian's archive that the
  manifest pins, downloaded and verified;
- `ulidtools.pin_system`: the pins of a Debian system, written;
- `ulidtools.pypi`: the wheel of a `pypi` line, downloaded and checked;
- `ulidtools.debian_builds`: PostgreSQL builds from Debian's binary
  packages of another Debian release;
- `ulidtools.debian_systems`: Debian systems in directories, made from the
  pinned packages, for the tests;
- `ulidtools.debian_package`: the Debian package of the extension or of
  the command-line tool, and the index of an apt repository of them;
- `ulidtools.package`: an artifact built, checked, tarred and packaged;
  the extension built and installed into a build;
- `ulidtools.clusters`: private PostgreSQL clusters, for the demo, the
  tests and the benchmarks;
- `ulidtools.debian_servers`: Debian's own PostgreSQL in a Debian system,
  ulid's package installed there with apt, clusters made the Debian way;
- `ulidtools.release`: every file of a release;
- `ulidtools.earlier_releases`: an earlier release built again from its
  commit, for the upgrade tests;
- `ulidtools.sign`: a release's files signed, and checked;
- `ulidtools.setup_go`: Go and the pinned Go modules;
- `ulidtools.setup_postgres`: the PostgreSQL builds, and pgrx told of them;
- `ulidtools.setup_release`: Zig and the arm64 root of release builds;
- `ulidtools.setup`: the machine's tools, and everything building and
  testing needs, in order;
- `ulidtools.testrun`: every test, as CI runs them;
- `ulidtools.__main__`: the commands the scripts run, each declared once
  (`python3 -m ulidtools --help`).
"""
