"""When a listing was published: how recently ("за останній тиждень", "за останні 3 дні",
"за последний месяц", "in the last 2 weeks", "за сьогодні": `published_after`, counted back
from today), since when ("оголошення з 2024 року", "опубліковані після 1 листопада"), before
when ("опубліковані до 1 листопада": `published_before`) or within which year or month
("опублікована у 2025 році", "оголошення за жовтень": both)."""

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
# Before a date a listing was published before, or a month or year it was published in.
BEFORE = frozenset({"до", "перед", "before", "раніше", "раньше", "earlier"})
WITHIN = frozenset({"у", "в", "во", "за", "in", "during"})
EARLIEST = datetime.date(1990, 1, 1)


def read_published(r: Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) != "word" or not r.free(i) or _published_dated(r, i):
            continue
        if "published_after" in r.filters:
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


def _published_dated(r: Request, i: int) -> bool:
    """A date, a month or a year said after a word for publishing or listings and a
    preposition at i: since ("оголошення з 2024 року", from 1 January; "listed since 3 March
    2026"), after ("опубліковані після 1 листопада", from the 2nd), before ("опубліковані до
    1 листопада", up to 31 October; "до 2025 року", up to 2024) or within it ("опубліковані у
    2025 році", "оголошення за жовтень", "posted in March 2026"); a whole date after "з" or
    "до" alone: "квартири з 01.11.2026", "since 2026-11-01". A day or month without its year
    is the last such one up to today. Taken as `published_after` and `published_before`;
    True when read."""
    side = _side(r, i)
    if side is None:
        return False
    # A whole date ("після 01.11.2026") says publishing alone: no other filter holds a day.
    whole = r.kind(i + 1) == "date" and side != "within"
    if not whole and not any(r.has(k, PUBLISHED) for k in (i - 2, i - 1)):
        return False
    said = _period_said(r, i + 1)
    if said is None:
        return False
    first, last, end = said
    if first > r.today:
        return False
    end, _, _ = r.past_year(end)  # "з 2024-го", "з 2024 року", "1 листопада 2026 р."
    if not all(r.free(k) for k in range(i, end)):
        return False
    day = datetime.timedelta(days=1)
    bounds = {
        "since": {"published_after": first},
        "after": {"published_after": last + day},
        "before": {"published_before": first - day},
        "within": {"published_after": first, "published_before": last},
    }[side]
    if bounds.keys() & r.filters.keys():
        return False
    after, before = bounds.get("published_after"), bounds.get("published_before")
    if after is not None and before is not None:
        label = f"опубліковано {after:%d.%m.%Y}–{before:%d.%m.%Y}"
    elif after is not None:
        label = f"опубліковано з {after:%d.%m.%Y}"
    else:
        label = f"опубліковано до {before:%d.%m.%Y}"
    start = i - 1 if _publishing_verb(r, i - 1) else i
    r.take(start, end, label, bounds)
    return True


def _side(r: Request, i: int) -> str | None:
    """Which side of a date the preposition at i puts a listing's publishing on."""
    if r.has(i, YEAR_AFTER):
        return "after"
    if r.has(i, YEAR_FROM):
        return "since"
    if r.low(i) in BEFORE:
        return "before"
    if r.low(i) in WITHIN:
        return "within"
    return None


def _period_said(r: Request, k: int) -> tuple[datetime.date, datetime.date, int] | None:
    """The day, month or year said from token k as its first and last day, and the token
    past it: "01.11.2026", "1 листопада [2026]", "жовтень [2025]", "2025"; None for none."""
    if r.kind(k) == "date":
        said = r.tokens[k].date
        if said is None or said < EARLIEST:
            return None
        return said, said, k + 1
    if r.kind(k) == "num" and r.has(k + 1, MONTHS) and r.free(k + 1):
        day, month = int(r.tokens[k].number), int(r.value(k + 1, MONTHS))
        year, end = _year_of(r, k + 2, (month, day))
        if year is None or not 1 <= day <= calendar.monthrange(year, month)[1]:
            return None
        said = datetime.date(year, month, day)
        return said, said, end
    if r.kind(k) == "word" and r.has(k, MONTHS):
        month = int(r.value(k, MONTHS))
        year, end = _year_of(r, k + 1, (month, 1))
        if year is None:
            return None
        last = calendar.monthrange(year, month)[1]
        return datetime.date(year, month, 1), datetime.date(year, month, last), end
    if _a_year(r, k) and not _a_quantity(r, k + 1):
        year = int(r.tokens[k].number)
        return datetime.date(year, 1, 1), datetime.date(year, 12, 31), k + 1
    return None


def _a_quantity(r: Request, k: int) -> bool:
    """Whether the number before token k is a price or an area ("оголошення до 2000 грн",
    "до 2000 тис", "з 2000 м²"), not a year."""
    return any(
        found is not None for found in (r.multiplier(k)[1], r.currency(k)[0], r.area_unit(k)[0])
    )


def _year_of(r: Request, k: int, month_day: tuple[int, int]) -> tuple[int | None, int]:
    """The year said at k after a day or a month, or the last year whose such day is up to
    today; and the token past it."""
    if _a_year(r, k):
        return int(r.tokens[k].number), k + 1
    if r.kind(k) == "num":
        return None, k  # "1 листопада 5 кімнат" is no date
    year = r.today.year
    return (year - 1 if month_day > (r.today.month, r.today.day) else year), k


def _a_year(r: Request, k: int) -> bool:
    number = r.tokens[k].number if r.kind(k) == "num" else None
    return number is not None and EARLIEST.year <= number <= 2100 and number % 1 == 0


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
