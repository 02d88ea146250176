"""The metro: a station ("біля метро Арсенальна") and how far it is at most ("500 м до
метро", "5 хвилин пішки")."""

from __future__ import annotations

from .places import Place
from .request import Request, number_text
from .words import (
    APPROX,
    DASHES,
    DISTANCE_AFTER,
    KILOMETRES,
    METRES,
    METRO_CUES,
    MINUTES,
    NEAR,
    TRANSPORT,
    WALK,
)

# A walk said in minutes, in metres: 80 a minute (4.8 km/h).
WALK_METRES_PER_MINUTE = 80


# --- the rules, in the order they run ---------------------------------------------------------


def read_metro(r: Request) -> None:
    for i in range(len(r.tokens)):
        if not r.has(i, METRO_CUES) or not r.free(i):
            continue
        start = i - 1 if r.has(i - 1, NEAR) else i
        j = r.skip_dot(i + 1)
        found = r.gazetteer.match(r.keys, j, ["metro_station"]) if r.kind(j) == "word" else []
        if found:
            place, size = found[0]
            _take_station(r, start, j + size, place)
        elif r.low(i).isascii():
            _station_before(r, i)


def _take_station(r: Request, start: int, end: int, place: Place) -> None:
    r.take(start, end, f"метро {place.value}", {"metro_station": place.value})


def _station_before(r: Request, i: int) -> None:
    """A station named before an English cue at i: "near Arsenalna metro", "Obolon station"."""
    for j in range(max(0, i - 3), i):
        stations = r.gazetteer.match(r.keys, j, ["metro_station"]) if r.kind(j) == "word" else []
        found = [place for place, size in stations if j + size == i]
        if found and all(r.free(k) for k in range(j, i)):
            start = j - 1 if r.has(j - 1, NEAR) else j
            end = i + 2 if r.low(i + 1) == "station" else i + 1  # "Arsenalna metro station"
            _take_station(r, start, end, found[0])
            return


def read_metro_distance(r: Request) -> None:
    """How far from the metro, at most: "500 м до метро", "до метро 1 км", "у 5 хвилинах
    пішки від метро", "10 min walk to the metro" (a walk's minutes at WALK_METRES_PER_MINUTE).
    Minutes by bus or car say no distance; "біля метро" says none either."""
    for i in range(len(r.tokens)):
        if r.kind(i) != "num" or "max_metro_distance" in r.filters:
            continue
        op, start = r.operator(i)
        if op not in {None, "max"}:
            continue
        if op is None and r.has(start - 1, WALK):
            start -= 1  # "пішки 5 хвилин до метро"
        if op is None and r.has(start - 1, APPROX):
            start -= 1  # "близько 10 хвилин до метро": that far, at most
        start = _lower_end(r, op, start)
        metres, end, minutes = _distance(r, i)
        if metres is None or r.has(end, TRANSPORT):
            continue
        end = end + 1 if r.has(end, WALK) else end
        metro = end + 2 if r.low(end + 1) == "the" else end + 1
        if r.has(end, DISTANCE_AFTER) and _metro_word(r, metro):
            end = metro + 1 if r.free(metro) else end + 1  # "500 м до метро"
        elif start >= 2 and _metro_word(r, start - 1) and r.has(start - 2, DISTANCE_AFTER | NEAR):
            start -= 2  # "до метро 500 м"
        elif not _after_station(r, start):
            continue
        if start > 0 and r.low(start - 1) in {"у", "в", "within"} and r.free(start - 1):
            start -= 1  # "у 5 хвилинах від метро"
        said = f"{number_text(minutes)} хв пішки, " if minutes is not None else ""
        label = f"до метро ≤ {said}{number_text(metres)} м"
        r.take(start, end, label, {"max_metro_distance": round(metres)})


def _lower_end(r: Request, op: str | None, start: int) -> int:
    """Where a distance's range starts when its lower end comes first ("200-300 м до метро",
    "від 200 до 300 метрів"): only its upper end is a filter, so the lower is read with it
    instead of staying in the searched text."""
    if op is None and r.low(start - 1) in DASHES and r.kind(start - 2) == "num":
        return start - 2 if r.free(start - 2) else start
    if op == "max" and r.kind(start - 1) == "num" and r.free(start - 1):
        before, at = r.operator(start - 1)
        return at if before == "min" else start
    return start


def _distance(r: Request, i: int) -> tuple[float | None, int, float | None]:
    """(metres, the token past the unit, minutes said or None) of the number at token i."""
    value, j = r.tokens[i].number, i + 1
    if r.has(j, MINUTES):
        minutes = value
        return minutes * WALK_METRES_PER_MINUTE, r.skip_dot(j + 1), minutes
    if r.has(j, KILOMETRES):
        return value * 1000, r.skip_dot(j + 1), None
    if r.kind(j) == "word" and r.has(j, METRES):
        return value, r.skip_dot(j + 1), None
    return None, j, None


def _after_station(r: Request, i: int) -> bool:
    """Whether token i follows a metro station read ("біля метро Лук'янівська 300 метрів")."""
    return any("metro_station" in chip.filters for chip in r.chips_ending(i))


def _metro_word(r: Request, i: int) -> bool:
    """Whether token i is "метро" (taken or not: a station named after it is the metro rule's)."""
    return 0 <= i < len(r.tokens) and r.low(i) in {"метро", "metro", "subway", "underground"}
