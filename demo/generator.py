"""Synthetic Ukrainian real-estate listings for the demo database, tests and benchmarks.

Pure Python, no database and no embeddings: rows are plain dicts keyed by COLUMNS. Every row
is drawn from its own random stream seeded by (seed, id), so a row never depends on how many
rows are generated or where the batch starts, and the same arguments always give the same rows.
"""

from __future__ import annotations

import bisect
import functools
import json
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from importlib import resources
from typing import Any, Generic, TypeVar

from listings.embedders import listing_text
from listings.models import LISTING_COLUMNS
from listings.vocabulary import DEFAULT_EXCHANGE_RATES

__all__ = [
    "CITIES",
    "CITY_PRICE_TREND",
    "COLUMNS",
    "DEFAULT_NOW",
    "GENERATOR_VERSION",
    "PROPERTY_TYPES",
    "CityInfo",
    "District",
    "duplicate_of",
    "embedding_text",
    "generate_listings",
    "price_trend_factor",
]

T = TypeVar("T")

_DIGITS = re.compile(r"^-?\d+$")


def _tuples(value: Any) -> Any:
    """JSON arrays back into the tuples the tables were written as."""
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    if isinstance(value, dict):
        return {key: _tuples(item) for key, item in value.items()}
    return value


@functools.cache
def data_file(name: str) -> dict[str, Any]:
    """A table from demo/data/ (read once): arrays as tuples, keys that are numbers as ints."""
    text = resources.files("demo").joinpath("data", name).read_text(encoding="utf-8")
    data = json.loads(
        text,
        object_pairs_hook=lambda pairs: {int(k) if _DIGITS.match(k) else k: v for k, v in pairs},
    )
    return dict(_tuples(data))


DEFAULT_NOW = datetime(2026, 11, 1, tzinfo=UTC)
# The runtime's default rates (listings.vocabulary), so the demo prices convert as searches do.
USD_UAH = DEFAULT_EXCHANGE_RATES["UAH"]
USD_EUR = DEFAULT_EXCHANGE_RATES["EUR"]
_TWO_YEARS_SEC = 730 * 86400
# Recorded in the databases it fills: a demo database from an older generator lacks what
# newer features rely on (price trends, planted duplicates) and is reported at start-up.
GENERATOR_VERSION = "2"
# Yearly price movement by city over the two years of publish dates.
CITY_PRICE_TREND = {
    "Київ": 0.12,
    "Харків": -0.12,
    "Одеса": 0.04,
    "Дніпро": 0.02,
    "Львів": 0.15,
    "Запоріжжя": -0.12,
    "Вінниця": 0.08,
    "Івано-Франківськ": 0.12,
    "Ужгород": 0.15,
    "Полтава": 0.05,
}

PROPERTY_TYPES: list[dict[str, Any]] = [
    {
        "id": 1,
        "slug": "apartment",
        "name": "Квартира",
        "description": "Квартири у багатоквартирних будинках: вторинний ринок і новобудови.",
    },
    {
        "id": 2,
        "slug": "house",
        "name": "Будинок",
        "description": "Приватні будинки, котеджі та дачі разом із земельною ділянкою.",
    },
    {
        "id": 3,
        "slug": "room",
        "name": "Кімната",
        "description": "Кімнати в комунальних квартирах і гуртожитках.",
    },
    {
        "id": 4,
        "slug": "commercial",
        "name": "Комерційна нерухомість",
        "description": "Магазини, кафе, склади та приміщення вільного призначення.",
    },
    {
        "id": 5,
        "slug": "land",
        "name": "Земельна ділянка",
        "description": "Ділянки під забудову, садівництво та комерційне використання.",
    },
    {
        "id": 6,
        "slug": "garage",
        "name": "Гараж",
        "description": "Гаражі в кооперативах і паркомісця в підземних паркінгах.",
    },
    {
        "id": 7,
        "slug": "office",
        "name": "Офіс",
        "description": "Офіси в бізнес-центрах і офісні приміщення в житлових будинках.",
    },
]
_APARTMENT, _HOUSE, _ROOM, _COMMERCIAL, _LAND, _GARAGE, _OFFICE = 1, 2, 3, 4, 5, 6, 7

# A row is keyed by the listing columns of the model (listings.models), in table order.
COLUMNS: tuple[str, ...] = LISTING_COLUMNS


# --- geography ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class District:
    """A real district (or, in smaller cities, a well-known residential area) of a city."""

    name: str
    locative: str  # "в Оболонському районі", "на Вишеньці"
    metro: tuple[str, ...] = ()  # stations in or right next to the district
    neighbourhoods: tuple[tuple[str, str], ...] = ()  # (name, locative) inside the district
    streets: tuple[str, ...] = ()  # streets in the district; the city's list when empty
    price_factor: float = 1.0
    central: bool = False
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class CityInfo:
    """A city with its districts, streets and market levels."""

    name: str
    genitive: str  # "Києва"
    locative: str  # "у Києві"
    weight: float  # share of the listings
    districts: tuple[District, ...]
    streets: tuple[str, ...]
    sale_usd_m2: float  # typical secondary-market flat price, USD per m²
    rent_uah_m2: float  # typical long rent, UAH per m² per month
    daily_uah: float  # a typical one-room flat per day, UAH
    land_usd_sotka: float  # a plot for a house, USD per sotka (100 m²)
    water: str | None = None  # what a water view looks at, accusative: "Дніпро", "море"
    water_districts: frozenset[str] = frozenset()  # districts on that water

    @property
    def has_metro(self) -> bool:
        return any(d.metro for d in self.districts)

    @property
    def metro_stations(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for d in self.districts:
            seen.update(dict.fromkeys(d.metro))
        return tuple(seen)

    @property
    def district_names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.districts)

    def district(self, name: str) -> District:
        for d in self.districts:
            if d.name == name:
                return d
        raise KeyError(name)


def _city(data: dict[str, Any]) -> CityInfo:
    districts = tuple(District(**district) for district in data.pop("districts"))
    water = frozenset(data.pop("water_districts"))
    return CityInfo(**data, districts=districts, water_districts=water)


CITIES: dict[str, CityInfo] = {
    city.name: city for city in map(_city, data_file("geography.json")["cities"])
}


# --- weighted choices --------------------------------------------------------------------


class _Pick(Generic[T]):
    """A precomputed weighted choice: one random() and one bisect per draw."""

    __slots__ = ("_cum", "_items", "_total")

    def __init__(self, pairs: Sequence[tuple[T, float]]) -> None:
        self._items = tuple(p[0] for p in pairs)
        cum: list[float] = []
        total = 0.0
        for _, w in pairs:
            total += w
            cum.append(total)
        self._cum = cum
        self._total = total

    def __call__(self, rng: random.Random) -> T:
        return self._items[bisect.bisect_right(self._cum, rng.random() * self._total)]


_CITY = _Pick([(c, c.weight) for c in CITIES.values()])
_DISTRICT = {name: _Pick([(d, d.weight) for d in c.districts]) for name, c in CITIES.items()}
_DEAL = _Pick([("sale", 55), ("rent_long", 35), ("rent_short", 10)])
_TYPE_BY_DEAL = {
    "sale": _Pick(
        [
            (_APARTMENT, 70),
            (_HOUSE, 11),
            (_ROOM, 2.5),
            (_COMMERCIAL, 4.5),
            (_LAND, 7),
            (_GARAGE, 2.5),
            (_OFFICE, 2.5),
        ]
    ),
    "rent_long": _Pick(
        [
            (_APARTMENT, 79),
            (_HOUSE, 5),
            (_ROOM, 6),
            (_COMMERCIAL, 4),
            (_GARAGE, 2),
            (_OFFICE, 4),
        ]
    ),
    "rent_short": _Pick([(_APARTMENT, 91), (_HOUSE, 6), (_ROOM, 3)]),
}
_STATUS = _Pick([("active", 80), ("closed", 10), ("removed", 5), ("archived", 5)])
_SALE_CURRENCY = _Pick([("USD", 85), ("EUR", 8), ("UAH", 7)])

