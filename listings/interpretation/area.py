"""Areas: the total ("квартира 50 м²", "від 40 до 60 метрів"), the kitchen's ("з кухнею
12 м²"), the living area ("житлова площа від 30 м²") and a plot's ("ділянка 10 соток")."""

from __future__ import annotations

from .request import Quantity, Request, either_side, number_text, range_label
from .rooms import rooms_and_flat
from .words import (
    APPROX,
    AREA_CUES,
    DISTANCE_AFTER,
    FLAT_SHORT,
    KITCHEN,
    LIVING,
    NOT_PRICE_AFTER,
    PROPERTY_WORDS,
    RANGE_FROM,
    ROOM_UNITS,
    ROOMS_WORDS,
)

PLOT_METRES = {"sotka": 100, "hectare": 10_000}
PLOT_LABELS = {"sotka": "сот.", "hectare": "га"}
# A bare area ("квартира 50 м²") is taken as this share either side; a bare kitchen ("кухня
# 12 м²") or living area as this share under it and up: nobody turns down more of either.
BARE_AREA_SPREAD = 0.1
# The words for an area that make a number right after them square metres ("площа 60").
AREA_NOUNS = frozenset({"площа", "площадь", "метраж", "area"})
MIN_UNSAID_AREA = 10
# The kitchens a number without a unit may be ("кухня 9"), m².
KITCHEN_M2 = (3, 60)


def read_area(r: Request) -> None:
    for i in range(len(r.tokens)):
        if r.kind(i) != "num":
            continue
        quantity = r.quantity(i)
        if quantity is None:
            continue
        op, start = r.operator(i)
        quantity.unit = r.range_unit(quantity, op)
        if quantity.unit is None and r.has(start - 1, KITCHEN) and _kitchen_sized(r, quantity):
            op, low, high, end = r.limits(quantity, op)  # "кухня 9": square metres, unsaid
            bare = op is None and quantity.high is None
            _part_area(r, "kitchen", start - 1, end, low, high, bare=bare)
            continue
        if _area_unsaid(r, quantity, start, op):
            quantity.unit = "area"  # "площа 60", "площею від 50 до 70": m², the unit unsaid
        if quantity.unit is None or rooms_and_flat(r, quantity):
            continue
        if op == "max" and r.low(start) == "по" and quantity.high is None:
            first = start - 1
            if not (r.kind(first) == "num" and r.low(first - 1) in RANGE_FROM and r.free(first)):
                continue  # "3 кімнати по 15 м2": each room's, not the flat's
            # "з 40 по 60 м2": a range
            op, start = None, first - 1
            quantity.low, quantity.high = r.tokens[first].number, quantity.low
        # the range's far end first: "від 40 до 60 метрів" is no distance "40 [метрів] до"
        op, low, high, end = r.limits(quantity, op)
        bare = op is None and quantity.high is None  # one value, no bound said
        # "площею 60 метрів"; "квартира 40-50 метрів" too: metres right after a flat are its
        # area ("квартира біля парку 300 метрів" is a distance)
        before = range(max(0, start - 3), start)
        living = next((k for k in reversed(before) if r.has(k, LIVING)), None)
        if living is not None:  # "житлова площа 40 м²": not the total area
            _part_area(r, "living", living, end, low, high, bare=bare)
            continue
        kitchen = next((k for k in reversed(before) if r.has(k, KITCHEN)), None)
        cue = kitchen is not None or any(r.has(k, AREA_CUES) for k in before)
        # "квартира 60 метрів", "3к кв 90м" (the flat's shorthand)
        cue = cue or r.has(start - 1, PROPERTY_WORDS) or r.low(start - 1) in FLAT_SHORT
        # right after the rooms ("2к 60м", "2 кімнати 60 метрів"), or a range or a bound in a
        # request for a property ("квартира в Києві від 50 до 80 метрів"): an area too
        rooms = start - 1 - (r.low(start - 1) == ",")  # "2к, 60 м" too
        cue = cue or r.has(rooms, ROOM_UNITS) or r.has(rooms, ROOMS_WORDS)
        ranged = low is not None and high is not None
        cue = cue or ((ranged or op is not None) and _property_said(r))
        # "500 метрів до метро": a distance; not "від 60 метрів до 90 тисяч" (a price's bound)
        distance = r.has(quantity.end, DISTANCE_AFTER) and r.kind(quantity.end + 1) != "num"
        if quantity.unit == "metres" and (not cue or distance):
            continue
        if r.has(quantity.end, DISTANCE_AFTER) and r.low(quantity.end + 1) == "метро":
            continue
        if kitchen is not None:
            _part_area(r, "kitchen", kitchen, end, low, high, bare=bare)
            continue
        if quantity.unit in PLOT_METRES:
            _plot(r, quantity, start, end, low, high, bare=bare)
            continue
        if bare:
            start -= 1 if r.has(start - 1, APPROX) else 0  # "близько 70 м2"
            low, high, label = _about(quantity.low)
        else:
            label = range_label(low, high, "м²")
        if start > 0 and r.has(start - 1, AREA_NOUNS):
            start -= 1
        values = {"min_area": low, "max_area": high}
        r.take(start, end, label, {k: v for k, v in values.items() if v is not None})


