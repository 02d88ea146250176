"""Per-caller rate limits and daily quotas, counted in the `default` database.

Each static token, agent key and OAuth client has one counter per minute and one per UTC
day (`QuotaWindow` rows). Every server process and host increments the same rows with one
UPDATE … WHERE calls < limit, so they count together and a restart forgets nothing. A
call over a limit is refused (and counted nowhere) with the seconds until its window ends.
Limits come from MCP_CALLS_PER_MINUTE / MCP_CALLS_PER_DAY (0: unlimited), or from the
agent key's own values set in the admin.
"""

from __future__ import annotations

import logging
import math
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from listings.errors import SearchError

from .callers import Caller
from .models import QuotaWindow

logger = logging.getLogger("vmk.mcp")

MINUTE = "minute"
DAY = "day"
PER_MINUTE_REACHED = (
    "Rate limit reached: {limit} calls per minute for this caller. Retry in {seconds} s."
)
PER_DAY_REACHED = (
    "Daily quota reached: {limit} calls per day for this caller. Retry in {seconds} s."
)
# Windows are kept this long, then deleted when a caller's new day starts.
KEEP_WINDOWS = timedelta(days=2)


class RateLimited(SearchError):
    code = "rate_limited"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    def as_dict(self) -> dict[str, str]:
        return {**super().as_dict(), "retry_after": str(self.retry_after)}


def limits(caller: Caller) -> tuple[int, int]:
    """(calls per minute, calls per day) for `caller`; 0 is unlimited."""
    per_minute = caller.calls_per_minute
    per_day = caller.calls_per_day
    return (
        settings.MCP_CALLS_PER_MINUTE if per_minute is None else per_minute,
        settings.MCP_CALLS_PER_DAY if per_day is None else per_day,
    )


def window_start(window: str, now: datetime) -> datetime:
    now = now.astimezone(UTC)
    if window == MINUTE:
        return now.replace(second=0, microsecond=0)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def seconds_left(window: str, now: datetime) -> int:
    length = timedelta(minutes=1) if window == MINUTE else timedelta(days=1)
    end = window_start(window, now) + length
    return max(1, math.ceil((end - now).total_seconds()))


def _take(key: str, window: str, start: datetime, limit: int) -> bool:
    """Count one call in the window if it is below `limit`; whether it was. Runs inside
    consume's transaction."""
    rows = QuotaWindow.objects.filter(caller=key, window=window, start=start)
    if rows.filter(calls__lt=limit).update(calls=F("calls") + 1):
        return True
    if rows.exists():
        return False
    try:
        with transaction.atomic(using="default"):
            QuotaWindow.objects.create(caller=key, window=window, start=start, calls=1)
    except IntegrityError:
        # Another process opened the window first: count in it.
        return bool(rows.filter(calls__lt=limit).update(calls=F("calls") + 1))
    if window == DAY:
        QuotaWindow.objects.filter(caller=key, start__lt=start - KEEP_WINDOWS).delete()
    return True


def consume(caller: Caller, now: datetime | None = None) -> None:
    """Count a call of `caller`, or raise RateLimited when a limit is reached (then the call
    counts in no window: one transaction covers both).

    The counters being unreachable does not stop searches: the call goes through and the
    failure is logged.
    """
    per_minute, per_day = limits(caller)
    if not (per_minute or per_day):
        return
    now = now or timezone.now()
    checks = [(MINUTE, per_minute, PER_MINUTE_REACHED), (DAY, per_day, PER_DAY_REACHED)]
    try:
        with transaction.atomic(using="default"):
            for window, limit, message in checks:
                if limit and not _take(caller.quota_key, window, window_start(window, now), limit):
                    seconds = seconds_left(window, now)
                    raise RateLimited(message.format(limit=limit, seconds=seconds), seconds)
    except DatabaseError as exc:
        logger.warning("quota counters unavailable (%s); call allowed", type(exc).__name__)