_APT_ROOMS = _Pick([(1, 30), (2, 36), (3, 23), (4, 8), (5, 3)])
_APT_BUILDING = _Pick([("panel", 34), ("brick", 27), ("monolith", 34), ("gas_block", 5)])
_PANEL_FLOORS = (5, 5, 9, 9, 9, 10, 12, 16, 16)
_BALCONIES = {
    "panel": _Pick([(0, 15), (1, 65), (2, 20)]),
    "brick": _Pick([(0, 30), (1, 60), (2, 10)]),
    "monolith": _Pick([(0, 15), (1, 60), (2, 25)]),
    "gas_block": _Pick([(0, 30), (1, 60), (2, 10)]),
}
_BATH_BY_ROOMS = {
    1: _Pick([("combined", 80), ("separate", 20)]),
    2: _Pick([("separate", 55), ("combined", 45)]),
    3: _Pick([("separate", 60), ("multiple", 25), ("combined", 15)]),
    4: _Pick([("multiple", 60), ("separate", 40)]),
}
_PARKING_OLD = _Pick([("none", 50), ("ground", 40), ("garage", 10)])
_PARKING_NEW = _Pick([("underground", 45), ("ground", 45), ("none", 10)])
_HEATING = {
    "panel": _Pick([("central", 85), ("autonomous", 15)]),
    "brick": _Pick([("central", 80), ("autonomous", 20)]),
    "monolith": _Pick([("central", 35), ("autonomous", 45), ("floor", 20)]),
    "gas_block": _Pick([("autonomous", 80), ("floor", 20)]),
}
_VIEW = _Pick([("yard", 45), ("street", 33), ("park", 10), ("water", 7), ("forest", 5)])
_RENOV_NEW = _Pick(
    [("construction", 45), ("euro", 25), ("designer", 12), ("cosmetic", 8), ("none", 10)]
)
_RENOV_RECENT = _Pick([("euro", 45), ("designer", 20), ("cosmetic", 30), ("none", 5)])
_RENOV_OLD = _Pick([("cosmetic", 42), ("euro", 30), ("designer", 6), ("none", 22)])
_RENOV_RENT = _Pick([("cosmetic", 45), ("euro", 40), ("designer", 15)])

_HOUSE_ROOMS = _Pick([(2, 10), (3, 30), (4, 30), (5, 18), (6, 8), (7, 4)])
_HOUSE_BUILDING = _Pick(
    [("brick", 40), ("gas_block", 35), ("wood", 12), ("monolith", 7), ("panel", 6)]
)
_HOUSE_HEATING = _Pick([("autonomous", 70), ("floor", 18), ("none", 8), ("central", 4)])
_HOUSE_BATH = _Pick([("multiple", 50), ("separate", 38), ("combined", 12)])
_HOUSE_VIEW = _Pick(
    [("yard", 40), ("street", 10), ("forest", 25), ("water", 10), ("park", 5), (None, 10)]
)

# ~0.5% of rows carry one value the documented enums do not know (the real data has them),
# in a column the row has, for the property types where the value makes sense.
_RESIDENTIAL = frozenset({_APARTMENT, _HOUSE, _ROOM})
_ODD_VALUES: tuple[tuple[str, str, frozenset[int]], ...] = (
    ("building_type", "cinder_block", frozenset({_APARTMENT, _HOUSE, _ROOM, _COMMERCIAL})),
    ("renovation_status", "needs_repair", frozenset({*_RESIDENTIAL, _COMMERCIAL, _OFFICE})),
    ("heating_type", "gas_boiler", frozenset({_APARTMENT, _HOUSE})),
    ("layout_type", "free", frozenset({_APARTMENT})),
    ("window_view", "panorama", frozenset({_APARTMENT, _OFFICE})),
    ("parking_type", "street", frozenset({*_RESIDENTIAL, _COMMERCIAL, _OFFICE})),
    ("bathroom_type", "outdoor", frozenset({_HOUSE})),
)
_ODD_RATE = 0.005

_PHRASES = data_file("phrases.json")

# --- words --------------------------------------------------------------------------------

_ROOM_WORDS = _PHRASES["room_words"]
_BT = _PHRASES["bt"]
_HOUSE_FLOORS = _PHRASES["house_floors"]
_FEMALE = _PHRASES["female"]
_MALE = _PHRASES["male"]
_SURNAMES = _PHRASES["surnames"]
_PATRONYMICS_F = _PHRASES["patronymics_f"]
_PATRONYMICS_M = _PHRASES["patronymics_m"]
_AGENCIES = _PHRASES["agencies"]
_OPERATORS = _PHRASES["operators"]
_COMPLEXES = _PHRASES["complexes"]
_SHOPS = _PHRASES["shops"]
_PURPOSES = _PHRASES["purposes"]
_LAND_PURPOSES = _PHRASES["land_purposes"]
_LAND_PURPOSE = _Pick(_LAND_PURPOSES)


def _plural(n: int, one: str, few: str, many: str) -> str:
    n10, n100 = n % 10, n % 100
    if n10 == 1 and n100 != 11:
        return f"{n} {one}"
    if 2 <= n10 <= 4 and not 12 <= n100 <= 14:
        return f"{n} {few}"
    return f"{n} {many}"


def _num(value: int) -> str:
    """78000 -> '78 000' (the Ukrainian thousands separator is a space)."""
    return f"{value:,}".replace(",", " ")


def _area_text(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.1f}".replace(".", ",")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _dec(value: float) -> Decimal:
    return Decimal(f"{value:.2f}")


# --- text templates -----------------------------------------------------------------------
# Every template only uses keys the row context provides; groups are offered only when the
# structured fields make them true (a park view only for window_view == 'park', and so on).

_APT_TITLES = _PHRASES["apt_titles"]
_STUDIO_TITLES = _PHRASES["studio_titles"]
_APT_TITLE_EXTRA = _PHRASES["apt_title_extra"]

_APT_INTRO = _PHRASES["apt_intro"]
_STUDIO_INTRO = _PHRASES["studio_intro"]

_LAYOUT = _PHRASES["layout"]
_BATH = _PHRASES["bath"]
_AREAS = _PHRASES["areas"]
_KITCHEN = _PHRASES["kitchen"]
_CEILING = _PHRASES["ceiling"]

_BUILDING_NEW = _PHRASES["building_new"]
_BUILDING_KHRUSHCHOVKA = _PHRASES["building_khrushchovka"]
_BUILDING_STALINKA = _PHRASES["building_stalinka"]
_BUILDING_AUSTRIAN = _PHRASES["building_austrian"]
_BUILDING_POLISH = _PHRASES["building_polish"]
_BUILDING_GENERIC = _PHRASES["building_generic"]
_BUILDING_NO_YEAR = _PHRASES["building_no_year"]

_RENOVATION = _PHRASES["renovation"]
_RENOVATION_BIZ = _PHRASES["renovation_biz"]
_BALCONY_ONE = _PHRASES["balcony_one"]
_BALCONY_TWO = _PHRASES["balcony_two"]
_BALCONY_HOUSE = _PHRASES["balcony_house"]
_NO_BALCONY = _PHRASES["no_balcony"]
_HEATING_TEXT = _PHRASES["heating_text"]
_HEATING_HOUSE_NONE = _PHRASES["heating_house_none"]
_PARKING_TEXT = _PHRASES["parking_text"]
_PARKING_HOUSE = _PHRASES["parking_house"]
_VIEW_TEXT = _PHRASES["view_text"]
_INFRA = _PHRASES["infra"]
_INFRA_HOUSE = _PHRASES["infra_house"]
_METRO_WALK = _PHRASES["metro_walk"]
_METRO_TRANSPORT = _PHRASES["metro_transport"]
_NO_METRO = _PHRASES["no_metro"]
_DEAL_TEXT = _PHRASES["deal_text"]
_PETS = _PHRASES["pets"]
_EOSELIA = _PHRASES["eoselia"]
_CLOSING = _PHRASES["closing"]
_NO_PRICE = _PHRASES["no_price"]

