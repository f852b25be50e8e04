"""Rust clients against the server: a program on the binary protocol
through the postgres, tokio-postgres and sqlx crates and the adapters users
copy, examples/rust/. Values must come back exactly as they went in.

tests/clients/rust/Cargo.lock pins the crates; the program builds beside
the extension's own build."""

from __future__ import annotations

import os
import subprocess

from harness.pgcluster import ROOT
from ulidtools import cargo_env


def test_rust_client_reads_the_binary_protocol(cluster, db):
    """tests/clients/rust runs every driver through the adapters in
    examples/rust/ and stops at the first mismatch; the counts prove each
    driver checked everything it should have."""
    manifest = ROOT / "tests" / "clients" / "rust" / "Cargo.toml"
    # beside the extension's own build, outside the checkout (cargo_env.cargo_target)
    cargo_target = cargo_env.cargo_target() / "rust-client"
    env = dict(os.environ, CARGO_TARGET_DIR=str(cargo_target))
    result = subprocess.run(
        ["cargo", "run", "--quiet", "--locked", "--manifest-path", str(manifest), "--", cluster.conninfo(db)],
        env=env, capture_output=True, text=True, timeout=1800,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "postgres: 7077 checks passed",
        "tokio-postgres: 1013 checks passed",
        "sqlx: 5085 checks passed",
    ], result.stdout
