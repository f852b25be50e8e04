"""The summary of the documentation's examples, printed at the end of a run:
pages, blocks and statements run, and the blocks that were not."""

from __future__ import annotations

import pytest

RECORD = pytest.StashKey[list]()


@pytest.fixture(scope="session")
def docs_record(request) -> list:
    """One entry per page tested: what ran, what did not and why."""
    return request.config.stash.setdefault(RECORD, [])


def pytest_terminal_summary(terminalreporter, config):
    record = config.stash.get(RECORD, None)
    if not record:
        return
    write = terminalreporter.write_line
    terminalreporter.write_sep("-", "documentation examples")
    blocks = sum(entry["blocks"] for entry in record)
    statements = sum(entry["statements"] for entry in record)
    not_run = [(entry["page"], line, why) for entry in record for line, why in entry["not_run"]]
    skipped = [(entry["page"], line, why) for entry in record for line, why in entry["skipped"]]
    write(f"{len(record)} pages: {blocks} SQL blocks and {statements} statements run, "
          f"{len(not_run)} blocks not run, {len(skipped)} skipped on this version")
    for entry in record:
        write(f"  {entry['page']}: {entry['blocks']} blocks, {entry['statements']} statements")
    for page, line, why in not_run:
        write(f"  not run: {page}:{line}: {why}")
    for page, line, why in skipped:
        write(f"  skipped: {page}{f':{line}' if line else ''}: {why}")
