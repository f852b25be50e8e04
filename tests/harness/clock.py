"""Tests that write rows of "today" and read them back by `now()` or `current_date`
need one day throughout, so they wait out a midnight UTC that is close."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone


def clear_of_midnight(seconds: float) -> None:
    """Returns at once if midnight UTC is at least SECONDS away, else just after it."""
    now = datetime.now(timezone.utc)
    midnight = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    left = (midnight - now).total_seconds()
    if left < seconds:
        time.sleep(left + 1)
