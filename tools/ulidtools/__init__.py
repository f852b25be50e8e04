"""The project's Python tooling, which scripts/, bench/ and tests/ import (docs/development.md, "Python tooling").
Its modules, from the ground floor up:

- `ulidtools.base`: paths, log and error lines, running commands, checksums;
- `ulidtools.manifest`: inputs.manifest, read once into typed records;
- `ulidtools.project`: the versions, pgrx and the crates' fields;
- `ulidtools.builds`: the PostgreSQL builds, their ports and the docs' tables;
- `ulidtools.tested`: the docs' table of what is tested on which build;
- `ulidtools.cargo_env`: pgrx's and release builds' environments, the build lock;
- `ulidtools.debian_archive`: pinned files of Debian's archive, downloaded and verified;
- `ulidtools.pin_system`: the pins of a Debian system, written;
- `ulidtools.pypi`: the wheel of a `pypi` line, downloaded and checked;
- `ulidtools.debian_builds`: builds from another Debian release's binary packages;
- `ulidtools.debian_systems`: Debian systems in directories, for the tests;
- `ulidtools.debian_package`: the Debian packages and an apt repository's index;
- `ulidtools.package`: artifacts built, checked and packaged; the extension installed;
- `ulidtools.clusters`: private PostgreSQL clusters;
- `ulidtools.debian_servers`: Debian's own PostgreSQL with ulid's package from apt;
- `ulidtools.release` and `ulidtools.sign`: a release's files, signed and checked;
- `ulidtools.earlier_releases`: an earlier release rebuilt for the upgrade tests;
- `ulidtools.setup` (the machine's tools, and the order), `ulidtools.setup_go`, `ulidtools.setup_postgres`,
  `ulidtools.setup_release`: what building and testing need;
- `ulidtools.testrun`: every test, as CI runs them;
- `ulidtools.__main__`: the commands (`python3 -m ulidtools --help`)."""
