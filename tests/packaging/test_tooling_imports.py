"""The project's Python packages (ulidtools in tools/, bench, the tests'
harness) import each other without a circle, counting the imports made
inside functions too; the benchmarks and the tooling never import the
test harness; and no file of the project edits sys.path to find another:
the virtualenv has the project installed (pyproject.toml), and
scripts/lib.sh puts tools/, tests/ and the root on Debian's python3's path."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from harness.pgcluster import ROOT

pytestmark = pytest.mark.once_per_run

PACKAGES = {"ulidtools": ROOT / "tools" / "ulidtools", "bench": ROOT / "bench", "harness": ROOT / "tests" / "harness"}


def modules() -> dict[str, Path]:
    found = {}
    for package, directory in PACKAGES.items():
        for path in sorted(directory.glob("*.py")):
            name = package if path.stem == "__init__" else f"{package}.{path.stem}"
            found[name] = path
    return found


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The modules of KNOWN that PATH imports, wherever in the file."""
    tree = ast.parse(path.read_text(), str(path))
    package = path.parent.name
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = f"{package}.{base}" if base else package
            names.add(base)
            # `from ulidtools import builds` imports the module builds
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in names if name in known} - {module_name(path)}


def module_name(path: Path) -> str:
    return path.parent.name if path.stem == "__init__" else f"{path.parent.name}.{path.stem}"


def graph() -> dict[str, set[str]]:
    found = modules()
    # (every module imports its package's __init__ first; that edge is not
    # one the module chose, and __init__ imports nothing of its own here)
    return {name: imports_of(path, set(found)) - {name.split(".")[0]} for name, path in found.items()}


def test_the_graph_is_read():
    edges = graph()
    assert {"ulidtools.setup", "ulidtools.builds", "ulidtools.manifest", "bench.report", "harness.pgcluster"} <= set(edges)
    assert {"bench.measure", "bench.past_memory"} <= edges["bench.pages"]
    assert "ulidtools.clusters" in edges["bench.clusters"]
    assert "ulidtools.manifest" in edges["ulidtools.builds"]
    assert "ulidtools.debian_systems" in edges["ulidtools.setup"]
    assert "ulidtools.base" in edges["ulidtools.manifest"]


def test_the_ground_floor_imports_nothing_of_the_package():
    assert graph()["ulidtools.base"] == set()


# what the ground floor holds for every module: a name a module binds
SHARED = {"ROOT", "log", "error", "as_root", "sha256_of", "sha256_hex", "pg_home", "tools"}


@pytest.mark.parametrize("name", sorted(n for n in modules() if n != "ulidtools.base"))
def test_the_shared_helpers_are_defined_on_the_ground_floor_alone(name):
    """No module of ulidtools, bench or the harness defines a second ROOT,
    log, error line, as_root or checksum: each takes the ground floor's
    (ulidtools.base)."""
    text = modules()[name].read_text()
    tree = ast.parse(text)
    defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    defined |= {target.id for node in tree.body if isinstance(node, ast.Assign)
                for target in node.targets if isinstance(target, ast.Name)}
    assert not defined & SHARED, (name, defined & SHARED)
    # the red `error:` line is printed by base.error alone
    assert "[1;31merror:" not in text, name


# Functions named run at a module's top level that are not a way of running
# a command, and so not a second base.run: the test run on some builds and
# one pg_regress file. (A class's method named run is its own.)
OTHER_RUNS = {"ulidtools.testrun", "harness.regress"}


def bypasses(tree: ast.Module) -> list[str]:
    """What a module does itself that the ground floor does for it: a
    module-level function (or name) run, beside base.run; hashlib's sha256,
    beside base.sha256_of and base.sha256_hex."""
    found = [f"line {node.lineno}: def run" for node in tree.body
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "run"]
    found += [f"line {node.lineno}: run =" for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
              for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
              if isinstance(target, ast.Name) and target.id == "run"]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "sha256" and \
                isinstance(node.value, ast.Name) and node.value.id == "hashlib":
            found.append(f"line {node.lineno}: hashlib.sha256")
        elif isinstance(node, ast.ImportFrom) and node.module == "hashlib" and \
                any(alias.name == "sha256" for alias in node.names):
            found.append(f"line {node.lineno}: from hashlib import sha256")
    return found


