"""Every page says only what is true of this repository: read from the pages
themselves, so that a new page is checked without editing this file.

The pages are every page a user reads: the README, `docs/`, CHANGELOG.md,
the crates' READMEs and the portable file's header (its opening comment).
What CHANGELOG.md says of a release already made is history (the scripts,
versions and names of then), so the checks of what exists today read its
Unreleased section only.

- `cargo pgrx install --sudo`, which writes into the library a running server has
  loaded, is named only in a paragraph that warns against it;
- no page offers an address it made up: a placeholder host (`https://…/`,
  an example domain);
- every "tested on VERSIONS" says what the table of what is tested where
  (docs/versions.md, made from the tests' markers) says of some row;
- every release file a page names with its version (a package, a tarball)
  is one this tree makes: Cargo.toml's version, not one written by hand
  that the tree has moved past;
- every link to a file of the repository, and to a heading of a page,
  leads somewhere;
- every script a page names exists;
- every SQL function of ulid or of the portable layer, and every `ulid.`
  setting a page names, exists on a server with the extension;
- "CI" on a page is a workflow of `.github/workflows` that runs on push or
  pull request (and runs `.ci/run` where a page says CI does);
- every option a page passes to the `ulid-tool` command is one that
  command takes, and no page runs the tool as `ulid`, the program of
  Debian's own ulid-cli.

Run on one build (the SQL surface is the same on every one, and the
per-build tests check the examples themselves).
"""

from __future__ import annotations

import re
import tempfile
from functools import cache
from pathlib import Path

import pytest
import yaml

from harness.cli import ulid
from harness.pages import EXTENSION_VERSION, code, paragraphs, prose
from harness.pgcluster import ROOT
from harness.upgrading import RELEASES, VERSION
from ulidtools import builds, tested
from ulidtools.project import CLI_VERSION, CURRENT_RELEASE, RELEASED

pytestmark = pytest.mark.builds("15")

PORTABLE_SQL = ROOT / "portable" / "ulid_portable.sql"
CHANGELOG = ROOT / "CHANGELOG.md"


@cache
def portable_header(directory: Path) -> Path:
    """The portable file's opening comment, as a page of its own (in a
    directory of the session's)."""
    lines = []
    for line in PORTABLE_SQL.read_text().splitlines():
        if not line.startswith("--"):
            break
        lines.append(line.removeprefix("--").removeprefix(" "))
    page = directory / "ulid_portable.sql.md"
    page.write_text("\n".join(lines) + "\n")
    return page


@cache
def unreleased(directory: Path) -> Path:
    """CHANGELOG.md's Unreleased section, as a page of its own: what it says
    is of this commit; the released sections are history."""
    text = CHANGELOG.read_text()
    start = text.index("## [Unreleased]")
    end = text.find("\n## [", start + 1)
    page = directory / "CHANGELOG-unreleased.md"
    page.write_text(text[start:end if end >= 0 else None])
    return page


SESSION_PAGES = Path(tempfile.mkdtemp(prefix="ulid-pages-"))
# every page a user reads, as it is
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), CHANGELOG,
         *sorted(ROOT.glob("crates/*/README.md"))]
READ = [*PAGES, portable_header(SESSION_PAGES)]
# what is said of today: CHANGELOG.md's Unreleased section in its place
TODAY = [p for p in PAGES if p != CHANGELOG] + [unreleased(SESSION_PAGES), portable_header(SESSION_PAGES)]


def name(page: Path) -> str:
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else page.name


WARNS = re.compile(r"crash|do not|don't|never|not use|instead|writes (the new|into)", re.I)


@pytest.mark.parametrize("page", READ, ids=name)
def test_cargo_pgrx_install_only_with_a_warning(page):
    bad = [p for p in paragraphs(page) if "cargo pgrx install" in p and not WARNS.search(p)]
    assert not bad, bad


