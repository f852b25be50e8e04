"""For tests that read rows of "today" back by `now()` or `current_date`: a midnight UTC that is close, waited out."""

from __future__ import annotations

import time


def clear_of_midnight(seconds: float) -> None:
    """Returns at once if midnight UTC is at least SECONDS away, else just after it."""
    left = 86400 - time.time() % 86400  # POSIX time: every UTC day is 86,400 s
    if left < seconds:
        time.sleep(left + 1)
