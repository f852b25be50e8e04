"""The project's own tooling in Python, importable by scripts/, bench/ and
tests/ (scripts/lib.sh puts tools/ on PYTHONPATH):

- `ulidtools.manifest`: inputs.manifest, read once into typed records;
- `ulidtools.builds`: the PostgreSQL builds and the docs' tables of them.

`python3 -m ulidtools --help` lists what the scripts call.
"""
