"""A request cut into numbers, words, currency signs and area units, with their positions."""

from __future__ import annotations

import dataclasses
import datetime
import math
import re
from dataclasses import dataclass

from ..apostrophes import APOSTROPHES
from .morphology import normal

_TOKEN = re.compile(
    r"""
    (?P<cur>[$€₴£])
    |(?P<area>м²|m²|м2(?!\d)|m2(?!\d)|кв\.?\s?м\b\.?|sq\.?\s?m\b\.?)
    |(?P<uo>у\.\s?[оеo]\.?)
    |(?P<date>\d{1,2}\.\d{1,2}\.(?:\d{4}|\d{2})(?![\d.,])|\d{4}-\d{1,2}-\d{1,2}(?![\d.,-]))
    |(?P<num>\d{1,3}(?:[\u00a0\u202f\u2009 ]\d{3})+(?![\d.,])|\d{1,3}(?:\.\d{3})+(?!\d|,\d)
        |\d{1,3}(?:,\d{3})+(?!\d|\.\d)|\d+(?:[.,]\d+)?)
    |(?P<word>[^\W\d_]+(?:[APOSTROPHES\-][^\W\d_]+)*)
    |(?P<sym>[^\s\w])
    """.replace("APOSTROPHES", APOSTROPHES),
    re.VERBOSE | re.IGNORECASE,
)


_GROUPED = re.compile(r"\d{1,3}(?P<sep>[.,])\d{3}(?:(?P=sep)\d{3})*")


@dataclass(frozen=True)
class Token:
    text: str
    low: str
    kind: str  # cur, area, uo, date, num, word, sym; digits: too long to be a number
    start: int
    end: int
    value: float | None = None  # a number said in words ("ста": 100)

    @property
    def number(self) -> float:
        """The number said: thousands grouped by spaces, dots or commas ("50 000", "50.000",
        "75,000": 3 digits after each), else a decimal ("1,5", "2.5")."""
        if self.value is not None:
            return self.value
        digits = re.sub(r"\s", "", self.text)
        if _GROUPED.fullmatch(digits):
            return float(re.sub(r"[.,]", "", digits))
        return self.decimal

    @property
    def date(self) -> datetime.date | None:
        """The day a date token says ("01.11.2026", "1.11.26", "2026-11-01"), or None for
        one that is no day ("31.02.2026")."""
        parts = [int(part) for part in re.split(r"[.-]", self.text)]
        day, month, year = reversed(parts) if "-" in self.text else parts
        year += 2000 if year < 100 else 0
        try:
            return datetime.date(year, month, day)
        except ValueError:
            return None

    @property
    def decimal(self) -> float:
        """The number with its comma or dot as the decimal point, as before a multiplier
        ("1,500 млн" is 1.5 million)."""
        if self.value is not None:
            return self.value
        return float(re.sub(r"\s", "", self.text).replace(",", "."))


def tokenize(text: str) -> list[Token]:
    tokens = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "sym"
        raw = match.group()
        token = Token(raw, normal(raw), kind, match.start(), match.end())
        if kind == "num" and not math.isfinite(token.number):
            # Hundreds of digits are no quantity anyone means, and as a float they are
            # infinite: no rule reads them (the area rule's label raised OverflowError, an
            # agent's call ended in internal_error); they stay in the searched text.
            token = dataclasses.replace(token, kind="digits")
        tokens.append(token)
    return tokens
