"""How recently a listing was published: "за останній тиждень", "за останні 3 дні",
"за последний месяц", "in the last 2 weeks", "за сьогодні" (`published_after`, counted back
from today), or since when: "оголошення з 2024 року", "опубліковані після 1 листопада"."""

from __future__ import annotations

import calendar
import datetime

from .request import Request
from .words import (
    LISTING_NOUNS,
    MONTHS,
    PERIOD_UNITS,
    PUBLISHED,
    RECENT,
    TODAY_WORDS,
    YEAR_AFTER,
    YEAR_FROM,
)

# Before a period: "за останній тиждень", "in the last week", "within the past 3 days".
PERIOD_PREPS = frozenset({"за", "in", "over", "within", "for", "during", "from"})


def read_published(r: Request) -> None:
    for i in range(len(r.tokens)):
        if "published_after" in r.filters or r.kind(i) != "word" or not r.free(i):
            continue
        if _published_since(r, i):
            continue
        listings_before = r.has(i - 2, PUBLISHED) and r.low(i - 1) == "за"
        if r.has(i, RECENT) or (listings_before and r.has(i, PERIOD_UNITS)):
            # "за останній тиждень"; after listings, "оголошення за тиждень" (alone, "за
            # місяць" is a month's rent)
            k = i + 1 if r.has(i, RECENT) else i
            count = r.count(k) if r.free(k) else None
            k += count is not None
            if not (r.has(k, PERIOD_UNITS) and r.free(k)):
                continue  # "останній поверх", "last floor"
            days_or_months = str(r.value(k, PERIOD_UNITS))
            since = _back(r.today, int(count or 1), days_or_months)
            start, end = i, k + 1
            if r.low(start - 1) == "the" and r.free(start - 1):
                start -= 1
        elif r.has(i, TODAY_WORDS) and _said_of_publishing(r, i):
            since, start, end = r.today - datetime.timedelta(int(r.value(i, TODAY_WORDS))), i, i + 1
        elif r.has(i, THIS) and r.has(i + 1, PERIOD_UNITS) and _this_period_published(r, i):
            # "оголошення цього тижня", "опубліковані цього місяця", "listings this week":
            # since the period began (a week on Monday)
            since = _period_start(r.today, str(r.value(i + 1, PERIOD_UNITS)))
            start, end = i, i + 2
        else:
            continue
        if r.low(start - 1) in PERIOD_PREPS and r.free(start - 1):
            start -= 1
        if _publishing_verb(r, start - 1):
            start -= 1  # "опубліковані за останній тиждень", "posted today"
        elif _publishing_verb(r, end):
            end += 1  # "сьогодні опубліковані"
        r.take(start, end, f"опубліковано з {since:%d.%m.%Y}", {"published_after": since})


def _published_since(r: Request, i: int) -> bool:
    """A date said after a word for publishing or listings and "з", "після", "since" at i:
    "оголошення з 2024 року" (from 1 January), "опубліковані після 1 листопада" (from the
    2nd; a day without its year is the last such day up to today), "listed since 3 March
    2026", a whole date after "з" alone: "квартири з 01.11.2026", "since 2026-11-01". Taken
    as `published_after`; True when read."""
    after = r.has(i, YEAR_AFTER)
    if not (after or r.has(i, YEAR_FROM)):
        return False
    # A whole date ("після 01.11.2026") says publishing alone: no other filter holds a day.
    if r.kind(i + 1) != "date" and not any(r.has(k, PUBLISHED) for k in (i - 2, i - 1)):
        return False
    k, end = i + 1, None
    if r.kind(k) == "date":  # "з 01.11.2026", "since 2026-11-01"
        said = r.tokens[k].date
        if said is None or not datetime.date(1990, 1, 1) <= said <= r.today:
            return False
        since, end = said + datetime.timedelta(days=after), k + 1
    elif r.kind(k) == "num" and r.has(k + 1, MONTHS) and r.free(k + 1):
        day, month = int(r.tokens[k].number), int(r.value(k + 1, MONTHS))
        year, end = r.today.year, k + 2
        if r.kind(end) == "num" and 1900 <= r.tokens[end].number <= 2100:
            year, end = int(r.tokens[end].number), end + 1
        elif (month, day) > (r.today.month, r.today.day):
            year -= 1  # "після 10 грудня" said on 5 December: last year's
        if not 1 <= day <= calendar.monthrange(year, month)[1]:
            return False
        since = datetime.date(year, month, day) + datetime.timedelta(days=after)
    elif r.kind(k) == "num" and 1990 <= r.tokens[k].number <= 2100 and r.tokens[k].number % 1 == 0:
        year, end = int(r.tokens[k].number), k + 1
        since = datetime.date(year + after, 1, 1)
    else:
        return False
    end, _, _ = r.past_year(end)  # "з 2024-го", "з 2024 року", "1 листопада 2026 р."
    if not all(r.free(k) for k in range(i, end)):
        return False
    start = i - 1 if _publishing_verb(r, i - 1) else i
    r.take(start, end, f"опубліковано з {since:%d.%m.%Y}", {"published_after": since})
    return True


def _publishing_verb(r: Request, k: int) -> bool:
    """Whether token k is a free word for publishing ("опубліковані", "posted"), not for the
    listings themselves ("оголошення", which an order may read: "свежие объявления")."""
    return r.has(k, PUBLISHED) and not r.has(k, LISTING_NOUNS) and r.free(k)


# "цього", "этой", "this" before a period: the one today is in.
THIS = frozenset({"цей", "этот", "this", "поточний", "текущий"})


def _this_period_published(r: Request, i: int) -> bool:
    """Whether "цього тижня" at i says when listings were published: a word for publishing
    or listings just before or after it ("будинок цього року" is no listing's date)."""
    return r.free(i + 1) and any(r.has(k, PUBLISHED) for k in (i - 3, i - 2, i - 1, i + 2))


def _period_start(today: datetime.date, unit: str) -> datetime.date:
    """The first day of the day, week (Monday), month or year `today` is in."""
    if unit == "week":
        return today - datetime.timedelta(days=today.weekday())
    if unit == "month":
        return today.replace(day=1)
    if unit == "year":
        return today.replace(month=1, day=1)
    return today


def _said_of_publishing(r: Request, i: int) -> bool:
    """Whether "сьогодні", "today" at i says when listings were published: after "за" ("за
    сьогодні"), or beside a word for publishing or listings ("опубліковані сьогодні",
    "today's listings")."""
    return r.low(i - 1) == "за" or any(r.has(k, PUBLISHED) for k in (i - 2, i - 1, i + 1))


def _back(today: datetime.date, count: int, unit: str) -> datetime.date:
    """`count` days, weeks, months or years before `today` (a month back from 31 March is
    the last day of February)."""
    if unit in {"day", "week"}:
        return today - datetime.timedelta(days=count * (7 if unit == "week" else 1))
    months = today.year * 12 + today.month - 1 - count * (12 if unit == "year" else 1)
    year, month = divmod(months, 12)
    month += 1
    return datetime.date(year, month, min(today.day, calendar.monthrange(year, month)[1]))
