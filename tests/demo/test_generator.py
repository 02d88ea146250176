"""The synthetic listings generator: pure Python, no database and no Django needed."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from demo import generator, loading
from demo.generator import (
    CITIES,
    CITY_PRICE_TREND,
    COLUMNS,
    PROPERTY_TYPES,
    duplicate_of,
    embedding_text,
    generate_listings,
    price_trend_factor,
)

SAMPLE = 6000
NOW = datetime(2026, 11, 1, tzinfo=UTC)

# The documented enum values (listings/models.py, SPEC section 4), written out independently.
ENUMS = {
    "deal_type": {"sale", "rent_long", "rent_short"},
    "listing_status": {"active", "sold", "rented", "removed", "archived"},
    "currency": {"USD", "EUR", "UAH"},
    "metro_distance_type": {"walk", "transport"},
    "building_type": {"brick", "panel", "monolith", "gas_block", "wood"},
    "renovation_status": {"cosmetic", "euro", "designer", "none", "construction"},
    "bathroom_type": {"combined", "separate", "multiple"},
    "parking_type": {"ground", "underground", "none", "garage"},
    "heating_type": {"central", "autonomous", "floor", "none"},
    "layout_type": {"studio", "separate", "adjacent"},
    "window_view": {"yard", "street", "park", "water", "forest"},
}

# Kyiv's ten administrative districts and Kharkiv's nine, as they are really called.
KYIV_DISTRICTS = {
    "Голосіївський",
    "Дарницький",
    "Деснянський",
    "Дніпровський",
    "Оболонський",
    "Печерський",
    "Подільський",
    "Святошинський",
    "Солом'янський",
    "Шевченківський",
}
KHARKIV_DISTRICTS = {
    "Шевченківський",
    "Київський",
    "Салтівський",
    "Немишлянський",
    "Індустріальний",
    "Слобідський",
    "Основ'янський",
    "Холодногірський",
    "Новобаварський",
}
# Every station of the Kyiv metro (current names).
KYIV_STATIONS = {
    "Академмістечко", "Житомирська", "Святошин", "Нивки", "Берестейська", "Шулявська",
    "Політехнічний інститут", "Вокзальна", "Університет", "Театральна", "Хрещатик",
    "Арсенальна", "Дніпро", "Гідропарк", "Лівобережна", "Дарниця", "Чернігівська", "Лісова",
    "Героїв Дніпра", "Мінська", "Оболонь", "Почайна", "Тараса Шевченка", "Контрактова площа",
    "Поштова площа", "Майдан Незалежності", "Площа Українських Героїв", "Олімпійська",
    "Палац «Україна»", "Либідська", "Деміївська", "Голосіївська", "Васильківська",
    "Виставковий центр", "Іподром", "Теремки", "Сирець", "Дорогожичі", "Лук'янівська",
    "Золоті ворота", "Палац спорту", "Кловська", "Печерська", "Звіринецька", "Видубичі",
    "Славутич", "Осокорки", "Позняки", "Харківська", "Вирлиця", "Бориспільська",
    "Червоний хутір",
}  # fmt: skip
DNIPRO_STATIONS = {
    "Покровська",
    "Проспект Свободи",
    "Заводська",
    "Металургів",
    "Метробудівників",
    "Вокзальна",
}
METRO_CITIES = {"Київ", "Харків", "Дніпро"}


@pytest.fixture(scope="module")
def rows():
    return list(generate_listings(SAMPLE, seed=123))


def _by(rows, **conditions):
    return [r for r in rows if all(r[k] == v for k, v in conditions.items())]


# --- shape ------------------------------------------------------------------------------


def test_columns_are_the_table_columns_without_embedding_and_search_vector():
    schema = (Path(generator.__file__).parent / "sql" / "schema.sql").read_text()
    block = schema.split("CREATE TABLE IF NOT EXISTS property_listings", 1)[1]
    table_columns = re.findall(r"^\s{4}([a-z_]+)\s", block, flags=re.MULTILINE)
    assert "embedding" not in COLUMNS
    assert "search_vector" not in COLUMNS
    assert len(set(COLUMNS)) == len(COLUMNS)
    assert set(COLUMNS) == set(table_columns) - {"embedding", "search_vector"}
    assert COLUMNS[0] == "id"


def test_every_row_has_exactly_the_columns_in_order(rows):
    for row in rows[:500]:
        assert tuple(row) == COLUMNS


def test_property_types_are_complete_rows():
    ids = [t["id"] for t in PROPERTY_TYPES]
    assert ids == sorted(set(ids))
    assert len({t["slug"] for t in PROPERTY_TYPES}) == len(PROPERTY_TYPES)
    for t in PROPERTY_TYPES:
        assert set(t) == {"id", "slug", "name", "description"}
        assert re.search("[а-яіїєґ]", t["name"].lower())
        assert t["description"]
    slugs = {t["slug"]: t["id"] for t in PROPERTY_TYPES}
    assert slugs["apartment"] == 1
    assert {"house", "room", "commercial", "land", "garage", "office"} <= set(slugs)


def test_value_types_are_ready_for_copy(rows):
    # The kinds of value each column takes, from the model's fields (as loading copies them).
    kinds = {column: loading.copy_type(column) for column in COLUMNS}
    ints = {column for column, kind in kinds.items() if kind in {"int4", "int8"}}
    decimals = {column for column, kind in kinds.items() if kind == "numeric"}
    datetimes = {column for column, kind in kinds.items() if kind == "timestamptz"}
    assert {"id", "rooms_count", "property_type_id"} <= ints and "price" in decimals
    for row in rows[:1000]:
        for name, value in row.items():
            if value is None:
                continue
            if name in ints:
                assert type(value) is int, name
            elif name in decimals:
                assert isinstance(value, Decimal), name
                assert value.as_tuple().exponent == -2, (name, value)
            elif name in datetimes:
                assert isinstance(value, datetime) and value.utcoffset() == timedelta(0), name
            else:
                assert isinstance(value, str) and value, name


def test_copy_types_are_read_from_the_model():
    copy = {column: loading.copy_type(column) for column in generator.COLUMNS}
    assert copy["id"] == copy["raw_data_id"] == "int8"
    assert copy["property_type_id"] == copy["rooms_count"] == "int4"  # a key: its target's
    assert {c for c, kind in copy.items() if kind == "numeric"} == {
        "price",
        "total_area",
        "living_area",
        "kitchen_area",
    }
    assert {c for c, kind in copy.items() if kind == "timestamptz"} == {
        "publish_date",
        "archived_at",
        "created_at",
        "updated_at",
    }
    assert copy["description"] == "text" and copy["title"] == copy["city"] == "varchar"


def test_zero_count_and_bad_arguments():
    assert list(generate_listings(0)) == []
    with pytest.raises(ValueError):
        generate_listings(-1)  # checked at the call, before any row is made
    with pytest.raises(ValueError):
        generate_listings(1, start_id=-5)
    naive = datetime(2026, 11, 1)  # a naive `now` is taken as UTC
    assert list(generate_listings(5, now=naive)) == list(generate_listings(5))


# --- determinism ------------------------------------------------------------------------


def test_same_seed_same_rows():
    assert list(generate_listings(300, seed=5)) == list(generate_listings(300, seed=5))


def test_different_seed_different_rows():
    a = list(generate_listings(200, seed=5))
    b = list(generate_listings(200, seed=6))
    assert sum(x["title"] != y["title"] for x, y in zip(a, b, strict=True)) > 150
    assert [r["description"] for r in a] != [r["description"] for r in b]


def test_prefix_property():
    long = list(generate_listings(1000, seed=9))
    assert list(generate_listings(100, seed=9)) == long[:100]


def test_a_row_depends_on_its_id_not_on_where_the_batch_starts():
    whole = list(generate_listings(80, seed=3))
    tail = list(generate_listings(30, seed=3, start_id=51))
    assert [r["id"] for r in tail] == list(range(51, 81))
    assert tail == whole[50:]


def test_default_now_is_fixed_not_the_clock():
    assert list(generate_listings(50)) == list(generate_listings(50, now=NOW))
    first = next(iter(generate_listings(1)))
    later = next(iter(generate_listings(1, now=NOW + timedelta(days=10))))
    assert later["publish_date"] == first["publish_date"] + timedelta(days=10)
    assert later["title"] == first["title"]


# --- realism: places --------------------------------------------------------------------


def test_cities_are_weighted_like_the_market(rows):
    counts = Counter(r["city"] for r in rows)
    assert set(counts) <= set(CITIES)
    assert counts.most_common(1)[0][0] == "Київ"
    assert 0.25 < counts["Київ"] / len(rows) < 0.4
    for big in ("Харків", "Одеса", "Дніпро", "Львів"):
        assert counts[big] > counts["Полтава"]
        assert counts[big] < counts["Київ"]
    assert {"Львів", "Одеса", "Запоріжжя", "Вінниця", "Івано-Франківськ"} <= set(counts)


def test_districts_are_real_districts_of_their_city(rows):
    assert set(CITIES["Київ"].district_names) == KYIV_DISTRICTS
    assert set(CITIES["Харків"].district_names) == KHARKIV_DISTRICTS
    for row in rows:
        assert row["district"] in CITIES[row["city"]].district_names
    kyiv = _by(rows, city="Київ")
    assert {r["district"] for r in kyiv} == KYIV_DISTRICTS


def test_metro_only_in_metro_cities_and_consistent_with_the_district(rows):
    assert {name for name, c in CITIES.items() if c.has_metro} == METRO_CITIES
    assert set(CITIES["Київ"].metro_stations) <= KYIV_STATIONS
    assert len(CITIES["Київ"].metro_stations) >= 40
    assert set(CITIES["Дніпро"].metro_stations) == DNIPRO_STATIONS
    for row in rows:
        station = row["metro_station"]
        if station is None:
            assert row["metro_distance_type"] is None
            assert row["metro_distance_meters"] is None
            continue
        assert row["city"] in METRO_CITIES
        district = CITIES[row["city"]].district(row["district"])
        assert station in district.metro
        meters = row["metro_distance_meters"]
        if row["metro_distance_type"] == "walk":
            assert 100 <= meters <= 1500
        else:
            assert row["metro_distance_type"] == "transport"
            assert 1000 <= meters <= 5000


def test_some_listings_in_metro_cities_have_no_metro(rows):
    in_metro_cities = [r for r in rows if r["city"] in METRO_CITIES]
    without = [r for r in in_metro_cities if r["metro_station"] is None]
    assert 0.05 < len(without) / len(in_metro_cities) < 0.6
    # ...also flats in districts that do have stations (far away, or the source did not say)
    flats = [
        r
        for r in in_metro_cities
        if r["property_type_id"] == 1 and CITIES[r["city"]].district(r["district"]).metro
    ]
    assert any(r["metro_station"] is None for r in flats)


def test_addresses_urls_and_contacts(rows):
    phone = re.compile(r"^\+380\d{9}$")
    raw_ids = set()
    for row in rows:
        assert row["address_raw"].startswith(f"м. {row['city']}, ")
        assert re.search(r", \d+", row["address_raw"])
        if row["url_source"].startswith("https://example-realty.ua/"):
            assert row["url_source"] == f"https://example-realty.ua/listing/{row['id']}"
        else:  # a planted re-post of another listing, from another site
            assert duplicate_of(123, row["id"]) is not None
            assert row["url_source"].endswith(f"/{row['id']}")
        assert phone.match(row["contact_phone"])
        assert 0 <= row["images_count"] <= 30
        raw_ids.add(row["raw_data_id"])
    assert len(raw_ids) == len(rows)
    names = [r["contact_name"] for r in rows]
    assert any(n is None for n in names)
    assert any(n and re.fullmatch("[А-ЯІЇЄҐ][а-яіїєґ']+", n) for n in names)


# --- realism: the property --------------------------------------------------------------


def test_property_type_deal_and_status_shares(rows):
    n = len(rows)
    types = Counter(r["property_type_id"] for r in rows)
    assert 0.7 < types[1] / n < 0.8
    assert set(types) == {t["id"] for t in PROPERTY_TYPES}
    assert types[2] == max(v for k, v in types.items() if k != 1)  # houses come second
    deals = Counter(r["deal_type"] for r in rows)
    assert 0.5 < deals["sale"] / n < 0.6
    assert 0.3 < deals["rent_long"] / n < 0.4
    assert 0.07 < deals["rent_short"] / n < 0.13
    statuses = Counter(r["listing_status"] for r in rows)
    assert 0.75 < statuses["active"] / n < 0.85
    assert all(r["deal_type"] == "sale" for r in rows if r["listing_status"] == "sold")
    assert all(r["deal_type"] != "sale" for r in rows if r["listing_status"] == "rented")


def test_floors_and_areas_are_consistent(rows):
    for row in rows:
        floor, floors = row["floor"], row["floors_count"]
        if floor is not None:
            assert floors is not None and 1 <= floor <= floors
        total, living, kitchen = row["total_area"], row["living_area"], row["kitchen_area"]
        assert total is not None and total > 0
        if living is not None:
            assert 0 < living < total
        if kitchen is not None:
            assert 0 < kitchen < total
        if living is not None and kitchen is not None:
            assert living + kitchen < total


def test_apartments_rooms_layout_and_building(rows):
    flats = _by(rows, property_type_id=1)
    assert {r["rooms_count"] for r in flats} == {1, 2, 3, 4, 5}
    studios = [r for r in flats if r["layout_type"] == "studio"]
    assert studios
    assert all(r["rooms_count"] == 1 for r in studios)
    means = {
        k: statistics.mean(float(r["total_area"]) for r in flats if r["rooms_count"] == k)
        for k in range(1, 6)
    }
    assert means[1] < means[2] < means[3] < means[4] < means[5]
    years = {"panel": (1960, 1995), "monolith": (2000, 2025), "gas_block": (2005, 2025)}
    floors = {"panel": {5, 9, 10, 12, 16}, "brick": set(range(2, 11)), "gas_block": {3, 4, 5, 6}}
    for row in flats:
        bt, year = row["building_type"], row["building_year"]
        if bt in years and year is not None:
            lo, hi = years[bt]
            assert lo <= year <= hi, (bt, year)
        if bt in floors:
            assert row["floors_count"] in floors[bt], (bt, row["floors_count"])
        if bt == "monolith":
            assert 6 <= row["floors_count"] <= 27
        if row["renovation_status"] == "construction":
            assert bt in ("monolith", "gas_block", "cinder_block", None)


def test_currencies_follow_the_market(rows):
    for row in rows:
        if row["price"] is None:
            assert row["currency"] is None
            continue
        assert row["price"] > 0
        if row["deal_type"] == "sale":
            assert row["currency"] in {"USD", "EUR", "UAH"}
        elif row["deal_type"] == "rent_long":
            assert row["currency"] in {"UAH", "USD"}
        else:
            assert row["currency"] == "UAH"
    sales = Counter(r["currency"] for r in rows if r["deal_type"] == "sale" and r["price"])
    assert sales["USD"] > 0.75 * sum(sales.values())
    assert sales["EUR"] > 0 and sales["UAH"] > 0
    rents = Counter(r["currency"] for r in rows if r["deal_type"] == "rent_long" and r["price"])
    assert rents["UAH"] > 0.7 * sum(rents.values()) and rents["USD"] > 0


def test_prices_are_plausible_for_kyiv_two_room_flats():
    rows = list(generate_listings(20000, seed=11))
    kyiv2 = [r for r in rows if r["city"] == "Київ" and r["property_type_id"] == 1]
    kyiv2 = [r for r in kyiv2 if r["rooms_count"] == 2 and r["price"] is not None]

    def median(deal, currency):
        prices = [r["price"] for r in kyiv2 if r["deal_type"] == deal and r["currency"] == currency]
        return statistics.median(prices)

    assert 50_000 <= median("sale", "USD") <= 150_000
    assert 12_000 <= median("rent_long", "UAH") <= 35_000
    assert 800 <= median("rent_short", "UAH") <= 3_500
    kharkiv = [
        r["price"]
        for r in rows
        if r["city"] == "Харків" and r["property_type_id"] == 1 and r["rooms_count"] == 2
        if r["deal_type"] == "sale" and r["currency"] == "USD"
    ]
    assert statistics.median(kharkiv) < median("sale", "USD")
    # prices are round, as people write them
    usd = [r["price"] for r in rows if r["currency"] == "USD" and r["deal_type"] == "sale"]
    assert all(p % 50 == 0 for p in usd)


def test_dates_are_aware_within_two_years_and_ordered(rows):
    for row in rows:
        publish, created, updated = row["publish_date"], row["created_at"], row["updated_at"]
        assert NOW - timedelta(days=731) <= publish <= NOW
        assert publish <= created <= NOW
        assert created <= updated <= NOW
        archived = row["archived_at"]
        if row["listing_status"] in ("archived", "removed"):
            assert archived is not None and created <= archived <= NOW
        else:
            assert archived is None


# --- enums and NULLs --------------------------------------------------------------------


def test_every_documented_enum_value_appears(rows):
    for column, values in ENUMS.items():
        seen = {r[column] for r in rows}
        assert values <= seen, (column, values - seen)


def test_some_values_outside_the_documented_enums(rows):
    odd = [(c, r[c]) for r in rows for c in ENUMS if r[c] is not None and r[c] not in ENUMS[c]]
    assert 5 <= len(odd) <= 0.02 * len(rows)
    # never in the columns search logic relies on
    assert {c for c, _ in odd}.isdisjoint({"deal_type", "listing_status", "currency"})
    assert len({c for c, _ in odd}) >= 3


def test_some_nulls(rows):
    n = len(rows)

    def share(column, pool=rows):
        return sum(r[column] is None for r in pool) / len(pool)

    assert 0.01 < share("price") < 0.06
    metro_flats = [
        r
        for r in rows
        if r["city"] in METRO_CITIES
        and r["property_type_id"] == 1
        and CITIES[r["city"]].district(r["district"]).metro
    ]
    assert 0.03 < share("metro_station", metro_flats) < 0.3
    flats = _by(rows, property_type_id=1)
    assert 0.02 < share("building_year", flats) < 0.1
    assert 0.01 < share("kitchen_area", flats) < 0.08
    assert 0.05 < share("generated_description") < 0.25
    assert all(r[c] is not None for r in rows for c in ("title", "description", "city")), n


# --- texts ------------------------------------------------------------------------------


def test_balcony_is_mentioned_only_when_there_is_one(rows):
    mentioned = 0
    for row in rows:
        text = (row["title"] + " " + row["description"]).lower().replace("без балкона", "")
        says = "балкон" in text or "лоджі" in text
        if says:
            assert row["balcony_count"], (row["balcony_count"], text)
            mentioned += 1
    with_balcony = [r for r in rows if r["balcony_count"]]
    assert mentioned > 0.25 * len(with_balcony)
    assert any("без балкона" in r["description"].lower() for r in rows if r["balcony_count"] == 0)


def test_descriptions_agree_with_the_structured_fields(rows):
    for row in rows:
        text = row["title"] + " " + row["description"]
        low = text.lower()
        if "новобудов" in low or ("жк «" in low and row["property_type_id"] == 1):
            assert row["building_year"] is not None and row["building_year"] >= 2018, text
            assert row["building_type"] in ("monolith", "gas_block"), text
        if "вид на парк" in low or "вікна виходять на парк" in low:
            assert row["window_view"] == "park", text
        if "видно ліс" in low or "вікна виходять на ліс" in low or "видом на ліс" in low:
            assert row["window_view"] == "forest", text
        water = CITIES[row["city"]].water
        if water and ("вид на " + water.lower()) in low:
            assert row["window_view"] == "water", text
        if row["window_view"] == "water":
            assert row["district"] in CITIES[row["city"]].water_districts
        if "тепла підлога" in low:
            assert row["heating_type"] == "floor", text
        if "централізоване опалення" in low or "опалення централізоване" in low:
            assert row["heating_type"] == "central", text
        if "автономне опалення" in low:
            assert row["heating_type"] == "autonomous", text
        if "підземн" in low and "паркінг" in low:
            assert row["parking_type"] == "underground", text
        if "євроремонт" in low:
            assert row["renovation_status"] == "euro", text
        if "дизайнерськ" in low:
            assert row["renovation_status"] == "designer", text
        if "будівельн" in low and "стан" in low:
            assert row["renovation_status"] == "construction", text
        if re.search(r"\bметро\b", low):
            assert row["metro_station"] and row["metro_station"] in text, text
        if row["price"] is None:
            assert "Ціна договірна" in text or "Ціну уточнюйте" in text
        if row["property_type_id"] == 5:
            assert "ділянк" in row["title"].lower()
        if row["property_type_id"] == 1 and "студі" not in low:
            assert "квартир" in row["title"].lower()


def test_descriptions_have_three_to_six_or_so_sentences(rows):
    counts = Counter()
    for row in rows:
        # initials ("Імені О. С. Масельського") do not end a sentence
        sentences = re.split(r"(?<![\s.][А-ЯІЇЄҐ]\.)(?<=[.!?])\s+", row["description"])
        assert 3 <= len(sentences) <= 9, row["description"]
        counts[len(sentences)] += 1
        assert row["description"][0].isupper() or row["description"][0].isdigit()
        assert "{" not in row["description"] and "{" not in row["title"]
        assert "None" not in row["description"] and "None" not in row["title"]
        assert "  " not in row["description"]
    assert len(counts) >= 4


def test_generated_description_is_a_short_neutral_summary(rows):
    for row in rows:
        text = row["generated_description"]
        if text is None:
            continue
        assert row["city"] in text
        assert text.count(".") <= 4  # one or two sentences (numbers use commas)
        assert len(text) < 250


def test_texts_are_varied(rows):
    first = rows[:5000]
    titles = {r["title"] for r in first}
    descriptions = {r["description"] for r in first}
    assert len(titles) >= 0.8 * len(first)
    assert len(descriptions) >= 4500
    openings = {r["description"].split(" ", 2)[0] for r in first}
    assert len(openings) >= 15


def test_ukrainian_inflected_forms_are_present(rows):
    corpus = " ".join(r["title"] + " " + r["description"] for r in rows).lower()
    for word in (
        "квартира",
        "квартири",
        "квартиру",
        "балкон",
        "балконом",
        "лоджія",
        "метро",
        "новобудова",
        "новобудові",
        "двокімнатна",
        "ділянка",
        "ділянкою",
        "школа",
        "дитячий садок",
        "парк",
        "трц",
        "тварин",
        "єоселя",
    ):
        assert word in corpus, word


def test_embedding_text_is_title_description_and_place(rows):
    row = rows[0]
    text = embedding_text(row)
    assert text.startswith(row["title"])
    assert row["description"] in text
    assert row["city"] in text and row["district"] in text
    assert embedding_text({"title": "Лише заголовок"}) == "Лише заголовок"
    assert embedding_text({"title": None, "description": None, "city": None}) == ""


def test_short_embedding_text_leaves_out_the_description(rows):
    row = rows[0]
    text = generator.short_embedding_text(row)
    assert text == f"{row['title']}\n{row['district']}, {row['city']}"
    assert row["description"] not in text
    assert generator.short_embedding_text({"title": None, "city": None}) == ""


def test_one_listing_in_a_thousand_carries_instruction_like_text():
    from demo.generator import INSTRUCTION_LIKE_EVERY, INSTRUCTION_LIKE_TEXTS

    planted = list(generate_listings(3, seed=5, start_id=INSTRUCTION_LIKE_EVERY - 1))
    assert not any(text in (planted[0]["description"] or "") for text in INSTRUCTION_LIKE_TEXTS)
    assert planted[1]["description"].endswith(INSTRUCTION_LIKE_TEXTS[1])
    assert not any(text in (planted[2]["description"] or "") for text in INSTRUCTION_LIKE_TEXTS)


# --- market: planted duplicates and price trends -------------------------------------------


def test_planted_duplicates_are_the_same_property_in_other_words(rows):
    by_id = {row["id"]: row for row in rows}
    copies = [r for r in rows if not r["url_source"].startswith("https://example-realty.ua/")]
    assert 0.03 < len(copies) / len(rows) < 0.08
    for copy in copies:
        original = by_id.get(duplicate_of(123, copy["id"]))
        if original is None:
            continue  # the original is before this sample's first id
        for column in ("city", "district", "deal_type", "property_type_id", "rooms_count"):
            assert copy[column] == original[column], column
        assert (copy["floor"], copy["floors_count"]) == (
            original["floor"],
            original["floors_count"],
        )
        assert abs(copy["total_area"] - original["total_area"]) <= 1
        assert copy["currency"] == original["currency"]
        # within 3 %, plus the rounding of a small rent (1 200 -> 1 250 USD)
        assert abs(float(copy["price"]) / float(original["price"]) - 1) <= 0.06
        assert (copy["title"], copy["description"]) != (original["title"], original["description"])
        assert copy["url_source"] != original["url_source"]


def test_a_copy_is_drawn_from_its_own_and_its_originals_streams_only():
    copy_id = next(i for i in range(2, 5000) if duplicate_of(5, i) is not None)
    alone = next(generate_listings(1, seed=5, start_id=copy_id))
    in_batch = list(generate_listings(copy_id, seed=5, start_id=1))[-1]
    assert alone == in_batch


def test_prices_follow_each_citys_trend():
    rows = list(generate_listings(20000, seed=11))
    half = NOW - timedelta(days=365)
    for city, yearly in CITY_PRICE_TREND.items():
        per_m2 = {True: [], False: []}
        for r in rows:
            flat = r["deal_type"] == "sale" and r["property_type_id"] == 1
            if r["city"] == city and flat and r["currency"] == "USD" and r["price"] is not None:
                per_m2[r["publish_date"] >= half].append(r["price"] / r["total_area"])
        ratio = statistics.median(per_m2[True]) / statistics.median(per_m2[False])
        if abs(yearly) >= 0.1:
            assert (ratio > 1) == (yearly > 0), (city, ratio)
    assert price_trend_factor("Київ", NOW, NOW) == pytest.approx(1.12)
    assert price_trend_factor("Київ", half, NOW) == pytest.approx(1.0)
