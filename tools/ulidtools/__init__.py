"""The project's own tooling in Python, importable by scripts/, bench/ and
tests/ (scripts/lib.sh puts tools/ on PYTHONPATH):

- `ulidtools.manifest`: inputs.manifest, read once into typed records;
- `ulidtools.builds`: the PostgreSQL builds and the docs' tables of them;
- `ulidtools.project`: the extension's version and pgrx, the crates' fields;
- `ulidtools.fetch_debian`, `ulidtools.pin_system`: the files of Debian's
  archive that the manifest pins, downloaded and verified, and the pins of
  a Debian system written (scripts/fetch-debian, scripts/pin-system).

`python3 -m ulidtools --help` lists what the scripts call.
"""
