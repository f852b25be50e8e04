"""Every SQL example in the documentation runs, and prints what the page shows.

Each page (README.md and every docs/*.md) runs in a fresh database of its
own, `app`, in one psql session: its blocks in page order, so settings,
temporary tables and the session's generator state carry over from block to
block. The extension is created first unless the page runs
`CREATE EXTENSION ulid` itself.

- A fenced block whose info string is `sql` holds statements that must
  succeed; what they print is not shown and not compared.
- A fenced block whose info string is `psql` is a transcript: `=# ` starts a
  statement, `-# ` continues it, every other line is the output of the
  statement before it, exactly as psql prints it. Comparison is exact except
  for trailing whitespace and trailing blank lines; `…` in an expected line
  matches any run of characters within that line. psql runs with
  `VERBOSITY=verbose` (errors carry their SQLSTATE), `SHOW_CONTEXT=never`,
  TimeZone UTC and DateStyle ISO; the `LOCATION:` lines are dropped.
- `<!-- not run: REASON -->` right before a block keeps it out (listed in the
  summary); `<!-- docs-test: requires PG >= 16 -->` right before a block, or
  elsewhere on a page for the whole page, skips it on older servers;
  `<!-- docs-test: requires extension NAME -->` right before a block skips it
  on servers that do not have that extension (contrib) to install;
  `<!-- docs-test: timeseries -->` runs the page on Debian's PostgreSQL 18
  with TimescaleDB and pg_partman (the `timeseries` fixture; in the 18 run
  only, left out of the other builds' runs);
  `<!-- docs-test: preloaded -->` runs the page on the cluster with ulid in
  shared_preload_libraries; `<!-- docs-test: stand-in pgx_ulid -->` runs it
  in a database that has the stand-in extension of tests/harness/pgx_ulid/
  (harness.standin), installed for that page only; `<!-- docs-test:
  portable -->` runs portable/ulid_portable.sql in the page's database first
  (after `CREATE EXTENSION pgcrypto` where the server has it, as that page
  tells users to), and creates the extension only if the page does.
- Blocks in other languages are not run here (the client tests run the files
  in examples/).

The pages show the current release's version where PostgreSQL prints or
takes it (`ALTER EXTENSION ... UPDATE TO '0.4.0-resync'`); between
releases, the build has the next version, and the pages run as if they
showed that (harness.pages.as_built).

ULID_DOCS_ACCEPT=1 writes the actual output over every transcript that does
not match, for review with `git diff` (put `…` back where values vary).
"""

from __future__ import annotations

import difflib
import operator
from contextlib import ExitStack
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.clock import clear_of_midnight
from harness.pages import as_built, as_released, fenced_blocks, normalized, output_matches
from harness.pgcluster import ROOT, TIMESERIES_BUILD
from harness.standin import installed_standin

PORTABLE_SQL = ROOT / "portable" / "ulid_portable.sql"

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DATABASE = "app"
MARK = "@@docs-test@@"

COMMENT = re.compile(r"^\s*<!--\s*(?P<body>.*?)\s*-->\s*$")
STANDIN = re.compile(r"^docs-test:\s*stand-in\s+(?P<name>\w+)$")
REQUIRES = re.compile(r"^docs-test:\s*requires\s+PG\s*(?P<op>>=|>|<=|<|==)\s*(?P<version>\d+)$")
NEEDS = re.compile(r"^docs-test:\s*requires\s+extension\s+(?P<name>\w+)$")
CREATES_EXTENSION = re.compile(r"^\s*CREATE\s+EXTENSION\s+(IF\s+NOT\s+EXISTS\s+)?\"?ulid\"?(\s|;|$)", re.I)
CREATES_ROLE = re.compile(r"^\s*CREATE\s+(?:ROLE|USER)\s+\"?(\w+)\"?", re.I)
FAILURE = re.compile(r"^(ERROR|FATAL|PANIC):|^psql:|^invalid command ")
OPERATORS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq}


class PageError(Exception):
    """A page that does not follow the format of examples."""


@dataclass
class Statement:
    sql: str
    line: int                          # where it starts on the page, 1-based
    expected: list[str] | None = None  # a transcript's output; None in an sql block
    out_start: int = 0                 # the expected lines: page lines [out_start, out_end)
    out_end: int = 0


@dataclass
class Block:
    kind: str                          # "sql" or "psql"
    line: int
    indent: str
    statements: list[Statement] = field(default_factory=list)
    not_run: str | None = None
    requires: tuple[str, int] | None = None
    needs: str | None = None           # an extension the server must have