def slug(heading: str) -> str:
    """A heading's anchor, as GitHub makes it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@cache
def anchors(page: Path) -> set[str]:
    """The page's headings, and the anchors it sets itself (`<a id="...">`,
    the rows of a generated table)."""
    return ({slug(h) for h in re.findall(r"^#+ (.+)$", prose(page), re.M)}
            | set(re.findall(r'<a (?:id|name)="([^"]+)"', page.read_text())))


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_every_link_leads_somewhere(page):
    text = prose(page)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # another site
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(target)
    assert not broken, broken


@pytest.mark.parametrize("page", TODAY, ids=name)
def test_every_script_named_exists(page):
    named = set(re.findall(r"\bscripts/([\w.-]+)", page.read_text()))
    missing = [s for s in sorted(named) if not (ROOT / "scripts" / s.rstrip(".")).exists()]
    assert not missing, missing


@cache
def portable_functions() -> set[str]:
    sql = PORTABLE_SQL.read_text()
    names = set(re.findall(r"CREATE OR REPLACE FUNCTION ulid_portable\.(\w+)\(", sql))
    # ulid_%1$s: one function for each word of the array its DO block loops over
    words = re.findall(r"FOREACH fn IN ARRAY '\{([\w,]+)\}'::pg_catalog\.text\[\]", sql)
    for template in re.findall(r"FUNCTION ulid_portable\.(\w*)%1\$s", sql):
        names |= {template + word for word in words[0].split(",")}
    return names


# words after `ulid.` that are files, not settings (ulid.so, ulid.control...)
FILES = {"so", "control", "sql", "js", "fish", "gpg", "list", "deb", "asc", "bash", "zsh", "to"}


def test_every_function_and_setting_named_exists(conn):
    """Functions whose names are ulid's own (`ulid_...`, `gen_ulid`,
    `gen_monotonic_ulid`) in SQL and inline code, with or without a schema,
    and `ulid.` settings; a page may show a misspelt setting being refused."""
    conn.execute("LOAD 'ulid'")
    functions = {r[0] for r in conn.execute(
        """SELECT p.proname FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
           JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass
           WHERE e.extname = 'ulid'""")}
    settings = {r[0] for r in conn.execute("SELECT name FROM pg_settings WHERE name LIKE 'ulid.%'")}
    assert {"gen_ulid", "ulid_timestamp"} <= functions and "ulid.layout" in settings
    assert {"ulid_encrypt", "ulid_decrypt", "ulid_text", "version"} <= portable_functions()
    missing = []
    for page in TODAY:
        shown = code(page, ("sql", "psql"))
        for schema, fn in re.findall(r"\b(?:(\w+)\.)?((?:ulid_|gen_ulid|gen_monotonic_ulid)\w*)\s*\(", shown):
            # unqualified: either's (the portable page names its own short)
            known = {"ulid_portable": portable_functions(), "": functions | portable_functions()}.get(schema, functions)
            if fn not in known:
                missing.append((name(page), f"{schema + '.' if schema else ''}{fn}()"))
        refused = set(re.findall(r'configuration parameter (?:name )?"(ulid\.\w+)"', page.read_text()))
        for setting in re.findall(r"(?<![@\w.-])ulid\.([a-z_]+)\b(?![.(])", shown):  # not maintainers@ulid.invalid
            named = f"ulid.{setting}"
            if setting not in FILES and named not in settings and named not in refused:
                missing.append((name(page), named))
    assert not missing, sorted(set(missing))


@cache
def cli_help(command: str) -> str:
    """The command's --help, and the options the tool hides from it
    (declared `hide = true` in its definition) for packagers."""
    hidden = re.findall(r"#\[arg\(long[^\]]*hide = true[^\]]*\]\s*pub (\w+):",
                        (ROOT / "crates" / "ulid-tool" / "src" / "cli.rs").read_text())
    return ulid(*([command] if command else []), "--help").stdout + "".join(
        f"\n--{h.replace('_', '-')}" for h in hidden)


def test_every_option_given_to_the_command_line_tool_exists():
    """`ulid-tool COMMAND ... --option` and `ulid-tool --option` wherever a
    page shows a command line, against the tool's own --help; and never
    `ulid COMMAND` or `ulid --option`: /usr/bin/ulid is Debian's ulid-cli,
    another program, on a system that has it."""
    commands = set(re.findall(r"^  (\w[\w-]*)\s", cli_help(""), re.M))
    assert {"new", "parse", "validate", "monotonic", "from-time", "bounds"} <= commands, commands
    wrong, seen = [], 0
    for page in TODAY:
        for line in code(page).splitlines():
            for program, first, rest in re.findall(r"(?<![\w.:/$-])(ulid(?:-tool)?)\s+(\S+)([^|;&)`]*)", line):
                if first not in commands and not first.startswith("--"):
                    continue  # SQL's `EXTENSION ulid ...`, not the tool
                if program == "ulid":
                    # the old name, unless a word follows that is no
                    # argument (`ulid monotonic generator`, a name)
                    after = (rest.split() or [""])[0].rstrip(",")
                    if not (after.isalpha() and after.islower() and after not in commands):
                        wrong.append((name(page), f"ulid {first}: the program is ulid-tool"))
                    continue
                seen += 1
                command = first if first in commands else ""
                for option in re.findall(r"(?<!\S)(--[a-z][\w-]*)", f"{first} {rest}"):
                    if not re.search(re.escape(option) + r"(?![\w-])", cli_help(command)):
                        wrong.append((name(page), f"ulid-tool {command} {option}".replace("  ", " ")))
    assert seen > 20, seen
    assert not wrong, sorted(set(wrong))


def test_the_pages_show_the_current_release_and_no_other():
    """Every version of the extension a page shows PostgreSQL print or take
    (`version "X" of extension "ulid"`, `'X-resync'`, `extversion`) is of
    the release users install (CURRENT_RELEASE: the newest version
    CHANGELOG.md dates). That release is in sql/RELEASES, or it is this
    commit's own version (the commit that cuts it); the versions
    sql/RELEASES gives a commit are the ones CHANGELOG.md dates, but for
    that commit's own."""
    assert CURRENT_RELEASE in RELEASES or CURRENT_RELEASE == VERSION, (CURRENT_RELEASE, RELEASES)
    assert set(RELEASES) == set(RELEASED) - {VERSION}, (RELEASES, RELEASED)
    seen = 0
    for page in TODAY:
        named = set(EXTENSION_VERSION.findall(page.read_text()))
        seen += len(named)
        assert named <= {CURRENT_RELEASE}, (name(page), named)
    assert seen >= 1, seen