@pytest.mark.parametrize("name", sorted(n for n in modules() if n != "ulidtools.base"))
def test_commands_and_checksums_go_through_the_ground_floor(name):
    """No module of ulidtools, bench or the harness has a run of its own at
    its top level, or takes a sha256 with hashlib: base.run runs a command
    (a module that adds to it names its function for what it adds), and
    base.sha256_of and base.sha256_hex take checksums."""
    found = bypasses(ast.parse(modules()[name].read_text()))
    expected = ["def run"] if name in OTHER_RUNS else []
    # (the exceptions are still there, or the list above says so)
    assert sorted(f.split(": ", 1)[1] for f in found) == sorted(expected), (name, found)


@pytest.mark.parametrize("code", [
    "import subprocess\ndef run(command):\n    return subprocess.run(command)",
    "async def run(command):\n    pass",
    "from ulidtools.base import output\nrun = output",
    "import hashlib\ndigest = hashlib.sha256(b'x').hexdigest()",
    "import hashlib\ndef checksum(path):\n    return hashlib.sha256(path.read_bytes()).hexdigest()",
    "from hashlib import sha256\ndigest = sha256(b'x').hexdigest()",
])
def test_the_check_sees_a_second_run_or_checksum(code):
    assert bypasses(ast.parse(code))


@pytest.mark.parametrize("code", [
    "class System:\n    def run(self, command):\n        pass",
    "from ulidtools.base import run\nrun(['true'])",
    "import hashlib\ndigest = hashlib.md5(b'x').hexdigest()",
    "from ulidtools.base import sha256_hex\ndigest = sha256_hex(b'x')",
])
def test_the_check_leaves_what_is_not_one(code):
    assert not bypasses(ast.parse(code))


def test_no_module_imports_itself_through_others():
    edges = graph()
    state: dict[str, str] = {}
    circles = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for other in sorted(edges[name]):
            if state.get(other) == "open":
                circles.append(" -> ".join(path[path.index(other):] + [other]))
            elif other not in state:
                visit(other, path + [other])
        state[name] = "done"

    for name in sorted(edges):
        if name not in state:
            visit(name, [name])
    assert not circles, circles


def test_the_package_lists_every_module_of_it():
    """ulidtools/__init__.py's docstring names each module, with a line on it."""
    listed = set(re.findall(r"`(ulidtools\.\w+)`", ast.get_docstring(ast.parse(modules()["ulidtools"].read_text()))))
    own = {name for name in modules() if name.startswith("ulidtools.")}
    assert listed == own, listed ^ own


def test_the_tooling_and_the_benchmarks_never_import_the_test_harness():
    """tests/harness is for the tests: what the benchmarks share with them
    (clusters, builds, Debian's servers) is the tooling's."""
    edges = graph()
    reaching = {name: sorted(o for o in others if o.startswith("harness"))
                for name, others in edges.items() if not name.startswith("harness")}
    assert not any(reaching.values()), reaching


def test_bench_imports_its_modules_by_the_package_name():
    """`import report` would find bench/report.py only with bench/ on the
    path, and the graph above would not see the edge."""
    bare = {path.stem for path in PACKAGES["bench"].glob("*.py")} - {"__init__"}
    for path in PACKAGES["bench"].glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and not node.level else []
            assert not set(names) & bare, (path.name, names)


# every Python file of the project, outside what builds and tools leave
PYTHON_FILES = sorted(p for p in ROOT.rglob("*.py")
                      if not {"target", "node_modules", ".git"} & set(p.relative_to(ROOT).parts))
EDITS = re.compile(r"sys\.(?:meta_)?path\s*(?:\.\s*(?:insert|append|extend|remove)\b|\[[^\]]*\]\s*=|[+]?=(?!=))")


def test_no_file_edits_sys_path():
    assert len(PYTHON_FILES) > 100
    editing = [str(p.relative_to(ROOT)) for p in PYTHON_FILES
               if p != Path(__file__) and EDITS.search(p.read_text(errors="replace"))]
    assert not editing, editing


@pytest.mark.parametrize("code", ["sys.path.insert(0, x)", "sys.path[:0] = [x]", "sys.path.append(x)",
                                  "sys.path = [x]", "sys.path += [x]", "sys.meta_path.insert(0, f)"])
def test_the_check_sees_each_way_of_editing_the_path(code):
    assert EDITS.search(code)