_HOUSE_TITLES = _PHRASES["house_titles"]
_HOUSE_TITLE_EXTRA = _PHRASES["house_title_extra"]
_HOUSE_INTRO = _PHRASES["house_intro"]
_HOUSE_INTRO_NO_BT = _PHRASES["house_intro_no_bt"]
_PLOT = _PHRASES["plot"]
_UTILITIES = _PHRASES["utilities"]
_HOUSE_BUILT = _PHRASES["house_built"]
_HOUSE_BUILT_NO_YEAR = _PHRASES["house_built_no_year"]
_HOUSE_ROOMS_TEXT = _PHRASES["house_rooms_text"]
_HOUSE_ROOMS_NO_KITCHEN = _PHRASES["house_rooms_no_kitchen"]

_ROOM_TITLES = _PHRASES["room_titles"]
_ROOM_TITLE_METRO = _PHRASES["room_title_metro"]
_ROOM_INTRO = _PHRASES["room_intro"]
_NEIGHBOURS = _PHRASES["neighbours"]

_BIZ_TITLES = _PHRASES["biz_titles"]
_BIZ_TITLE_FLOOR1 = _PHRASES["biz_title_floor1"]
_BIZ_INTRO = _PHRASES["biz_intro"]
_BIZ_FEATURES = _PHRASES["biz_features"]
_BIZ_DEAL = _PHRASES["biz_deal"]
_OFFICE_TITLES = _PHRASES["office_titles"]
_OFFICE_TITLE_METRO = _PHRASES["office_title_metro"]
_OFFICE_INTRO = _PHRASES["office_intro"]
_OFFICE_FEATURES = _PHRASES["office_features"]
_GARAGE_TITLES = _PHRASES["garage_titles"]
_GARAGE_INTRO = _PHRASES["garage_intro"]
_GARAGE_FEATURES = _PHRASES["garage_features"]
_LAND_TITLES = _PHRASES["land_titles"]
_LAND_TITLE_BUILD = _PHRASES["land_title_build"]
_LAND_TITLE_FOREST = _PHRASES["land_title_forest"]
_LAND_INTRO = _PHRASES["land_intro"]
_LAND_FEATURES = _PHRASES["land_features"]
_LAND_VIEW = _PHRASES["land_view"]

_GEN_TEMPLATES = _PHRASES["gen_templates"]
_DEAL_LABEL = _PHRASES["deal_label"]


# --- row generation -----------------------------------------------------------------------


def _round_to(value: float, step: int) -> int:
    return max(step, round(value / step) * step)


def _sale_round(value: float, rng: random.Random) -> int:
    r = rng.random()
    if value >= 20000 and r < 0.3:
        return _round_to(value, 5000)
    if value >= 10000 and r < 0.4:
        return _round_to(value, 1000) - 100  # 64 900
    return _round_to(value, 500 if value < 200000 else 1000)


def _pick_metro(
    rng: random.Random, district: District, house_like: bool
) -> tuple[str | None, str | None, int | None]:
    if not district.metro:
        return None, None, None
    r = rng.random()
    if house_like:
        if r < 0.7:
            return None, None, None
        return rng.choice(district.metro), "transport", _round_to(rng.uniform(1500, 5000), 50)
    if r < 0.15:  # far from the metro, or the source did not say
        return None, None, None
    station = rng.choice(district.metro)
    if r < 0.72:
        return station, "walk", _round_to(100 + 1400 * rng.random() ** 1.4, 10)
    return station, "transport", _round_to(rng.uniform(1000, 5000), 50)


def _apartment(rng: random.Random, r: dict[str, Any], x: dict[str, Any], deal: str) -> None:
    city: CityInfo = x["city"]
    bt = _APT_BUILDING(rng)
    rooms = _APT_ROOMS(rng)
    studio = rooms == 1 and rng.random() < (0.35 if bt in ("monolith", "gas_block") else 0.04)
    if bt == "panel":
        floors = rng.choice(_PANEL_FLOORS)
        if floors == 5:
            year = rng.randint(1960, 1975)
        elif floors == 16:
            year = rng.randint(1975, 1995)
        else:
            year = rng.randint(1968, 1995)
    elif bt == "brick":
        if rng.random() < 0.45:
            floors = rng.randint(2, 5)
            low = 1890 if city.name == "Львів" else 1900
            year = rng.randint(low, 1990)
        else:
            floors = rng.randint(6, 10)
            year = rng.randint(1960, 2015)
    elif bt == "monolith":
        floors = rng.randint(10, 27) if rng.random() < 0.85 else rng.randint(6, 9)
        year = 2000 + int(25.999 * rng.random() ** 0.6)
    else:  # gas_block
        floors = rng.randint(3, 6)
        year = rng.randint(2008, 2025)
    new = bt in ("monolith", "gas_block") and year >= 2018
    khrushchovka = floors == 5 and bt in ("panel", "brick") and 1958 <= year <= 1975

    if studio:
        total = rng.uniform(20, 36)
    else:
        lo, hi = {1: (30, 48), 2: (44, 72), 3: (58, 100), 4: (78, 140), 5: (100, 200)}[rooms]
        total = rng.uniform(lo, hi)
        if bt == "monolith":
            total *= 1.12
        elif khrushchovka:
            total *= 0.85
    total = round(total) if rng.random() < 0.5 else round(total, 1)
    if studio:
        living = total * rng.uniform(0.55, 0.68)
        kitchen = rng.uniform(4, 7)
    else:
        living = total * rng.uniform(0.48, 0.62)
        if khrushchovka:
            kitchen = rng.uniform(5.5, 7.0)
        elif bt == "panel":
            kitchen = rng.uniform(7, 10)
        elif bt == "brick":
            kitchen = rng.uniform(6, 12)
        else:
            kitchen = rng.uniform(9, 14) + 1.5 * rooms
    kitchen = min(kitchen, total - living - 3)
    living, kitchen = round(living, 1), round(kitchen, 1)

    if deal == "sale":
        if new and year >= 2021:
            renovation = _RENOV_NEW(rng)
        elif year >= 2005:
            renovation = _RENOV_RECENT(rng)
        else:
            renovation = _RENOV_OLD(rng)
    else:
        renovation = _RENOV_RENT(rng)

    if studio:
        layout = "studio"
    elif rooms == 1:
        layout = "separate"
    else:
        layout = "separate" if rng.random() < (0.85 if bt == "monolith" else 0.62) else "adjacent"
    view = _VIEW(rng)
    if view == "water" and x["district"].name not in city.water_districts:
        view = "yard"
    r.update(
        rooms_count=rooms,
        total_area=total,
        living_area=living,
        kitchen_area=kitchen,
        floor=rng.randint(1, floors),
        floors_count=floors,
        building_type=bt,
        building_year=year,
        renovation_status=renovation,
        balcony_count=(_BALCONIES[bt](rng) if not studio else rng.randint(0, 1)),
        bathroom_type=_BATH_BY_ROOMS[min(rooms, 4)](rng),
        parking_type=(_PARKING_NEW if bt in ("monolith", "gas_block") else _PARKING_OLD)(rng),
        heating_type=_HEATING[bt](rng),
        layout_type=layout,
        window_view=view,
    )
    x["studio"] = studio


def _house(rng: random.Random, r: dict[str, Any], x: dict[str, Any], deal: str) -> None:
    city: CityInfo = x["city"]
    bt = _HOUSE_BUILDING(rng)
    rooms = _HOUSE_ROOMS(rng)
    floors = 1 if rng.random() < 0.42 else (2 if rng.random() < 0.92 else 3)
    year = {
        "brick": (1955, 2024),
        "gas_block": (2005, 2025),
        "wood": (1950, 2023),
        "monolith": (2005, 2025),
        "panel": (2010, 2025),
    }[bt]
    building_year = rng.randint(*year)
    total = round(20 + rooms * rng.uniform(20, 38) * (1.15 if floors > 1 else 1.0))
    living = round(total * rng.uniform(0.5, 0.68), 1)
    kitchen = round(min(rng.uniform(10, 25), total - living - 5), 1)
    if deal == "sale":
        renovation = _RENOV_NEW(rng) if building_year >= 2021 else _RENOV_OLD(rng)
    else:
        renovation = _RENOV_RENT(rng)
    view = _HOUSE_VIEW(rng)
    if view == "water" and x["district"].name not in city.water_districts:
        view = "forest"
    x["plot_sotky"] = rng.randint(4, 12) if city.name in ("Київ", "Львів") else rng.randint(5, 25)
    r.update(
        rooms_count=rooms,
        total_area=total,
        living_area=living,
        kitchen_area=kitchen,
        floor=None,
        floors_count=floors,
        building_type=bt,
        building_year=building_year,
        renovation_status=renovation,
        balcony_count=0 if floors == 1 else rng.choice((0, 1, 1, 2)),
        bathroom_type=_HOUSE_BATH(rng),
        parking_type=rng.choice(("garage", "garage", "ground", "ground", "ground", "none")),
        heating_type=_HOUSE_HEATING(rng),
        layout_type="separate" if rng.random() < 0.6 else None,
        window_view=view,
    )


