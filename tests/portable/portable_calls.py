"""The function calls of portable/ulid_portable.sql, read from the file
itself: every `name(...)` whose name is a function, with its arguments, in
the file's own SQL and in every dollar-quoted body it holds (the functions'
bodies and the SQL that format() writes out), each as the file has it.

A string literal passed on its own is of type `unknown` until a function
is chosen for it, and PostgreSQL then prefers a `text` parameter over any
other at that place: a role that may create functions in the called
function's schema could add an overload that takes it and runs instead.
The file types every literal it passes (`'x'::pg_catalog.text`), and a test
finds the ones it does not (`untyped_arguments`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ulidtools.base import ROOT

PORTABLE_SQL = ROOT / "portable" / "ulid_portable.sql"

# A token: a comment (dropped), a dollar-quoted string, a string (E'' or
# standard, with its doubled quotes), a name (a format() placeholder such as
# %2$s is one: the schema format() writes in), a number, `::`, or any other
# single character.
TOKEN = re.compile(r"""
    (?P<comment>--[^\n]*)
  | (?P<dollar>\$(?P<tag>[A-Za-z_][A-Za-z0-9_]*)?\$)
  | (?P<string>[Ee]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*')
  | (?P<name>(?:(?:[A-Za-z_]|%[0-9]+\$s)(?:[A-Za-z0-9_]|%[0-9]+\$s)*|"[^"]+")
             (?:\s*\.\s*(?:(?:[A-Za-z_]|%[0-9]+\$s)(?:[A-Za-z0-9_]|%[0-9]+\$s)*|"[^"]+"))*)
  | (?P<number>[0-9]+(?:\.[0-9]+)?)
  | (?P<cast>::)
  | (?P<space>\s+)
  | (?P<other>.)
""", re.VERBOSE | re.DOTALL)

# Names before a parenthesis that are SQL's own constructs, not functions:
# nothing is looked up for them by argument types.
NOT_FUNCTIONS = {
    "coalesce", "nullif", "greatest", "least", "any", "all", "some", "in", "exists", "values", "array",
    "row", "and", "or", "not", "as", "on", "from", "where", "when", "then", "else", "select", "returns",
    "is", "using", "into", "loop", "if", "elsif", "case", "end", "begin", "declare", "return", "filter",
    "over", "by", "with", "join", "also", "out", "perform", "execute", "raise", "exception", "setof",
    "operator", "group",
}


# Types that take a modifier in parentheses, as a variable's type is
# written after its name in a declaration.
TYPES_WITH_MODIFIERS = {"bit", "varbit", "varchar", "bpchar", "char", "numeric", "decimal", "timestamp",
                        "timestamptz", "time", "timetz", "interval"}


@dataclass(frozen=True)
class Token:
    kind: str       # "literal" (a string: quoted or dollar-quoted), "null", "number", "name", "cast", "other"
    text: str
    line: int
    end: int        # where it ends in the file (an offset)


@dataclass(frozen=True)
class Call:
    name: str                           # as written: "pg_catalog.set_config", "ulid_portable._backend"
    arguments: tuple[tuple[Token, ...], ...]
    line: int

    @property
    def function(self) -> str:
        """The function's own name, without its schema."""
        return re.sub(r"\s", "", self.name).split(".")[-1].strip('"').lower()

    @property
    def schema(self) -> str | None:
        parts = re.sub(r"\s", "", self.name).split(".")
        return parts[0].lower() if len(parts) > 1 else None


def tokens(sql: str, start: int, stop: int) -> tuple[list[Token], list[tuple[int, int]]]:
    """The tokens of sql[start:stop], without comments and spaces, and
    where the bodies of its dollar-quoted strings are, which are SQL too. A
    dollar-quoted string is one literal token here."""
    out: list[Token] = []
    bodies: list[tuple[int, int]] = []
    at = start
    while at < stop:
        m = TOKEN.match(sql, at, stop)
        kind = m.lastgroup if m.lastgroup != "tag" else "dollar"
        line = sql.count("\n", 0, m.start()) + 1
        if kind == "dollar":
            delimiter = m.group("dollar")
            end = sql.find(delimiter, m.end(), stop)
            assert end >= 0, f"line {line}: {delimiter} is not closed"
            bodies.append((m.end(), end))
            at = end + len(delimiter)
            out.append(Token("literal", sql[m.start():at], line, at))
            continue
        if kind == "string":
            out.append(Token("literal", m.group(), line, m.end()))
        elif kind == "name":
            out.append(Token("null" if m.group().lower() == "null" else "name", m.group(), line, m.end()))
        elif kind in ("number", "cast", "other"):
            out.append(Token(kind, m.group(), line, m.end()))
        at = m.end()
    return out, bodies


def calls_in(sql: str, start: int = 0, stop: int | None = None) -> list[Call]:
    """Every function call of sql[start:stop] and of the SQL in its
    dollar-quoted strings."""
    toks, bodies = tokens(sql, start, len(sql) if stop is None else stop)
    found = []
    for k, tok in enumerate(toks[:-1]):
        if tok.kind != "name" or toks[k + 1].text != "(" or tok.text.lower() in NOT_FUNCTIONS:
            continue
        before = toks[k - 1] if k else None
        # a type with a modifier (pg_catalog.bit(128)) in a cast, the
        # function a CREATE or COMMENT names, and a subquery's alias with
        # its columns
        if before is not None and (before.kind == "cast" or before.text.upper() in ("FUNCTION", "AS")):
            continue
        if before is not None and before.kind == "name" and before.text.lower() not in NOT_FUNCTIONS \
                and re.sub(r"\s", "", tok.text).split(".")[-1].lower() in TYPES_WITH_MODIFIERS:
            continue  # `name pg_catalog.bit(128)`: a variable and its type
        arguments: list[list[Token]] = [[]]
        depth = 0
        for t in toks[k + 2:]:
            if t.text in "([" and t.kind == "other":
                depth += 1
            elif t.text in ")]" and t.kind == "other":
                if depth == 0:
                    break
                depth -= 1
            elif t.text == "," and t.kind == "other" and depth == 0:
                arguments.append([])
                continue
            arguments[-1].append(t)
        args = tuple(tuple(a) for a in arguments if a)
        found.append(Call(tok.text, args, tok.line))
    for body_start, body_stop in bodies:
        found += calls_in(sql, body_start, body_stop)
    return found


def file_calls() -> list[Call]:
    return calls_in(PORTABLE_SQL.read_text())


def is_untyped(argument: tuple[Token, ...]) -> bool:
    """An argument that is a literal (strings side by side are one) or NULL
    with no cast after it: of type `unknown` when the call is resolved."""
    return bool(argument) and all(t.kind in ("literal", "null") for t in argument)


def untyped_arguments(calls: list[Call]) -> list[str]:
    """Each literal passed on its own, as `line: call(argument n: literal)`."""
    return [f"{c.line}: {c.name}(argument {n}: {a[0].text.splitlines()[0][:40]})"
            for c in calls for n, a in enumerate(c.arguments, 1) if is_untyped(a)]