@dataclass
class Page:
    path: Path
    lines: list[str]
    blocks: list[Block]
    preloaded: bool = False
    portable: bool = False  # the portable layer first, the extension only if the page creates it
    server: str | None = None  # a fixture other than cluster and preloaded
    standins: list[str] = field(default_factory=list)  # extensions of tests/harness/NAME/, created first
    requires: list[tuple[str, int]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.path.relative_to(ROOT))


# --- reading a page --------------------------------------------------------

def parse_page(path: Path) -> Page:
    lines = as_built(path.read_text()).split("\n")
    try:
        fenced = fenced_blocks(lines, path.name)
    except ValueError as err:
        raise PageError(str(err)) from None
    page = Page(path, lines, [])
    pending: list[tuple[int, str]] = []  # directives waiting for their block
    i = 0
    while i < len(lines):
        line = lines[i]
        comment = COMMENT.match(line)
        fence = fenced.get(i)
        if comment:
            body = comment.group("body")
            if body.startswith("not run:") or body.startswith("docs-test:"):
                pending.append((i + 1, body))
            i += 1
            continue
        if not fence:
            if line.strip():
                # directives not followed by a block apply to the whole page
                for at, body in pending:
                    page_directive(page, at, body)
                pending = []
            i += 1
            continue
        indent, info, end = fence.indent, fence.info, fence.end
        if info in ("sql", "psql"):
            block = Block(info, i + 1, indent)
            for at, body in pending:
                block_directive(page, block, at, body)
            if info == "sql":
                block.statements = split_sql(lines, i + 1, end, indent)
            else:
                block.statements = split_transcript(lines, i + 1, end, indent, path.name)
            page.blocks.append(block)
        elif any(body.startswith("not run:") for _, body in pending):
            raise PageError(f"{path.name}:{i + 1}: 'not run' before a block that is not sql or psql")
        elif pending:
            for at, body in pending:
                page_directive(page, at, body)
        pending = []
        i = end + 1
    for at, body in pending:
        page_directive(page, at, body)
    return page


def parse_requires(where: str, body: str) -> tuple[str, int]:
    match = REQUIRES.match(body)
    if not match:
        raise PageError(f"{where}: cannot read {body!r} (write 'docs-test: requires PG >= 16')")
    return match.group("op"), int(match.group("version"))


def page_directive(page: Page, at: int, body: str) -> None:
    where = f"{page.path.name}:{at}"
    if body.startswith("not run:"):
        raise PageError(f"{where}: 'not run' must come right before a block")
    if body == "docs-test: preloaded":
        page.preloaded = True
    elif body == "docs-test: portable":
        page.portable = True
    elif body == "docs-test: timeseries":
        page.server = "timeseries"
    elif STANDIN.match(body):
        page.standins.append(STANDIN.match(body).group("name"))
    else:
        page.requires.append(parse_requires(where, body))


def block_directive(page: Page, block: Block, at: int, body: str) -> None:
    where = f"{page.path.name}:{at}"
    if body.startswith("not run:"):
        block.not_run = body[len("not run:"):].strip() or "no reason given"
    elif body == "docs-test: preloaded":
        page.preloaded = True
    elif NEEDS.match(body):
        block.needs = NEEDS.match(body).group("name")
    else:
        block.requires = parse_requires(where, body)


def unindent(line: str, indent: str) -> str:
    return line[len(indent):] if line.startswith(indent) else line.lstrip()


def ends_statement(sql: str) -> bool:
    """Whether psql would run this text now: it ends with a semicolon, or is
    (or ends with) a backslash command."""
    text = re.sub(r"\s*--[^'\"\n]*$", "", sql.rstrip())  # a comment after the statement
    last = text.split("\n")[-1].strip()
    return text.endswith(";") or last.startswith("\\") or bool(re.search(r"\s\\g\w*(\s|$)", last))


def split_transcript(lines: list[str], start: int, end: int, indent: str, name: str) -> list[Statement]:
    statements: list[Statement] = []
    current: Statement | None = None
    for i in range(start, end):
        line = unindent(lines[i], indent)
        if line == "=#" or line.startswith("=# "):
            if current is not None:
                current.out_end = i
            current = Statement(line[3:], i + 1, [], i + 1, i + 1)
            statements.append(current)
        elif line == "-#" or line.startswith("-# "):
            if current is None or current.expected:
                raise PageError(f"{name}:{i + 1}: '-# ' continues no statement")
            current.sql += "\n" + line[3:]
            current.out_start = current.out_end = i + 1
        elif current is None:
            if line.strip():
                raise PageError(f"{name}:{i + 1}: output before the first '=# '")
        else:
            current.expected.append(line)
    if current is not None:
        current.out_end = end
    for statement in statements:
        if not ends_statement(statement.sql):
            raise PageError(f"{name}:{statement.line}: the statement does not end with ';'")
    return statements


