"""Tests that make rows of "today" and read them back by `now()` or
`current_date` later on expect one day throughout: a module that starts a
few minutes before midnight UTC waits for it to pass first."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone


def clear_of_midnight(seconds: float) -> None:
    """Returns at once if the next midnight UTC is at least `seconds` away,
    and otherwise just after it."""
    now = datetime.now(timezone.utc)
    midnight = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    left = (midnight - now).total_seconds()
    if left < seconds:
        time.sleep(left + 1)
