"""PHP clients against the server: PDO pgsql alone, Doctrine DBAL 3.6 and
ORM 2.14 with the adapter users copy, examples/php/ (a DBAL type on
Symfony Uid 5.4's Ulid and an ORM id generator), run by PHPUnit 9.6.

Everything comes from Debian 12 (php8.2-cli, php8.2-pgsql,
php-doctrine-dbal, php-doctrine-orm, php-symfony-uid, phpunit), loaded
through the autoloaders its packages install: no Composer, no Packagist.
PHPUnit's JUnit report must count every test method declared in
tests/clients/php/ as passed. The ORM's proxies go to target/php-client."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from harness.pgcluster import ROOT

TESTS = ROOT / "tests" / "clients" / "php"
BUILD = ROOT / "target" / "php-client"
# what each Debian package installs that the tests load
DEBIAN_FILES = {
    "php-doctrine-dbal": "/usr/share/php/Doctrine/DBAL/autoload.php",
    "php-doctrine-orm": "/usr/share/php/Doctrine/ORM/autoload.php",
    "php-symfony-uid": "/usr/share/php/Symfony/Component/Uid/autoload.php",
}


def declared_tests() -> set[str]:
    """Class::method of every test, one per data set of a @dataProvider."""
    names = set()
    for path in TESTS.glob("*Test.php"):
        source = path.read_text()
        cls = re.search(r"^final class (\w+) extends TestCase", source, re.M).group(1)
        for provider, method in re.findall(
            r"(?:/\*\* @dataProvider (\w+) \*/\s*)?public function (test\w+)\(", source
        ):
            if provider:
                body = source[source.index(f"function {provider}("):]
                body = body[: body.index("];")]
                names |= {f"{cls}::{method} with data set \"{key}\"" for key in re.findall(r"'([^']+)' =>", body)}
            else:
                names.add(f"{cls}::{method}")
    return names


def test_php_clients(cluster, db):
    php, phpunit = shutil.which("php"), shutil.which("phpunit")
    assert php, "PHP is missing: apt-get install php8.2-cli php8.2-pgsql and the packages the module docstring names"
    assert phpunit, "PHPUnit is missing: apt-get install phpunit"
    for package, path in DEBIAN_FILES.items():
        assert Path(path).is_file(), f"{package} is missing: apt-get install {package}"
    modules = subprocess.run([php, "-m"], capture_output=True, text=True, check=True).stdout.split()
    assert "pdo_pgsql" in modules, "PDO pgsql is missing: apt-get install php8.2-pgsql"

    proxies = BUILD / "proxies"
    proxies.mkdir(parents=True, exist_ok=True)
    report = BUILD / "junit.xml"
    report.unlink(missing_ok=True)
    env = cluster.env()
    env.update(PGDATABASE=db, PHP_PROXY_DIR=str(proxies))
    result = subprocess.run(
        [phpunit, "--configuration", str(TESTS / "phpunit.xml"), "--log-junit", str(report)],
        cwd=TESTS, env=env, capture_output=True, text=True, timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output

    declared = declared_tests()
    assert len(declared) >= 15, declared
    cases = ET.parse(report).getroot().iter("testcase")
    passed = set()
    for case in cases:
        assert not list(case), output  # a <failure>, <error> or <skipped>
        passed.add(f"{case.get('class')}::{case.get('name')}")
    assert passed == declared, (passed ^ declared, output)