def _area_unsaid(r: Request, quantity: Quantity, start: int, op: str | None) -> bool:
    """Whether a number without a unit right after a word for the area ("площа 60") is one
    in m²; a range's far end without its unit too ("площею від 50 до 70"), taken into
    `quantity`. A number below MIN_UNSAID_AREA is none ("площа 2")."""
    if quantity.unit is not None or quantity.currency is not None:
        return False
    if not r.has(start - 1, AREA_NOUNS) or quantity.low < MIN_UNSAID_AREA:
        return False
    if r.has(start - 2, PROPERTY_WORDS) and r.value(start - 2, PROPERTY_WORDS) == "land":
        return False  # "ділянка площею 10": sotky as likely as m²
    if quantity.high is None and op in {"min", "between"} and r.joined(op, quantity.end):
        following = r.quantity(quantity.end + 1)  # "від 50 до 70": the far end, its unit unsaid
        if (
            following is not None
            and following.unit is None
            and following.mult is None
            and following.currency is None
        ):
            quantity.high, quantity.end = following.low, following.end
    return True


def read_area_parts(r: Request) -> None:
    """The areas as Ukrainian listings write them: "54/30/9 м²" (or without the unit) is the
    total, living and kitchen areas, "150/80 м2" the total and living. The total is the
    largest; each is read as a bare value is. Read before the floors, whose "5/9" is two
    numbers without an area's unit, the first the smaller."""
    for i in range(len(r.tokens)):
        if r.kind(i) != "num" or not r.free(i) or r.low(i - 1) == "/":
            continue
        sizes, j = [float(r.tokens[i].number)], i + 1
        while r.low(j) == "/" and r.kind(j + 1) == "num" and r.free(j + 1):
            sizes, j = [*sizes, float(r.tokens[j + 1].number)], j + 2
        unit, end = r.area_unit(j)
        if len(sizes) not in {2, 3} or r.low(end) == "/" or unit not in {None, "area", "metres"}:
            continue
        if min(sizes) <= 0 or max(sizes[1:]) >= sizes[0] or (len(sizes) == 2 and unit is None):
            continue  # "5/9": a floor of a building of 9 storeys
        low, high, label = _about(sizes[0])
        values: dict[str, float] = {"min_area": low, "max_area": high}
        labels = [label]
        for part, size in zip(("living", "kitchen"), sizes[1:], strict=False):
            bound, label = _part_bounds(part, None, size, bare=True)
            values |= bound
            labels.append(label)
        start = i - 1 if r.has(i - 1, AREA_CUES) and r.low(i - 1).startswith("площ") else i
        r.take(start, end, ", ".join(labels), values)


PART_LABELS = {"kitchen": "кухня", "living": "житлова площа"}


def _about(area: float) -> tuple[float, float, str]:
    """A bare total area ("квартира 50 м²"): BARE_AREA_SPREAD either side, and its label."""
    low, high = either_side(area, BARE_AREA_SPREAD)
    return low, high, f"≈ {number_text(area)} м²"


def _part_bounds(
    part: str, low: float | None, high: float | None, *, bare: bool
) -> tuple[dict[str, float], str]:
    """The kitchen's or the living area's (`part`) filters and label: (low, high), or for a
    bare value (`high`) from BARE_AREA_SPREAD under it up ("з кухнею 12 м²")."""
    if bare:
        low, high = round(float(high or 0) * (1 - BARE_AREA_SPREAD), 2), None
    bounds = {f"min_{part}_area": low, f"max_{part}_area": high}
    label = f"{PART_LABELS[part]} " + range_label(low, high, "м²")
    return {name: value for name, value in bounds.items() if value is not None}, label


def _part_area(
    r: Request, part: str, at: int, end: int, low: float | None, high: float | None, *, bare: bool
) -> None:
    """The kitchen's or the living area (`part`) from its word at `at` to `end`
    (_part_bounds)."""
    values, label = _part_bounds(part, low, high, bare=bare)
    r.take(r.with_start(at), end, label, values)


def _property_said(r: Request) -> bool:
    return any(r.has(k, PROPERTY_WORDS) for k in range(len(r.tokens)))


def _kitchen_sized(r: Request, quantity: Quantity) -> bool:
    """Whether a number said with no unit right after a kitchen is its area: a kitchen's size
    (KITCHEN_M2), no currency or multiplier, and no other unit after it ("кухня 2 поверх")."""
    sizes = [quantity.low] + ([quantity.high] if quantity.high is not None else [])
    return (
        quantity.currency is None
        and quantity.mult is None
        and all(KITCHEN_M2[0] <= size <= KITCHEN_M2[1] for size in sizes)
        and not r.has(quantity.end, NOT_PRICE_AFTER)
        and r.low(quantity.end) != "/"
    )


def _plot(
    r: Request,
    quantity: Quantity,
    start: int,
    end: int,
    low: float | None,
    high: float | None,
    *,
    bare: bool,
) -> None:
    """A plot's area in ares or hectares ("ділянка 10 соток", "від 6 до 12 соток", "1 га") as
    the total area in m², which is a plot's for land. With another property said ("будинок з
    ділянкою 10 соток") it is not that property's area, and no filter says a plot's."""
    if r.says_property_besides("land"):
        return
    unit = str(quantity.unit)
    scale, said = PLOT_METRES[unit], PLOT_LABELS[unit]
    if bare:
        label = f"≈ {number_text(quantity.low)} {said}"
        low, high = either_side(quantity.low * scale, BARE_AREA_SPREAD)
    else:
        label = range_label(low, high, said)
        low, high = (None if v is None else v * scale for v in (low, high))
    values = {"min_area": low, "max_area": high}
    r.take(start, end, label, {k: v for k, v in values.items() if v is not None})