def _room(rng: random.Random, r: dict[str, Any], x: dict[str, Any], deal: str) -> None:
    bt = "brick" if rng.random() < 0.55 else "panel"
    floors = rng.choice(_PANEL_FLOORS) if bt == "panel" else rng.randint(3, 9)
    hostel = rng.random() < 0.3
    x["room_where"] = "у гуртожитку" if hostel else f"у {rng.randint(2, 4)}-кімнатній квартирі"
    r.update(
        rooms_count=1,
        total_area=round(rng.uniform(9, 22), 1),
        living_area=None,
        kitchen_area=None,
        floor=rng.randint(1, floors),
        floors_count=floors,
        building_type=bt,
        building_year=rng.randint(1960, 1992) if bt == "panel" else rng.randint(1950, 1990),
        renovation_status=_RENOV_OLD(rng) if deal == "sale" else _RENOV_RENT(rng),
        balcony_count=rng.choice((0, 0, 1)),
        bathroom_type=rng.choice(("combined", "separate")),
        parking_type=rng.choice(("none", "none", "ground")),
        heating_type="central",
        layout_type=None,
        window_view=rng.choice(("yard", "street")),
    )


_BUSINESS_YEARS = _PHRASES["business_years"]


def _business(rng: random.Random, r: dict[str, Any], x: dict[str, Any], office: bool) -> None:
    bt = (
        rng.choice(("brick", "panel", "monolith", "monolith"))
        if not office
        else ("monolith" if rng.random() < 0.6 else "brick")
    )
    floors = rng.randint(2, 25) if bt == "monolith" else rng.randint(2, 10)
    rooms: int | None
    if office:
        floor = rng.randint(1, floors)
        total = round(rng.uniform(15, 60) * rng.choice((1, 1, 2, 3, 5)))
        rooms = max(1, min(12, round(total / rng.uniform(15, 30))))
    else:
        floor = 1 if rng.random() < 0.75 else rng.randint(1, min(floors, 3))
        total = round(rng.uniform(20, 120) * rng.choice((1, 1, 1, 2, 4)))
        rooms = rng.randint(1, 6) if rng.random() < 0.6 else None
    year = rng.randint(*_BUSINESS_YEARS[bt])
    x["purpose"], x["purpose_label"] = rng.choice(_PURPOSES)
    r.update(
        rooms_count=rooms,
        total_area=total,
        living_area=None,
        kitchen_area=None,
        floor=floor,
        floors_count=floors,
        building_type=bt,
        building_year=year,
        renovation_status=rng.choice(("cosmetic", "euro", "euro", "designer", "none"))
        if year < 2022
        else rng.choice(("construction", "euro", "cosmetic")),
        balcony_count=None,
        bathroom_type=rng.choice(("combined", "separate", None)),
        parking_type=rng.choice(("ground", "ground", "none", "underground"))
        if bt == "monolith"
        else rng.choice(("ground", "none")),
        heating_type=rng.choice(("central", "autonomous")),
        layout_type=None,
        window_view=rng.choice(("street", "street", "yard", "park")) if office else "street",
    )


def _garage(rng: random.Random, r: dict[str, Any], x: dict[str, Any]) -> None:
    underground = rng.random() < 0.35
    year = rng.randint(2010, 2025) if underground else rng.randint(1970, 2015)
    r.update(
        rooms_count=None,
        total_area=round(rng.uniform(13, 20), 1) if underground else round(rng.uniform(18, 40)),
        living_area=None,
        kitchen_area=None,
        floor=None,
        floors_count=None,
        building_type="monolith" if underground else "brick",
        building_year=year,
        renovation_status=None,
        balcony_count=None,
        bathroom_type=None,
        parking_type="underground" if underground else "garage",
        heating_type="none" if rng.random() < 0.85 else None,
        layout_type=None,
        window_view=None,
    )
    x["garage_kind"] = "underground" if underground else "garage"


def _land(rng: random.Random, r: dict[str, Any], x: dict[str, Any]) -> None:
    sotky = rng.choice((4, 5, 6, 6, 8, 10, 10, 10, 12, 12, 15, 15, 20, 25, 30, 40, 50))
    x["plot_sotky"] = sotky
    x["land_purpose"] = _LAND_PURPOSE(rng)
    r.update(
        rooms_count=None,
        total_area=sotky * 100,
        living_area=None,
        kitchen_area=None,
        floor=None,
        floors_count=None,
        building_type=None,
        building_year=None,
        renovation_status=None,
        balcony_count=None,
        bathroom_type=None,
        parking_type=None,
        heating_type=None,
        layout_type=None,
        window_view=rng.choice(("forest", "water", None, None, None, None, None))
        if x["district"].name in x["city"].water_districts
        else rng.choice(("forest", None, None, None, None)),
    )


_RENOV_PRICE = {
    "none": 0.85,
    "construction": 0.8,
    "cosmetic": 1.0,
    "euro": 1.12,
    "designer": 1.3,
    "needs_repair": 0.78,
    None: 1.0,
}
_BT_PRICE = _PHRASES["bt_price"]


def _price(
    rng: random.Random, r: dict[str, Any], x: dict[str, Any], deal: str, ptype: int
) -> tuple[int, str]:
    """The price as an int and its currency."""
    city: CityInfo = x["city"]
    factor = x["district"].price_factor
    total = r["total_area"]
    ren = _RENOV_PRICE.get(r["renovation_status"], 1.0)
    noise = rng.uniform(0.8, 1.25)
    if deal == "rent_short":
        base = city.daily_uah * factor**0.5 * ren * rng.uniform(0.75, 1.3)
        if ptype == _APARTMENT:
            base *= {1: 1.0, 2: 1.4, 3: 1.8, 4: 2.3, 5: 2.8}[r["rooms_count"]]
        elif ptype == _HOUSE:
            base *= 2.5 + 0.2 * r["rooms_count"]
        else:
            base *= 0.5
        return _round_to(base, 50 if base < 2000 else 100), "UAH"
    if deal == "rent_long":
        per_m2 = city.rent_uah_m2 * factor**0.7 * ren * noise
        mult = {
            _APARTMENT: 1.0,
            _HOUSE: 0.7,
            _ROOM: 1.25,
            _COMMERCIAL: 1.3,
            _OFFICE: 1.4,
            _GARAGE: 0.35,
        }[ptype]
        uah = per_m2 * total * mult
        if ptype == _ROOM:
            uah = max(uah, city.rent_uah_m2 * 10)
        dear = uah > 40000 or ptype in (_OFFICE, _COMMERCIAL)
        if rng.random() < (0.45 if dear else 0.1):
            return _round_to(uah / USD_UAH, 50), "USD"
        return _round_to(uah, 500 if uah >= 10000 else 100), "UAH"
    # sale
    if ptype == _LAND:
        usd = x["plot_sotky"] * city.land_usd_sotka * factor**0.5 * noise
        if x["land_purpose"] == "для ведення садівництва":
            usd *= 0.6
    elif ptype == _HOUSE:
        usd = total * city.sale_usd_m2 * 0.75 * factor**0.5 * ren * noise
        usd += x["plot_sotky"] * city.land_usd_sotka * 0.8
    elif ptype == _GARAGE:
        usd = total * city.sale_usd_m2 * 0.4 * noise
    else:
        mult = {_APARTMENT: 1.0, _ROOM: 0.95, _COMMERCIAL: 1.1, _OFFICE: 1.15}[ptype]
        usd = total * city.sale_usd_m2 * factor * _BT_PRICE.get(r["building_type"], 1.0) * ren
        usd *= mult * noise
    currency = "USD" if ptype == _LAND else _SALE_CURRENCY(rng)
    if currency == "EUR":
        return _round_to(usd * USD_EUR, 500), "EUR"
    if currency == "UAH":
        return _round_to(usd * USD_UAH, 10000), "UAH"
    return _sale_round(usd, rng), "USD"