# a release's file name with a version written in it, as scripts/release
# makes them: the extension's Debian package (postgresql-15-ulid_0.5.0-1_...),
# its tarball or the directory it unpacks to (ulid-0.5.0-pg15-linux-...),
# the PGXN zip (ulid-0.5.0.zip), and the tool's (ulid-tool_0.5.0-1_...,
# ulid-tool-0.5.0-linux-...); not an update script (ulid--0.4.0--0.5.0.sql),
# nor 0.4.0's ulid-cli, whose files no later release makes
RELEASE_FILE = re.compile(r"(?<![\w.-])(?:postgresql-\d+-)?ulid(?P<tool>-tool)?[-_]"
                          r"(?P<version>\d+\.\d+\.\d+(?:[-~](?:alpha|beta|rc)[\w.]*)?)(?![\d])")


def deb_version(version: str) -> str:
    """A Cargo pre-release 0.2.0-rc.1 is Debian's 0.2.0~rc.1 (package-deb)."""
    return version.replace("-", "~")


def release_files_not_of(text: str, version: str, tool_version: str) -> list[str]:
    """The release file names TEXT writes with another version than the
    tree's: VERSION for the extension's files, TOOL_VERSION for the tool's."""
    wrong = []
    for m in RELEASE_FILE.finditer(text):
        want = tool_version if m.group("tool") else version
        if m.group("version") not in (want, deb_version(want)):
            wrong.append(m.group(0))
    return wrong


def test_release_file_names_are_the_trees():
    """A page that names a release's file with its version names the one
    `scripts/release` makes from this tree (Cargo.toml's version, the
    tool's for its files): a page's command copies a file that exists.
    The install pages match the version with `*` instead, and the released
    sections of CHANGELOG.md are history."""
    wrong = [(name(page), found) for page in TODAY
             for found in release_files_not_of(page.read_text(), VERSION, CLI_VERSION)]
    assert not wrong, wrong


