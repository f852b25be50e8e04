"""Ruby clients against the server: ruby-pg in text and binary mode, and
ActiveRecord without and with the adapter users copy,
examples/ruby/ulid_active_record.rb, on two stacks of Debian's packages
(no gem is installed):

- activerecord-6.1: Debian 12's (this machine's ruby 3.1, ruby-pg 1.4,
  ruby-activerecord 6.1, ruby-minitest 5), on the oldest and the newest
  build of the run;
- activerecord-7.2: Debian sid's (ruby 3.3, ruby-pg 1.7, ruby-activerecord
  7.2, ruby-minitest 6), in the sid system of scripts/debian-system, on the
  19 build only: the files are copied into the system, and ruby there
  reaches this build's cluster over TCP on 127.0.0.1, with the system's
  own pg_dump 19 (postgresql-client-19) first in PATH for structure.sql.

Each Ruby file under tests/clients/ruby runs in a ruby process of its own
(the adapter changes ActiveRecord for the whole process) against a fresh
database, with a pg_dump of the server's major version first in PATH;
minitest must report every test the file declares as run, with no failure,
error or skip. The Ruby files assert what differs between the two
ActiveRecord versions for each of them."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from harness.pgcluster import ROOT
from ulidtools.debian_servers import DEBIAN_SYSTEM, System

TESTS = ROOT / "tests" / "clients" / "ruby"
ADAPTER = ROOT / "examples" / "ruby"
FILES = ["pg_test.rb", "without_adapter_test.rb", "active_record_test.rb"]
# the Debian package each library comes from, for the message when it is missing
LIBRARIES = {"pg": "ruby-pg", "active_record": "ruby-activerecord", "minitest": "ruby-minitest"}
# what the stack's ruby loads: ActiveRecord's, ruby-pg's and minitest's versions
VERSIONS = 'print [ActiveRecord.version, PG::VERSION, Minitest::VERSION].join(" ")'
# the stacks, by the ActiveRecord version the stack's ruby must load; sid's
# only against 19, the PostgreSQL of the sid system's pg_dump
STACKS = [
    pytest.param("6.1", id="activerecord-6.1"),
    pytest.param("7.2", id="activerecord-7.2", marks=pytest.mark.builds("19")),
]
SID_MAJOR = "19"


def run_minitest(command: list[str], path: Path, env: dict[str, str] | None, minimum: int) -> None:
    """COMMAND (a ruby running the file PATH, as --verbose) must report every
    test PATH declares as run, with no failure, error or skip."""
    declared = re.findall(r"^\s*def (test_\w+)", path.read_text(), re.M)
    assert len(declared) >= minimum, path
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    ran = set(re.findall(r"#(test_\w+) = [\d.]+ s = \.$", result.stdout, re.M))
    assert ran == set(declared), output
    summary = re.search(r"^(\d+) runs, \d+ assertions, (\d+) failures, (\d+) errors, (\d+) skips$", result.stdout, re.M)
    assert summary and summary.groups() == (str(len(declared)), "0", "0", "0"), output


def check_stack(command: list[str], env: dict[str, str] | None, stack: str) -> str:
    """The libraries are there, and ActiveRecord is STACK's version; their
    versions, for the report."""
    requires = "; ".join(f"require {library!r}" for library in LIBRARIES)
    found = subprocess.run([*command, "-e", f"{requires}; {VERSIONS}"], env=env, capture_output=True, text=True)
    assert found.returncode == 0, (f"a library is missing ({' '.join(LIBRARIES.values())} are the Debian "
                                   f"packages): {found.stderr}")
    activerecord, pg, minitest = found.stdout.split()
    assert activerecord.startswith(f"{stack}."), f"ActiveRecord {activerecord}, not {stack}"
    return f"ActiveRecord {activerecord}, ruby-pg {pg}, minitest {minitest}"


@pytest.fixture(scope="module")
def sid():
    """The sid system, with its postgresql-client-19, and a copy of the Ruby
    files inside it: (system, the tests' directory and the adapter's there)."""
    system = System.of(SID_MAJOR)
    assert system.here(f"/usr/lib/postgresql/{SID_MAJOR}/bin/pg_dump").is_file()
    inside = Path(tempfile.mkdtemp(prefix="ulid-ruby-", dir=system.here("/tmp")))
    try:
        shutil.copytree(TESTS, inside / "ruby")
        shutil.copytree(ADAPTER, inside / "adapter")
        yield system, Path("/") / inside.relative_to(system.root)
    finally:
        shutil.rmtree(inside)


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("stack", STACKS)
def test_ruby_clients(cluster, db, stack, name, request):
    if stack == "6.1":
        ruby = shutil.which("ruby")
        assert ruby, "Ruby is missing: apt-get install ruby and the ruby-* packages the module docstring names"
        env = cluster.env()
        env.update(PGDATABASE=db, PATH=f"{cluster.bindir}:{env['PATH']}", LANG="C.UTF-8")
        ruby, tests, adapter = [ruby], TESTS, ADAPTER
    else:
        assert cluster.version == int(SID_MAJOR)
        system, inside = request.getfixturevalue("sid")
        # `debian-system run` gives the command an environment of its own
        env = None
        ruby = [*DEBIAN_SYSTEM, "run", "env", "PGHOST=127.0.0.1", f"PGPORT={cluster.port}", "PGUSER=postgres",
                f"PGDATABASE={db}", f"PATH=/usr/lib/postgresql/{SID_MAJOR}/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "ruby"]
        tests, adapter = inside / "ruby", inside / "adapter"
    print(check_stack(ruby, env, stack))
    run_minitest([*ruby, "-I", str(adapter), str(tests / name), "--verbose"], TESTS / name, env, minimum=4)