def _price_text(price: int | None, currency: str | None, deal: str) -> str:
    if price is None or currency is None:
        return "ціна договірна"
    unit = {"USD": "$", "EUR": "€", "UAH": "грн"}.get(currency, currency)
    text = f"{_num(price)} {unit}"
    if deal == "rent_long":
        return f"{text} на місяць"
    if deal == "rent_short":
        return f"{text} за добу"
    return text


def _contact(rng: random.Random) -> str | None:
    r = rng.random()
    if r < 0.05:
        return None
    if r < 0.15:
        return rng.choice(_AGENCIES)
    female = rng.random() < 0.55
    first = rng.choice(_FEMALE if female else _MALE)
    if r < 0.6:
        return first
    if r < 0.85:
        return f"{first} {rng.choice(_SURNAMES)}"
    return f"{first} {rng.choice(_PATRONYMICS_F if female else _PATRONYMICS_M)}"


def _apply_nulls_and_oddities(rng: random.Random, r: dict[str, Any], x: dict[str, Any]) -> None:
    if rng.random() < 0.05:
        r["building_year"] = None
    if r["kitchen_area"] is not None and rng.random() < 0.03:
        r["kitchen_area"] = None
    if r["living_area"] is not None and rng.random() < 0.03:
        r["living_area"] = None
    for column, rate in (
        ("bathroom_type", 0.04),
        ("parking_type", 0.06),
        ("heating_type", 0.03),
        ("window_view", 0.08),
        ("layout_type", 0.04),
        ("renovation_status", 0.03),
        ("building_type", 0.02),
        ("balcony_count", 0.03),
    ):
        if r[column] is not None and rng.random() < rate:
            if column == "parking_type" and r["property_type_id"] == _GARAGE:
                continue  # a garage or a parking space is what the listing is
            r[column] = None
    if rng.random() < _ODD_RATE:
        ptype = r["property_type_id"]
        candidates = [
            (column, value)
            for column, value, types in _ODD_VALUES
            if ptype in types and r[column] is not None
        ]
        if candidates:
            column, value = rng.choice(candidates)
            r[column] = value


def _loc_phrase(rng: random.Random, x: dict[str, Any], allow_metro: bool) -> str:
    """Where the listing is, for a title or an opening sentence."""
    city: CityInfo = x["city"]
    district: District = x["district"]
    roll = rng.random()
    if allow_metro and x["metro_near"] and roll < 0.25:
        return f"біля метро {x['metro']}"
    if district.neighbourhoods and roll < 0.6:
        return x["hood_loc"]
    if roll < 0.8:
        if roll >= 0.7:
            return district.locative
        if district.locative.endswith("районі") or district.central:
            return f"{district.locative} {city.genitive}"  # "в Оболонському районі Києва"
        return f"{district.locative} {city.locative}"  # "на Вишеньці у Вінниці"
    if district.central and roll < 0.9:
        return f"в центрі {city.genitive}"
    return city.locative


def _district_label(district: District) -> str:
    if district.name.endswith("район"):  # Ужгород's "Новий район"
        return district.name
    if district.locative.endswith("районі"):
        return f"{district.name} район"
    return "центр" if district.name == "Центр" else f"мікрорайон {district.name}"


def _fmt(rng: random.Random, templates: Sequence[str], ctx: Mapping[str, Any]) -> str:
    return _cap(rng.choice(templates).format_map(ctx))