def test_the_release_file_check_finds_a_hand_written_version():
    planted = """
sudo apt install ./postgresql-15-ulid_0.4.0-1_amd64.deb
tar xzf ulid-0.4.0-pg15-linux-x86_64.tar.gz
sudo ulid-0.4.0-pg15-linux-x86_64/install.sh /usr/lib/postgresql/15/bin/pg_config
sudo apt install ./ulid-tool_0.4.0-1_arm64.deb and ulid-tool-0.4.0-linux-x86_64.tar.gz
pgxn install ./ulid-0.4.0.zip, or ulid_0.4.0
"""
    assert release_files_not_of(planted, "0.5.0", "0.5.0") == [
        "postgresql-15-ulid_0.4.0", "ulid-0.4.0", "ulid-0.4.0", "ulid-tool_0.4.0", "ulid-tool-0.4.0",
        "ulid-0.4.0", "ulid_0.4.0"]
    # the tree's own version, a pre-release as Debian writes it, the tool's
    # own version, a glob or a placeholder, and what is no release file
    fine = """
./postgresql-15-ulid_0.5.0-1_amd64.deb ulid-0.5.0-pg15-linux-x86_64.tar.gz
postgresql-13-ulid_0.6.0~rc.1-1_arm64.deb ulid-0.6.0-rc.1-pg13-linux-aarch64.tar.gz
ulid-tool_1.2.0-1_amd64.deb ./postgresql-15-ulid_*_amd64.deb ulid-VERSION-pg15-linux-x86_64.tar.gz
ulid--0.4.0--0.5.0.sql ulid_portable.sql ulid-cli_0.4.0-1_amd64.deb ulid 0.4.0 pg_ulid-0.4.0
"""
    assert release_files_not_of(fine, "0.5.0", "1.2.0") == ["postgresql-13-ulid_0.6.0~rc.1",
                                                            "ulid-0.6.0-rc.1"]
    assert release_files_not_of(fine, "0.6.0-rc.1", "1.2.0") == ["postgresql-15-ulid_0.5.0", "ulid-0.5.0"]


WORKFLOWS = ROOT / ".github" / "workflows"
# a page that speaks of CI: "CI runs", "in CI", "as CI does", "under CI"
NAMES_CI = re.compile(r"\bCI\b")


def triggers(text: str) -> dict:
    """A workflow's `on:` as a mapping (YAML 1.1 reads the key `on` as
    true; `on: push` and `on: [push, pull_request]` are written out)."""
    workflow = yaml.safe_load(text) or {}
    on = workflow.get("on", workflow.get(True)) or {}
    if isinstance(on, str):
        on = {on: None}
    elif isinstance(on, list):
        on = dict.fromkeys(on)
    return on


def ci_workflows(workflows: dict[str, str]) -> list[str]:
    """The workflows (name: text) that run on every push or on pull
    requests: CI. A push limited to tags (a release's) is no CI run."""
    found = []
    for name_, text in workflows.items():
        on = triggers(text)
        push = on.get("push", False)
        on_push = "push" in on and not (isinstance(push, dict) and set(push) <= {"tags", "tags-ignore"} and push)
        if on_push or "pull_request" in on or "pull_request_target" in on:
            found.append(name_)
    return found


def ci_claims_unbacked(pages: dict[str, str], workflows: dict[str, str]) -> list[str]:
    """What pages (name: text) say of CI that the workflows do not back: a
    page that names a CI run, where no workflow runs on push or pull
    request; a paragraph that says CI runs `.ci/run`, where no such
    workflow runs it."""
    ci = ci_workflows(workflows)
    runs = any(".ci/run" in workflows[w] for w in ci)
    wrong = []
    for page, text in pages.items():
        if NAMES_CI.search(text) and not ci:
            wrong.append(f"{page}: names CI, and no workflow runs on push or pull_request")
        for paragraph in re.split(r"\n\s*\n", text):
            if NAMES_CI.search(paragraph) and ".ci/run" in paragraph and ci and not runs:
                wrong.append(f"{page}: CI runs .ci/run, and no CI workflow ({', '.join(ci)}) runs it")
    return wrong


def test_what_the_pages_say_of_ci_is_a_workflow():
    """"CI" on a page is .github/workflows' run on every push and pull
    request: some workflow runs then (release.yml runs on tags only), and
    it runs `.ci/run` where a page says CI does."""
    workflows = {p.name: p.read_text() for p in sorted(WORKFLOWS.glob("*.y*ml"))}
    pages = {name(page): page.read_text() for page in TODAY}
    assert sum(bool(NAMES_CI.search(text)) for text in pages.values()) >= 2
    assert not ci_claims_unbacked(pages, workflows), ci_claims_unbacked(pages, workflows)


