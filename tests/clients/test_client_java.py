"""Java against the server: pgjdbc 42.5 and the adapter users copy,
examples/java/ulidjdbc/PgUlid.java, tested by the JUnit 5 classes in
tests/clients/java.

Everything comes from Debian (openjdk-17-jdk-headless, libpostgresql-jdbc-java,
junit5), compiled with plain javac into target/java-client and run by JUnit's
console launcher. pgjdbc cannot reach a Unix socket: it connects over TCP to
127.0.0.1, which the test cluster trusts."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from harness.pgcluster import ROOT

TESTS = ROOT / "tests" / "clients" / "java"
ADAPTER = ROOT / "examples" / "java"
BUILD = ROOT / "target" / "java-client"
PGJDBC = Path("/usr/share/java/postgresql.jar")
LAUNCHER = Path("/usr/share/java/junit-platform-console-standalone.jar")


def compile_classes(javac: str) -> Path:
    """javac of the adapter and the tests into BUILD/classes, afresh."""
    classes = BUILD / "classes"
    shutil.rmtree(classes, ignore_errors=True)
    sources = sorted(map(str, [*ADAPTER.rglob("*.java"), *TESTS.rglob("*.java")]))
    result = subprocess.run(
        [javac, "-Xlint:all", "-Werror", "-d", str(classes), "-cp", f"{PGJDBC}:{LAUNCHER}", *sources],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return classes


def declared_tests() -> set[tuple[str, str]]:
    """(class, method) of every @Test in tests/clients/java."""
    found = set()
    for path in TESTS.rglob("*Test.java"):
        text = path.read_text()
        package = re.search(r"^package ([\w.]+);", text, re.M).group(1)
        for method in re.findall(r"@Test\s+void (\w+)\(", text):
            found.add((f"{package}.{path.stem}", method))
    return found


def run_junit(java: str, classes: Path, url: str) -> None:
    """The console launcher on every test class; its XML report must list
    every declared @Test as run and passed, none skipped."""
    reports = BUILD / "reports"
    shutil.rmtree(reports, ignore_errors=True)
    result = subprocess.run(
        [java, f"-Dulid.url={url}", "-jar", str(LAUNCHER),
         "--disable-banner", "--details=tree", "--fail-if-no-tests",
         "--class-path", f"{classes}:{PGJDBC}", "--select-package", "ulidjdbc.tests",
         "--reports-dir", str(reports)],
        capture_output=True, text=True, timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    ran = {}
    for case in ET.parse(reports / "TEST-junit-jupiter.xml").getroot().iter("testcase"):
        outcome = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        ran[(case.get("classname"), case.get("name").removesuffix("()"))] = outcome
    declared = declared_tests()
    assert len(declared) >= 12, declared
    assert set(ran) == declared, output
    assert not any(ran.values()), output


def test_java_pgjdbc(cluster, db):
    java, javac = shutil.which("java"), shutil.which("javac")
    assert java and javac, "javac is missing: apt-get install openjdk-17-jdk-headless"
    assert PGJDBC.exists(), "pgjdbc is missing: apt-get install libpostgresql-jdbc-java"
    assert LAUNCHER.exists(), "JUnit 5's console launcher is missing: apt-get install junit5"
    classes = compile_classes(javac)
    run_junit(java, classes, f"jdbc:postgresql://127.0.0.1:{cluster.port}/{db}?user=postgres")