def _texts(
    rng: random.Random, r: dict[str, Any], x: dict[str, Any], deal: str, ptype: int
) -> tuple[str, str, str | None]:
    city: CityInfo = x["city"]
    district: District = x["district"]
    bt = r["building_type"]
    year = r["building_year"]
    renovation = r["renovation_status"]
    balconies = r["balcony_count"]
    view = r["window_view"]
    total = r["total_area"]
    rooms = r["rooms_count"]
    new = bt in ("monolith", "gas_block") and year is not None and year >= 2018
    bt_words = _BT.get(bt or "", ("", "", "", ""))
    adj = "Простора" if rooms and total >= 24 + 20 * rooms else "Світла"
    ctx: dict[str, Any] = {
        "area": _area_text(total),
        "living": _area_text(r["living_area"]) if r["living_area"] is not None else "",
        "kitchen": _area_text(r["kitchen_area"]) if r["kitchen_area"] is not None else "",
        "floor": r["floor"],
        "floors": r["floors_count"],
        "Floors": r["floors_count"],
        "floors_word": _plural(r["floors_count"] or 0, "поверх", "поверхи", "поверхів"),
        "year": year,
        "city": city.name,
        "city_loc": city.locative,
        "city_gen": city.genitive,
        "district": district.name,
        "district_label": _district_label(district),
        "metro": x["metro"],
        "metro_m": _num(r["metro_distance_meters"] or 0),
        "metro_min": max(1, round((r["metro_distance_meters"] or 0) / 80)),
        "metro_km": f"{(r['metro_distance_meters'] or 0) / 1000:.1f}".replace(".", ","),
        "bt": bt_words[0],
        "Bt": _cap(bt_words[0]),
        "material": bt_words[3],
        "complex": x["complex"],
        "water": city.water or "",
        "school": rng.randint(3, 320),
        "shop": rng.choice(_SHOPS),
        "center_min": rng.choice((10, 15, 15, 20, 25, 30)),
        "months": rng.choice((6, 11, 12)),
        "min_days": rng.choice((2, 3)),
        "ren_year": min(2025, max(year or 2015, 2015) + rng.randint(0, 6)),
        "ceiling": "",
        "loggia": rng.choice(("4", "5", "6", "6,5")),
        "Adj": rng.choice((adj, "Затишна", "Світла", "Сонячна", "Тепла", "Доглянута")),
        "guests": min(8, 2 * (rooms or 1) + rng.randint(0, 1)),
        "plot": _plural(x.get("plot_sotky") or 0, "сотка", "сотки", "соток"),
        "rooms_cnt": _plural(rooms or 0, "кімната", "кімнати", "кімнат"),
        "Rooms_cnt": _cap(_plural(rooms or 0, "кімната", "кімнати", "кімнат")),
        "rooms_n": rooms,
        "obj": "квартира",
        "Obj": "Квартира",
    }
    if balconies:
        word = "лоджія" if rng.random() < 0.35 else "балкон"
        x["balcony_word"] = word
        ctx["balcony_instr"] = (
            "двома балконами" if balconies > 1 else ("лоджією" if word == "лоджія" else "балконом")
        )
    if view in ("park", "water", "forest"):
        ctx["view_acc"] = {"park": "парк", "water": city.water, "forest": "ліс"}[view]
    title_loc = _loc_phrase(rng, x, allow_metro=True)
    ctx["loc"] = title_loc

    sentences: list[str]
    optional: list[tuple[int, Sequence[str]]] = []  # (order, templates)
    if ptype == _APARTMENT:
        title, sentences = _apartment_texts(rng, r, x, ctx, deal, new, optional)
    elif ptype == _HOUSE:
        ctx["obj"], ctx["Obj"] = "будинок", "Будинок"
        hf = _HOUSE_FLOORS.get(r["floors_count"] or 1, _HOUSE_FLOORS[1])
        ctx["hfloors"], ctx["Hfloors"] = hf[0], _cap(hf[0])
        titles = list(_HOUSE_TITLES[deal])
        if year and year >= 2018:
            titles += _HOUSE_TITLE_EXTRA["new"]
        if view == "forest":
            titles += _HOUSE_TITLE_EXTRA["forest"]
        if r["parking_type"] == "garage":
            titles += _HOUSE_TITLE_EXTRA["garage"] * 2
        title = _fmt(rng, titles, ctx)
        ctx["loc"] = _loc_phrase(rng, x, allow_metro=False)
        sentences = [_fmt(rng, (_HOUSE_INTRO if bt in _BT else _HOUSE_INTRO_NO_BT)[deal], ctx)]
        rooms_text = _HOUSE_ROOMS_TEXT if r["kitchen_area"] is not None else _HOUSE_ROOMS_NO_KITCHEN
        optional += [(1, _PLOT), (2, _UTILITIES), (3, rooms_text)]
        if bt in _BT:
            optional.append((4, _HOUSE_BUILT if year else _HOUSE_BUILT_NO_YEAR))
        if balconies:
            optional.append((6, _BALCONY_HOUSE))
        if r["heating_type"] == "none":
            optional.append((7, _HEATING_HOUSE_NONE))
        if r["parking_type"] in _PARKING_HOUSE:
            optional.append((8, _PARKING_HOUSE[r["parking_type"]]))
        optional.append((10, _INFRA_HOUSE))
    elif ptype == _ROOM:
        ctx["obj"], ctx["Obj"] = "кімната", "Кімната"
        ctx["room_where"] = x["room_where"]
        ctx["Deal_room"] = {"sale": "Продаж", "rent_long": "Оренда", "rent_short": "Оренда"}[deal]
        titles = list(_ROOM_TITLES)
        if x["metro_near"]:
            titles += _ROOM_TITLE_METRO
        title = _fmt(rng, titles, ctx)
        ctx["loc"] = _loc_phrase(rng, x, allow_metro=False)
        sentences = [_fmt(rng, _ROOM_INTRO[deal], ctx)]
        optional += [(1, _NEIGHBOURS), (10, _INFRA)]
    elif ptype in (_COMMERCIAL, _OFFICE):
        ctx["purpose"], ctx["purpose_label"] = x["purpose"], x["purpose_label"]
        ctx["bc_class"] = "A" if new else rng.choice(("B", "B+", "C"))
        ctx["offices"] = _plural(max(1, (rooms or 1) - 1), "кабінет", "кабінети", "кабінетів")
        ctx["kw"] = rng.choice((10, 15, 20, 30, 50, 100))
        if ptype == _OFFICE:
            titles = list(_OFFICE_TITLES[deal])
            if x["metro_near"]:
                titles += _OFFICE_TITLE_METRO
            title = _fmt(rng, titles, ctx)
            ctx["loc"] = _loc_phrase(rng, x, allow_metro=False)
            sentences = [_fmt(rng, _OFFICE_INTRO[deal], ctx)]
            optional.append((1, _OFFICE_FEATURES))
        else:
            titles = list(_BIZ_TITLES[deal])
            if r["floor"] == 1:
                titles += _BIZ_TITLE_FLOOR1
            title = _fmt(rng, titles, ctx)
            ctx["loc"] = _loc_phrase(rng, x, allow_metro=False)
            sentences = [_fmt(rng, _BIZ_INTRO[deal], ctx)]
            optional.append((1, _BIZ_FEATURES))
        if renovation in _RENOVATION_BIZ:
            optional.append((5, _RENOVATION_BIZ[renovation]))
        if r["parking_type"] in _PARKING_TEXT:
            optional.append((8, _PARKING_TEXT[r["parking_type"]]))
        optional.append((12, _BIZ_DEAL[deal]))
    elif ptype == _GARAGE:
        kind = x["garage_kind"]
        ctx["Deal_garage"] = "Продаж" if deal == "sale" else "Оренда"
        ctx["Deal_verb"] = "Продається" if deal == "sale" else "Здається"
        title = _fmt(rng, _GARAGE_TITLES[kind], ctx)
        ctx["loc"] = _loc_phrase(rng, x, allow_metro=False)
        sentences = [_fmt(rng, _GARAGE_INTRO[kind], ctx)]
        optional.append((1, _GARAGE_FEATURES[kind]))
    else:  # land
        ctx["land_purpose"] = x["land_purpose"]
        titles = list(_LAND_TITLES)
        if "забудов" in x["land_purpose"]:
            titles += _LAND_TITLE_BUILD * 2
        if view == "forest":
            titles += _LAND_TITLE_FOREST
        title = _fmt(rng, titles, ctx)
        ctx["loc"] = _loc_phrase(rng, x, allow_metro=False)
        sentences = [_fmt(rng, _LAND_INTRO, ctx)]
        optional.append((1, _LAND_FEATURES))
        if view in _LAND_VIEW:
            optional.append((9, _LAND_VIEW[view]))

    if ptype in (_APARTMENT, _HOUSE, _ROOM):
        if renovation in _RENOVATION:
            optional.append((5, _RENOVATION[renovation]))
        heating = r["heating_type"]
        if heating in _HEATING_TEXT and not (ptype == _HOUSE and heating == "none"):
            optional.append((7, _HEATING_TEXT[heating]))
        if view in _VIEW_TEXT and ptype != _LAND:
            optional.append((9, _VIEW_TEXT[view]))
        if deal in _DEAL_TEXT:
            optional.append((12, _DEAL_TEXT[deal]))
        if deal == "rent_long":
            optional.append((13, _PETS))
    if ptype == _OFFICE and view in _VIEW_TEXT:
        optional.append((9, _VIEW_TEXT[view]))
    if ptype != _LAND:
        metro_type = r["metro_distance_type"]
        if metro_type == "walk":
            optional.append((11, _METRO_WALK))
        elif metro_type == "transport":
            optional.append((11, _METRO_TRANSPORT))
        elif ptype not in (_GARAGE, _HOUSE):
            optional.append((11, _NO_METRO))
    optional.append((14, _CLOSING))

    wanted = rng.randint(2, 5)
    if len(optional) > wanted:
        picked = sorted(rng.sample(range(len(optional)), wanted))
        chosen = [optional[i] for i in picked]
    else:
        chosen = optional
    chosen.sort(key=lambda item: item[0])
    sentences += [_fmt(rng, templates, ctx) for _, templates in chosen]
    if r["price"] is None:
        sentences.append(rng.choice(_NO_PRICE))
    elif balconies == 0 and ptype == _APARTMENT and rng.random() < 0.25:
        sentences.insert(min(len(sentences), 2), _NO_BALCONY[0])
    description = " ".join(sentences)
    return title, description, _generated(rng, r, x, ctx, deal, ptype)


