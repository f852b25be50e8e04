"""Ruby clients against the server: ruby-pg in text and binary mode, and
ActiveRecord 6.1 without and with the adapter users copy,
examples/ruby/ulid_active_record.rb.

Everything comes from Debian 12 (ruby, ruby-pg, ruby-activerecord,
ruby-minitest): no gem is installed. Each Ruby file under tests/clients/ruby
runs in a ruby process of its own (the adapter changes ActiveRecord for the
whole process) against a fresh database, with this build's pg_dump first in
PATH for structure.sql; minitest must report every test the file declares as
run, with no failure, error or skip."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from harness.pgcluster import ROOT

TESTS = ROOT / "tests" / "clients" / "ruby"
ADAPTER = ROOT / "examples" / "ruby"
FILES = ["pg_test.rb", "without_adapter_test.rb", "active_record_test.rb"]
# the Debian package each library comes from, for the message when it is missing
LIBRARIES = {"pg": "ruby-pg", "active_record": "ruby-activerecord", "minitest/autorun": "ruby-minitest"}


def run_minitest(ruby: str, path, env: dict[str, str], minimum: int) -> None:
    declared = re.findall(r"^\s*def (test_\w+)", path.read_text(), re.M)
    assert len(declared) >= minimum, path
    result = subprocess.run(
        [ruby, "-I", str(ADAPTER), str(path), "--verbose"],
        cwd=TESTS, env=env, capture_output=True, text=True, timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    ran = set(re.findall(r"#(test_\w+) = [\d.]+ s = \.$", result.stdout, re.M))
    assert ran == set(declared), output
    summary = re.search(r"^(\d+) runs, \d+ assertions, (\d+) failures, (\d+) errors, (\d+) skips$", result.stdout, re.M)
    assert summary and summary.groups() == (str(len(declared)), "0", "0", "0"), output


@pytest.mark.parametrize("name", FILES)
def test_ruby_clients(cluster, db, name):
    ruby = shutil.which("ruby")
    assert ruby, "Ruby is missing: apt-get install ruby and the ruby-* packages the module docstring names"
    for library, package in LIBRARIES.items():
        found = subprocess.run([ruby, "-e", f"require {library!r}"], capture_output=True, text=True)
        assert found.returncode == 0, f"{package} is missing (apt-get install {package}): {found.stderr}"

    env = cluster.env()
    env.update(PGDATABASE=db, PATH=f"{cluster.bindir}:{env['PATH']}", LANG="C.UTF-8")
    run_minitest(ruby, TESTS / name, env, minimum=4)