def test_the_ci_check_finds_a_ci_that_is_not_there():
    workflows = {p.name: p.read_text() for p in sorted(WORKFLOWS.glob("*.y*ml"))}
    assert ci_workflows(workflows) == ["ci.yml"]
    page = {"README.md": "Run `scripts/test`, as CI does.\n\nCI runs `.ci/run` on every push.\n"}
    assert ci_claims_unbacked(page, workflows) == []
    # the workflows without ci.yml: release.yml runs on tags only
    without = {n: t for n, t in workflows.items() if n != "ci.yml"}
    assert ci_claims_unbacked(page, without) == [
        "README.md: names CI, and no workflow runs on push or pull_request"]
    # a CI workflow that runs something else than the page says
    other = {**without, "ci.yml": "on: [push, pull_request]\njobs:\n  t:\n    steps:\n      - run: make check\n"}
    assert ci_claims_unbacked(page, other) == [
        "README.md: CI runs .ci/run, and no CI workflow (ci.yml) runs it"]
    # on pull requests only, or `on: push` written short, is CI too; a page
    # that names no CI needs none
    assert ci_workflows({"a.yml": "on: pull_request\n", "b.yml": "on: push\n",
                         "c.yml": "on:\n  push:\n    tags: [v1]\n"}) == ["a.yml", "b.yml"]
    assert ci_claims_unbacked({"x.md": "Nothing of the sort.\n"}, without) == []


# an address a page made up: a host of dots or an ellipsis, an example or
# reserved domain (RFC 2606), a word in capitals standing for one
PLACEHOLDER_HOST = re.compile(r"(?:https?|ftp)://(?P<host>[^/\s)`'\"<>]*)")
MADE_UP = re.compile(r"…|\.\.\.|^example\.|\.example(?:\.|$)|\.(?:invalid|test|localhost)$|^[A-Z_-]+$")


@pytest.mark.parametrize("page", READ, ids=name)
def test_no_placeholder_host(page):
    found = [m.group(0) for m in PLACEHOLDER_HOST.finditer(page.read_text())
             if not m.group("host") or MADE_UP.search(m.group("host"))]
    assert not found, found


# "tested on PostgreSQL 13, 15 and 16", "tested against 13 to 19", "tested
# with ... on PostgreSQL 15 and later": the majors such a phrase names
TESTED_ON = re.compile(r"\btested\s+(?:on|against|with)\b(?P<what>(?:[^.:;]|\.(?=\d)){0,120})", re.I)
MAJOR = re.compile(r"(?<![\d.\w])(?<!Debian )(?<!Ubuntu )(1\d)(?![\d.]|rc)(?:\s+(?P<to>to|and later|or later)(?:\s+(1\d)(?![\d.]))?)?")


def majors_named(text: str) -> set[int]:
    last = max(b.major for b in builds.BUILDS.values())
    named = set()
    for m in MAJOR.finditer(text):
        first = int(m.group(1))
        if m.group("to") == "to" and m.group(3):
            named |= set(range(first, int(m.group(3)) + 1))
        elif m.group("to") in ("and later", "or later"):
            named |= set(range(first, last + 1))
        else:
            named.add(first)
    return named


def test_every_tested_on_phrase_says_what_the_table_says():
    """The majors a "tested on/against/with VERSIONS" phrase names are those
    of all the builds, or of the builds of one row of the table of what is
    tested where; the pages link to the row rather than list them."""
    collected = tested.collect()
    rows = {frozenset(builds.build_of(b).major for b in tested.builds_of(row, collected)) for row in tested.ROWS}
    rows.add(frozenset(b.major for b in builds.BUILDS.values()))
    wrong, seen = [], 0
    for page in TODAY:
        text = re.sub(r"\s+", " ", prose(page))
        for m in TESTED_ON.finditer(text):
            named = majors_named(m.group("what"))
            if not named:
                continue
            seen += 1
            if frozenset(named) not in rows:
                wrong.append((name(page), m.group(0).strip(), sorted(named)))
    assert not wrong, wrong
    # the check reads what it should: a phrase of each kind
    assert majors_named("tested on PostgreSQL 13, 15 and 19") == {13, 15, 19}
    assert majors_named("tested on 14 to 16") == {14, 15, 16}
    assert majors_named("tested on PostgreSQL 15 and later") == set(range(15, 20))
    assert majors_named("tested on its release candidate, 19rc1") == set()
    assert majors_named("tested with Django 5.2 on Python 3.11") == set()
    assert majors_named("tested on Debian 12 and Ubuntu 14 with its 15") == {15}
    assert seen >= 1, "no page says where it is tested"
