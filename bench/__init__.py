"""The benchmarks: docs/development.md, "Where things live", names each module (its bench/ row)."""