def _apartment_texts(
    rng: random.Random,
    r: dict[str, Any],
    x: dict[str, Any],
    ctx: dict[str, Any],
    deal: str,
    new: bool,
    optional: list[tuple[int, Sequence[str]]],
) -> tuple[str, list[str]]:
    bt = r["building_type"]
    year = r["building_year"]
    rooms = r["rooms_count"]
    renovation = r["renovation_status"]
    words = _ROOM_WORDS[rooms]
    word = words[0] if rng.random() < 0.5 else words[1]
    ctx["rooms"], ctx["Rooms"] = word, _cap(word)
    ctx["rooms_gen"] = word[:-1] + "ої"
    ctx["rooms_acc"] = word[:-1] + "у"
    studio = x["studio"]
    if studio:
        titles = list(_STUDIO_TITLES[deal])
        if new:
            titles.append("Студія {area} м² в новобудові {loc}")
        title = _fmt(rng, titles, ctx)
    else:
        titles = list(_APT_TITLES[deal])
        extra = _APT_TITLE_EXTRA
        if x["metro_near"]:
            titles += extra["metro"] * 2
        if renovation in ("cosmetic", "euro", "designer"):
            titles += extra["renovated"]
            if renovation in extra:
                titles += extra[renovation]
            if deal == "rent_long":
                titles += extra["furnished"]
        elif renovation in ("none", "construction") and deal == "sale":
            titles += extra[renovation]
        if new:
            titles += extra["new"] * 2
        if r["balcony_count"]:
            titles += extra["balcony"]
        if "view_acc" in ctx:
            titles += extra["view"]
        if bt == "brick" and year is not None and 1935 <= year <= 1956:
            titles += extra["stalinka"]
        elif bt == "brick":
            titles += extra["brick"]
        if bt in ("panel", "brick") and r["floors_count"] == 5 and year and year <= 1975:
            titles += extra["khrushchovka"]
        if x["district"].central:
            titles += extra["central"]
        title = _fmt(rng, titles, ctx)
    ctx["loc"] = _loc_phrase(rng, x, allow_metro=False)
    intro = (_STUDIO_INTRO if studio else _APT_INTRO)[deal]
    sentences = [_fmt(rng, intro, ctx)]

    layout = r["layout_type"]
    if layout == "separate" and rooms == 1:
        layout = "separate1"
    parts: list[Sequence[str]] = []
    if layout in _LAYOUT:
        parts.append(_LAYOUT[layout])
    if r["bathroom_type"] in _BATH:
        parts.append(_BATH[r["bathroom_type"]])
    if parts:
        # One slot of one or two short sentences: "Кімнати роздільні. Санвузол суміщений."
        optional.append((1, (" ".join(rng.choice(p) for p in parts),)))
    if r["living_area"] is not None and r["kitchen_area"] is not None:
        optional.append((2, _AREAS))
    elif r["kitchen_area"] is not None:
        optional.append((2, _KITCHEN))
    if bt in ("brick",) and year and year < 1960:
        ctx["ceiling"] = rng.choice(("3", "3,2", "3,4", "3,6"))
        optional.append((2, _CEILING))
    elif bt == "monolith":
        ctx["ceiling"] = rng.choice(("2,7", "2,8", "3"))
        optional.append((2, _CEILING))
    if bt in _BT:
        if new and year is not None:
            building: Sequence[str] = _BUILDING_NEW
        elif year is None:
            building = _BUILDING_NO_YEAR
        elif bt in ("panel", "brick") and r["floors_count"] == 5 and 1958 <= year <= 1975:
            building = _BUILDING_KHRUSHCHOVKA + _BUILDING_GENERIC
        elif bt == "brick" and 1935 <= year <= 1956:
            building = _BUILDING_STALINKA
        elif bt == "brick" and x["city"].name == "Львів" and year < 1918:
            building = _BUILDING_AUSTRIAN
        elif bt == "brick" and x["city"].name == "Львів" and year < 1940:
            building = _BUILDING_POLISH
        else:
            building = _BUILDING_GENERIC
        optional.append((3, building))
    balconies = r["balcony_count"]
    if balconies:
        if balconies > 1:
            optional.append((6, _BALCONY_TWO))
        else:
            optional.append((6, _BALCONY_ONE[x["balcony_word"]]))
    if r["parking_type"] in _PARKING_TEXT:
        optional.append((8, _PARKING_TEXT[r["parking_type"]]))
    optional.append((10, _INFRA))
    if deal == "sale" and new:
        optional.append((12, _EOSELIA))
    return title, sentences


def _generated(
    rng: random.Random,
    r: dict[str, Any],
    x: dict[str, Any],
    ctx: dict[str, Any],
    deal: str,
    ptype: int,
) -> str | None:
    if rng.random() < 0.12:
        return None
    district: District = x["district"]
    if ptype == _APARTMENT:
        kind = "Квартира-студія" if x["studio"] else f"{ctx['Rooms']} квартира"
    elif ptype == _GARAGE:
        kind = "Паркомісце" if x["garage_kind"] == "underground" else "Гараж"
    else:
        kind = {
            _HOUSE: "Будинок",
            _ROOM: "Кімната",
            _COMMERCIAL: "Комерційне приміщення",
            _LAND: "Земельна ділянка",
            _OFFICE: "Офіс",
        }[ptype]
    gctx = {
        "kind": kind,
        "kind_lower": kind[:1].lower() + kind[1:],
        "area": ctx["area"],
        "district_loc": district.locative,
        "district_label": ctx["district_label"],
        "city": x["city"].name,
        "deal_label": _DEAL_LABEL[deal],
        "price_text": _price_text(r["price_int"], r["currency"], deal),
    }
    text = rng.choice(_GEN_TEMPLATES).format_map(gctx)
    if ptype == _APARTMENT and r["floor"] and r["floors_count"] and rng.random() < 0.5:
        text += f" Поверх {r['floor']} з {r['floors_count']}."
    return text


# Authors paste anything into a listing, instructions aimed at AI assistants included: one
# listing in INSTRUCTION_LIKE_EVERY carries such a text (chosen by id, so no other column
# changes). The tools must return it intact and marked as untrusted data.
INSTRUCTION_LIKE_EVERY = 1000
INSTRUCTION_LIKE_TEXTS = _PHRASES["instruction_like_texts"]


def _draw(rng: random.Random, listing_id: int, now: datetime) -> tuple[dict[str, Any], Any]:
    """One listing's columns (and the context its texts were written from) from its stream."""
    city = _CITY(rng)
    district = _DISTRICT[city.name](rng)
    deal = _DEAL(rng)
    ptype = _TYPE_BY_DEAL[deal](rng)
    x: dict[str, Any] = {
        "city": city,
        "district": district,
        "complex": rng.choice(_COMPLEXES),
        "studio": False,
        "hood_loc": rng.choice(district.neighbourhoods)[1] if district.neighbourhoods else "",
    }
    r: dict[str, Any] = {"id": listing_id, "property_type_id": ptype, "deal_type": deal}
    if ptype == _APARTMENT:
        _apartment(rng, r, x, deal)
    elif ptype == _HOUSE:
        _house(rng, r, x, deal)
    elif ptype == _ROOM:
        _room(rng, r, x, deal)
    elif ptype in (_COMMERCIAL, _OFFICE):
        _business(rng, r, x, office=ptype == _OFFICE)
    elif ptype == _GARAGE:
        _garage(rng, r, x)
    else:
        _land(rng, r, x)

    if ptype == _LAND:
        station, mtype, meters = None, None, None
    else:
        station, mtype, meters = _pick_metro(rng, district, ptype in (_HOUSE, _GARAGE))
    r["metro_station"], r["metro_distance_type"], r["metro_distance_meters"] = (
        station,
        mtype,
        meters,
    )
    x["metro"] = station
    x["metro_near"] = mtype == "walk" and meters is not None and meters <= 1000

    _apply_nulls_and_oddities(rng, r, x)
    _dates(rng, r, deal, now)
    price, currency = _price(rng, r, x, deal, ptype)
    price = _trended(price, currency, city.name, r["publish_date"], now)
    if rng.random() < 0.03:
        r["price_int"], r["currency"] = None, None
    else:
        r["price_int"], r["currency"] = price, currency
    r["price"] = None if r["price_int"] is None else Decimal(f"{price}.00")

    title, description, generated = _texts(rng, r, x, deal, ptype)
    r["title"], r["description"], r["generated_description"] = title, description, generated

    street = rng.choice(district.streets or city.streets)
    house_no = str(rng.randint(1, 180))
    if rng.random() < 0.12:
        house_no += rng.choice(("А", "Б", "В", "/2", "/4"))
    r["address_raw"] = f"м. {city.name}, {street}, {house_no}"
    if ptype == _APARTMENT and rng.random() < 0.2:
        r["address_raw"] += f", кв. {rng.randint(1, 300)}"
    r["city"], r["district"] = city.name, district.name

    r["raw_data_id"] = 500_000 + listing_id * 3 + rng.randrange(3)
    r["url_source"] = f"https://example-realty.ua/listing/{listing_id}"
    r["images_count"] = 0 if rng.random() < 0.04 else rng.randint(1, 30)
    r["contact_phone"] = f"+380{rng.choice(_OPERATORS)}{rng.randrange(10_000_000):07d}"
    r["contact_name"] = _contact(rng)
    return r, x


def _dates(rng: random.Random, r: dict[str, Any], deal: str, now: datetime) -> None:
    status = _STATUS(rng)
    if status == "closed":
        status = "sold" if deal == "sale" else "rented"
    age = _TWO_YEARS_SEC * (rng.random() ** 2 if status == "active" else rng.random())
    publish = now - timedelta(seconds=int(age))
    _set_dates(rng, r, status, publish, now)