def split_sql(lines: list[str], start: int, end: int, indent: str) -> list[Statement]:
    """The statements of an sql block, as psql would split them: on
    semicolons outside quotes, dollar quotes and comments; a line that
    starts with a backslash is a psql command of its own."""
    text = "\n".join(unindent(line, indent) for line in lines[start:end])
    statements: list[Statement] = []
    n = len(text)
    i = 0
    begin: int | None = None

    def skip_comment(i: int) -> int:
        if text.startswith("--", i):
            j = text.find("\n", i)
            return n if j < 0 else j
        depth, i = 1, i + 2
        while i < n and depth:
            if text.startswith("/*", i):
                depth, i = depth + 1, i + 2
            elif text.startswith("*/", i):
                depth, i = depth - 1, i + 2
            else:
                i += 1
        return i

    def add(begin: int, stop: int) -> None:
        statements.append(Statement(text[begin:stop], start + 1 + text.count("\n", 0, begin)))

    while i < n:
        c = text[i]
        if text.startswith("--", i) or text.startswith("/*", i):
            i = skip_comment(i)
            continue
        if begin is None:
            if c.isspace():
                i += 1
                continue
            begin = i
            if c == "\\":
                j = text.find("\n", i)
                j = n if j < 0 else j
                add(begin, j)
                begin, i = None, j
                continue
        if c == "'":
            escapes = i > 0 and text[i - 1] in "eE" and (i < 2 or not (text[i - 2].isalnum() or text[i - 2] == "_"))
            i += 1
            while i < n:
                if escapes and text[i] == "\\":
                    i += 2
                    continue
                if text[i] == "'":
                    if text.startswith("''", i):
                        i += 2
                        continue
                    break
                i += 1
            i += 1
            continue
        if c == '"':
            j = text.find('"', i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == "$" and not (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")):
            tag = re.match(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$", text[i:])
            if tag:
                j = text.find(tag.group(0), i + len(tag.group(0)))
                i = n if j < 0 else j + len(tag.group(0))
                continue
        if c == ";":
            add(begin, i + 1)
            begin = None
        i += 1
    if begin is not None:
        line = start + 1 + text.count("\n", 0, begin)
        raise PageError(f"line {line}: the statement does not end with ';'")
    return statements


# --- running a page --------------------------------------------------------



def run_psql(cluster, statements: list[Statement]) -> list[list[str]]:
    """Runs the statements in one psql session and returns each one's output
    (stdout and stderr together, as pg_regress takes them)."""
    script = []
    for k, statement in enumerate(statements):
        script.append(f"\\echo '{MARK} {k}'")
        script.append(statement.sql)
    script.append(f"\\echo '{MARK} end'")
    env = cluster.env()
    # TimeZone and DateStyle as the pages print times; and settings that
    # change no printed value here but would change what code that leans on
    # them computes (numbers, times and messages in another locale, more
    # float digits): the pages' answers must not move with them
    env.update(PGDATABASE=DATABASE,
               PGOPTIONS="-c TimeZone=UTC -c DateStyle=ISO -c extra_float_digits=3 "
                         "-c lc_numeric=C.utf8 -c lc_time=C.utf8 -c lc_messages=C.utf8",
               PGCLIENTENCODING="UTF8", PAGER="", PSQL_PAGER="")
    env.pop("PSQLRC", None)
    result = subprocess.run(
        [str(cluster.bindir / "psql"), "-X", "-v", "ON_ERROR_STOP=0", "-v", "VERBOSITY=verbose",
         "-v", "SHOW_CONTEXT=never", "-P", "pager=off"],
        input="\n".join(script) + "\n", stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env=env, text=True, encoding="utf-8", errors="replace", timeout=900,
    )
    outputs: list[list[str]] = []
    current: list[str] | None = None
    for line in result.stdout.split("\n"):
        if line.startswith(MARK + " "):
            current = []
            outputs.append(current)
        elif current is not None and not line.startswith("LOCATION:  "):
            current.append(line)
    if len(outputs) != len(statements) + 1:
        pytest.fail(f"psql stopped after {len(outputs) - 1} of {len(statements)} statements "
                    f"(exit {result.returncode}):\n{result.stdout[-3000:]}")
    return outputs[:-1]


def version_ok(requires: tuple[str, int], version: int) -> bool:
    op, wanted = requires
    return OPERATORS[op](version, wanted)


def reset(cluster, roles: list[str]) -> None:
    with cluster.connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        for role in roles:
            conn.execute(f'DROP ROLE IF EXISTS "{role}"')


def rewrite(page: Page, accepted: list[tuple[Block, Statement, list[str]]]) -> None:
    lines = list(page.lines)
    for block, statement, actual in sorted(accepted, key=lambda a: -a[1].out_start):
        new = normalized(actual)
        if statement is not block.statements[-1] and new and new[-1].startswith("("):
            new.append("")  # the blank line psql prints after a result, before the next prompt
        lines[statement.out_start:statement.out_end] = [(block.indent + line) if line else "" for line in new]
    page.path.write_text(as_released("\n".join(lines)))


def on_timeseries_server(path: Path) -> bool:
    """Whether the page runs on Debian's 18 with TimescaleDB (`docs-test: timeseries`);
    a page that cannot be read is reported by its test, on every build."""
    try:
        return parse_page(path).server == "timeseries"
    except PageError:
        return False


@pytest.mark.parametrize("path", [
    pytest.param(p, id=str(p.relative_to(ROOT)),
                 marks=[pytest.mark.builds(TIMESERIES_BUILD)] if on_timeseries_server(p) else [])
    for p in PAGES])
def test_page(path: Path, request, major, docs_record):
    try:
        page = parse_page(path)
    except PageError as error:
        pytest.fail(f"{path.relative_to(ROOT)}: {error}")
    entry = {"page": page.name, "blocks": 0, "statements": 0, "not_run": [], "skipped": []}
    docs_record.append(entry)
    for requires in page.requires:
        if not version_ok(requires, major):
            entry["skipped"].append((0, f"page requires PG {requires[0]} {requires[1]}"))
            pytest.skip(f"{page.name} requires PostgreSQL {requires[0]} {requires[1]}")

    def server():
        return request.getfixturevalue(page.server or ("preloaded" if page.preloaded else "cluster"))

    run: list[Block] = []
    for block in page.blocks:
        if block.not_run:
            entry["not_run"].append((block.line, block.not_run))
        elif block.requires and not version_ok(block.requires, major):
            entry["skipped"].append((block.line, f"requires PG {block.requires[0]} {block.requires[1]}"))
        elif block.needs and not server().has_extension(block.needs):
            entry["skipped"].append((block.line, f"requires the extension {block.needs}, which this server lacks"))
        else:
            run.append(block)
    statements = [s for block in run for s in block.statements]
    if not statements:
        return
    entry["blocks"], entry["statements"] = len(run), len(statements)

    cluster = server()
    if page.server == "timeseries":
        # the page makes days up to today and reads them back by now()
        clear_of_midnight(120)
    roles = sorted({m.group(1) for s in statements for m in [CREATES_ROLE.match(s.sql)] if m})
    creates = any(CREATES_EXTENSION.match(s.sql) for s in statements)
    with ExitStack() as standins:
        for name in page.standins:
            standins.enter_context(installed_standin(cluster.build, name))
        reset(cluster, roles)
        cluster.create_database(DATABASE, extension=not creates and not page.portable)
        for name in page.standins:
            with cluster.connect(DATABASE) as conn:
                conn.execute(f'CREATE EXTENSION "{name}"')
        try:
            if page.portable:
                if cluster.has_extension("pgcrypto"):
                    cluster.run("psql", "-X", "-q", "-d", DATABASE, "-c", "CREATE EXTENSION pgcrypto")
                cluster.run("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", DATABASE, "-f", str(PORTABLE_SQL))
            outputs = run_psql(cluster, statements)
        finally:
            reset(cluster, roles)

    failures: list[str] = []
    accepted: list[tuple[Block, Statement, list[str]]] = []
    accept = os.environ.get("ULID_DOCS_ACCEPT") == "1"
    k = 0
    for block in run:
        for statement in block.statements:
            actual = outputs[k]
            k += 1
            where = f"{page.name}:{statement.line}"
            if statement.expected is None:
                errors = [line for line in actual if FAILURE.match(line)]
                if errors:
                    failures.append(f"{where}: the statement failed\n{statement.sql}\n"
                                    + "\n".join(normalized(actual)))
                continue
            if output_matches(statement.expected, actual):
                continue
            if accept:
                accepted.append((block, statement, actual))
                continue
            diff = difflib.unified_diff(normalized(statement.expected), normalized(actual),
                                        "the page shows", "psql prints", lineterm="")
            failures.append(f"{where}: the output differs\n=# "
                            + statement.sql.replace("\n", "\n-# ") + "\n" + "\n".join(diff))
    if accepted:
        rewrite(page, accepted)
        print(f"{page.name}: wrote the actual output of {len(accepted)} statements; review with git diff")
    if failures:
        pytest.fail(f"{len(failures)} example(s) of {page.name} on PostgreSQL {major}:\n\n"
                    + "\n\n".join(failures), pytrace=False)