def _set_dates(
    rng: random.Random, r: dict[str, Any], status: str, publish: datetime, now: datetime
) -> None:
    created = min(now, publish + timedelta(seconds=rng.randint(60, 6 * 3600)))
    span = int((now - created).total_seconds())
    updated = created + timedelta(seconds=rng.randint(0, min(span, 60 * 86400)))
    archived = None
    if status in ("archived", "removed"):
        archived = created + timedelta(seconds=rng.randint(min(span, 86400), max(span, 86400)))
        archived = min(archived, now)
        updated = max(updated, archived)
    r["listing_status"] = status
    r["publish_date"], r["created_at"], r["updated_at"] = publish, created, updated
    r["archived_at"] = archived


def price_trend_factor(city: str, publish: datetime, now: datetime) -> float:
    """How much dearer (or cheaper) a listing published at `publish` is than one published a
    year before `now`, the middle of the two years of publish dates."""
    years = (publish - (now - timedelta(days=365))).total_seconds() / (365 * 86400)
    return float((1.0 + CITY_PRICE_TREND.get(city, 0.0)) ** years)


def _trended(price: int, currency: str, city: str, publish: datetime, now: datetime) -> int:
    """The price moved by the city's trend, rounded as coarsely as the price was."""
    step = next((s for s in (10000, 5000, 1000, 500, 100, 50) if price % s == 0), 1)
    while step > 50 and step * 20 > price:
        step = {10000: 1000, 5000: 500, 1000: 100, 500: 50, 100: 50}[step]
    return _round_to(price * price_trend_factor(city, publish, now), step)


def _finish(r: dict[str, Any]) -> dict[str, Any]:
    listing_id = r["id"]
    if listing_id % INSTRUCTION_LIKE_EVERY == 0:
        text = INSTRUCTION_LIKE_TEXTS[
            listing_id // INSTRUCTION_LIKE_EVERY % len(INSTRUCTION_LIKE_TEXTS)
        ]
        r["description"] = f"{r['description'] or ''}\n\n{text}".strip()
    for column in ("total_area", "living_area", "kitchen_area"):
        value = r[column]
        r[column] = None if value is None else _dec(value)
    return {column: r[column] for column in COLUMNS}


# --- planted duplicates ---------------------------------------------------------------------
# Portals carry the same flat several times: posted by the owner and by agencies, on other
# sites. A listing is such a copy when its own decision stream (seeded by seed and id, apart
# from its row stream) says so; it then re-posts an earlier listing, drawn again from that
# listing's stream, with its own wording, photos, price within a few per cent and source.
DUPLICATE_RATE = 0.07
DUPLICATE_MAX_GAP = 300
_DUPLICATE_TYPES = frozenset({_APARTMENT, _HOUSE})
_DUPLICATE_DEALS = frozenset({"sale", "rent_long"})
_PORTALS = _PHRASES["portals"]


def duplicate_of(seed: int, listing_id: int) -> int | None:
    """The id of the listing that `listing_id` re-posts, or None (pure: seed and id only).

    Copies of copies point at the first listing, so a property has two or three listings.
    """
    decision = random.Random(f"vmk-duplicate:{seed}:{listing_id}")  # noqa: S311
    if decision.random() >= DUPLICATE_RATE:
        return None
    original = listing_id - decision.randint(1, DUPLICATE_MAX_GAP)
    if original < 1:
        return None
    return duplicate_of(seed, original) or original


def _copy(
    rng: random.Random, seed: int, listing_id: int, original: int, now: datetime
) -> dict[str, Any] | None:
    base = random.Random()  # noqa: S311 - synthetic data, not security
    base.seed(_row_seed(seed, original))
    r, x = _draw(base, original, now)
    ptype, deal = r["property_type_id"], r["deal_type"]
    if ptype not in _DUPLICATE_TYPES or deal not in _DUPLICATE_DEALS or r["price"] is None:
        return None
    r["id"] = listing_id
    # The same flat measured by another agent: the area may differ by a rounding.
    if rng.random() < 0.4:
        r["total_area"] = max(10.0, round(r["total_area"] + rng.choice((-0.5, 0.5, 1.0)), 1))
    price = int(r["price"]) * rng.uniform(0.97, 1.03)
    step = 50 if r["currency"] == "USD" and r["deal_type"] == "rent_long" else 500
    if r["currency"] == "UAH":
        step = 10000 if price >= 200_000 else 100
    r["price_int"] = _round_to(price, step)
    r["price"] = Decimal(f"{r['price_int']}.00")
    title, description, generated = _texts(rng, r, x, deal, ptype)
    r["title"], r["description"], r["generated_description"] = title, description, generated
    publish = min(now, r["publish_date"] + timedelta(seconds=rng.randint(-20 * 86400, 40 * 86400)))
    status = r["listing_status"] if rng.random() < 0.3 else "active"
    _set_dates(rng, r, status, max(publish, now - timedelta(seconds=_TWO_YEARS_SEC)), now)
    r["raw_data_id"] = 500_000 + listing_id * 3 + rng.randrange(3)
    r["url_source"] = f"{rng.choice(_PORTALS)}{listing_id}"
    r["images_count"] = rng.randint(1, 30)
    if rng.random() < 0.6:  # an agency re-posts it under its own name and number
        r["contact_phone"] = f"+380{rng.choice(_OPERATORS)}{rng.randrange(10_000_000):07d}"
        r["contact_name"] = rng.choice(_AGENCIES)
    r["address_raw"] = r["address_raw"].split(", кв.")[0]
    del r["price_int"]
    return r


def _row(rng: random.Random, listing_id: int, now: datetime, seed: int = 0) -> dict[str, Any]:
    original = duplicate_of(seed, listing_id)
    if original is not None:
        copied = _copy(rng, seed, listing_id, original, now)
        if copied is not None:
            return _finish(copied)
        rng.seed(_row_seed(seed, listing_id))
    r, _ = _draw(rng, listing_id, now)
    del r["price_int"]
    return _finish(r)


def _row_seed(seed: int, listing_id: int) -> int:
    """A distinct non-negative stream seed for each (seed, id) pair."""
    return ((abs(seed) * 2 + (seed < 0)) << 64) | (listing_id & 0xFFFF_FFFF_FFFF_FFFF)


def generate_listings(
    count: int, *, seed: int = 42, start_id: int = 1, now: datetime | None = None
) -> Iterator[dict[str, Any]]:
    """Yield `count` listings with ids start_id, start_id + 1, ...; each row depends only on
    (seed, id, now), never on count or start_id."""
    if count < 0:
        raise ValueError("count must be 0 or more")
    if start_id < 0:
        raise ValueError("start_id must be 0 or more")
    moment = DEFAULT_NOW if now is None else now
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return _generate(count, seed, start_id, moment.replace(microsecond=0))


def _generate(count: int, seed: int, start_id: int, now: datetime) -> Iterator[dict[str, Any]]:
    rng = random.Random()  # noqa: S311 - synthetic data, not security
    for listing_id in range(start_id, start_id + count):
        rng.seed(_row_seed(seed, listing_id))
        yield _row(rng, listing_id, now, seed)


def embedding_text(row: Mapping[str, Any]) -> str:
    """The text semantic search matches a listing against: title, description and place
    (listings.embedders.listing_text, which "more like this" embeds for a listing without a
    stored vector)."""
    return listing_text(row)


def short_embedding_text(row: Mapping[str, Any]) -> str:
    """Title and place only: about 4x faster to embed, for benchmark databases whose speed and
    recall are measured, not their ranking quality (`generate_listings --embed-text short`)."""
    place = ", ".join(p for p in (row.get("district"), row.get("city")) if p)
    return "\n".join(p for p in (row.get("title"), place) if p)


# What a listing's vector is made from, by the name generate_listings --embed-text takes and
# vmk_meta keeps (embedding_text), so that a later fill embeds the same text.
EMBEDDING_TEXTS = {"full": embedding_text, "short": short_embedding_text}
