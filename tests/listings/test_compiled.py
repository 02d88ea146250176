"""listings.compiled: SQL the ORM wrote once, sent again with each call's parameter."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db.models import F, Q

from listings import search
from listings.compiled import (
    ID,
    TEXT,
    UNCOMPILABLE,
    CompiledQuery,
    Row,
    Settings,
    Shape,
    Statements,
    execute_fetch,
    read_rows,
    values_shape,
)
from listings.models import PropertyListing
from listings.results import ListingDetail
from listings.runtime import LISTINGS
from listings.search import cards

pytestmark = pytest.mark.usefixtures("listings_access")


def _orm_fields(listing_id: int) -> dict:
    listing = (
        PropertyListing.objects.select_related("property_type")
        .with_has_embedding()
        .get(id=listing_id)
    )
    data = {
        name: getattr(listing, name)
        for name in ListingDetail.model_fields
        if hasattr(listing, name)
    }
    data["property_type"] = listing.property_type.name if listing.property_type else None
    data["has_embedding"] = bool(listing.has_usable_embedding)
    return data


def test_a_listing_from_the_compiled_statement_is_the_one_the_orm_loads():
    # listings with and without a property type, an embedding, nulls in many columns
    ids = set(PropertyListing.objects.order_by("id").values_list("id", flat=True)[:40])
    ids |= set(
        PropertyListing.objects.filter(
            Q(property_type__isnull=True) | Q(embedding__isnull=True) | Q(price__isnull=True)
        ).values_list("id", flat=True)[:20]
    )
    assert cards._BY_ID.statement(LISTINGS) is not UNCOMPILABLE
    for listing_id in sorted(ids):
        assert cards._detail_fields(listing_id) == _orm_fields(listing_id), listing_id
    assert cards._detail_fields(-1) is None


def test_the_compiled_statement_is_written_once_and_carries_each_calls_id():
    first, second = PropertyListing.objects.order_by("id").values_list("id", flat=True)[:2]
    statement = cards._BY_ID.statement(LISTINGS)
    assert cards._BY_ID.statement(LISTINGS) is statement
    assert search.get_listing(listing_id=first).id == first
    assert search.get_listing(listing_id=second).id == second


def test_a_placeholder_used_twice_takes_the_calls_value_in_both_places():
    ids = list(PropertyListing.objects.order_by("id").values_list("id", flat=True)[:5])
    twice = CompiledQuery(
        lambda value: (
            PropertyListing.objects.filter(Q(id=value) | Q(id__gt=value))
            .annotate(next_id=F("id") + 1)
            .order_by("id")[:3]
        )
    )
    assert twice.statement(LISTINGS) is not UNCOMPILABLE
    rows = twice.rows(ids[2], LISTINGS)
    assert [row["id"] for row in rows] == ids[2:5]
    assert [row["next_id"] for row in rows] == [listing_id + 1 for listing_id in ids[2:5]]


def test_a_stand_in_a_lookup_rewrites_is_left_to_the_orm():
    # icontains sends '%<text>%': the stand-in is inside a parameter, not one itself
    statements = Statements()

    def build(text):
        return PropertyListing.objects.filter(title__icontains=text).order_by("id")[:5]

    word = PropertyListing.objects.exclude(title=None).order_by("id").first().title.split()[0]
    shape = Shape("k", build)
    assert statements.statement(shape, [TEXT], LISTINGS) is UNCOMPILABLE
    assert statements.rows(shape, [(TEXT, word)], LISTINGS) is None
    found = statements.objects(shape, [(TEXT, word)], LISTINGS)
    assert [row.id for row in found] == [listing.id for listing in build(word)]
    assert found and all(isinstance(row, PropertyListing) for row in found)


def test_rows_of_a_compiled_page_read_as_the_orms_instances():
    statements = Statements()

    def build(listing_id):
        return PropertyListing.objects.filter(id__gte=listing_id).order_by("id").cards()[:40]

    first = PropertyListing.objects.order_by("id").values_list("id", flat=True)[0]
    rows = statements.objects(Shape("cards", build), [(ID, first)], LISTINGS)
    assert statements.statement(Shape("cards", build), [ID], LISTINGS) is not UNCOMPILABLE
    orm = list(build(first))
    assert [type(row) for row in rows] == [Row] * len(orm)
    assert any(row.property_type is not None for row in orm)
    for row, listing in zip(rows, orm, strict=True):
        assert (row.id, row.title, row.price, row.publish_date, row.currency) == (
            listing.id,
            listing.title,
            listing.price,
            listing.publish_date,
            listing.currency,
        )
        assert (row.property_type and row.property_type.name) == (
            listing.property_type and listing.property_type.name
        )
        assert search._card(row) == search._card(listing)


def test_get_listing_reads_through_the_orm_when_its_statement_is_not_compiled(monkeypatch):
    # icontains sends '%<id>%': the stand-in is not a parameter of its own
    uncompilable = CompiledQuery(
        lambda value: PropertyListing.objects.filter(title__icontains=value)
    )
    assert uncompilable.statement(LISTINGS) is UNCOMPILABLE
    monkeypatch.setattr(cards, "_BY_ID", uncompilable)
    listing_id = PropertyListing.objects.order_by("id").values_list("id", flat=True)[0]
    assert cards._detail_fields(listing_id) == _orm_fields(listing_id)
    assert search.get_listing(listing_id=listing_id).id == listing_id


def test_a_row_whose_join_found_nothing_has_none_for_the_relation():
    # as select_related gives it: the related model's primary key NULL means no row
    row, typed = read_rows(
        [
            {"id": 7, "property_type__id": None, "property_type__name": None},
            {"id": 8, "property_type__id": 2, "property_type__name": None},
        ],
        {"property_type": "id"},
    )
    assert (row.id, row.property_type) == (7, None)
    assert (typed.id, typed.property_type.id, typed.property_type.name) == (8, 2, None)
    assert getattr(row, "headline", "absent") == "absent"


def test_a_value_made_from_a_stand_in_is_left_to_the_orm():
    # id + 1 is neither stand-in: compiled, it would send one fixed id for every call
    statements = Statements()
    shape = Shape("arithmetic", lambda value: PropertyListing.objects.filter(id=value + 1))
    assert statements.statement(shape, [ID], LISTINGS) is UNCOMPILABLE
    first = PropertyListing.objects.order_by("id").values_list("id", flat=True)[0]
    assert [row.id for row in statements.objects(shape, [(ID, first - 1)], LISTINGS)] == [first]


def _by_values(values: dict) -> object:
    rows = PropertyListing.objects.filter(city=values["city"], rooms_count=values["rooms"])
    if values.get("min_area") is not None:
        rows = rows.filter(total_area__gte=values["min_area"])
    return rows.order_by("id").values("id", "city", "rooms_count", "total_area")[:5]


def test_named_values_are_placeholders_of_their_type_and_none_is_part_of_the_shape():
    statements = Statements()
    kyiv = {"city": "Київ", "rooms": 2, "min_area": Decimal("40.00")}
    shape, slots = values_shape("by values", _by_values, kyiv)
    assert statements.statement(shape, [p for p, _ in slots], LISTINGS) is not UNCOMPILABLE
    assert statements.rows(shape, slots, LISTINGS) == list(_by_values(kyiv))
    lviv = {"city": "Львів", "rooms": 3, "min_area": Decimal("55.50")}
    other, other_slots = values_shape("by values", _by_values, lviv)
    assert other.key == shape.key  # one statement for both
    assert statements.rows(other, other_slots, LISTINGS) == list(_by_values(lviv))
    assert statements.rows(other, other_slots, LISTINGS)  # something to compare
    # rooms None is `IS NULL`, another statement; min_area None leaves its condition out
    unknown = {"city": "Київ", "rooms": None, "min_area": None}
    null_shape, null_slots = values_shape("by values", _by_values, unknown)
    assert null_shape.key != shape.key and len(null_slots) == 1
    assert statements.rows(null_shape, null_slots, LISTINGS) == list(_by_values(unknown))


def test_a_value_the_statement_does_not_use_leaves_it_to_the_orm():
    statements = Statements()
    values = {"city": "Київ", "rooms": 2, "unused": 7.5}
    shape, slots = values_shape("unused", _by_values, values)
    assert statements.statement(shape, [p for p, _ in slots], LISTINGS) is UNCOMPILABLE
    assert [row.id for row in statements.objects(shape, slots, LISTINGS)] == [
        row["id"] for row in _by_values(values)
    ]


def test_a_value_of_no_placeholder_type_is_refused():
    with pytest.raises(TypeError):
        values_shape("flag", _by_values, {"city": "Київ", "rooms": True})


WORK_MEM = Settings("SELECT set_config('work_mem', %s, true)", ("1234kB",))


def _work_mem() -> str:
    return execute_fetch("SHOW work_mem", [], LISTINGS)[0][0]


def test_settings_hold_for_their_statement_alone():
    """Sent in one query string, the settings hold while the statement is planned and run,
    and end with its implicit transaction."""
    before = _work_mem()
    assert before != "1234kB"
    assert execute_fetch("SHOW work_mem", [], LISTINGS, WORK_MEM) == [("1234kB",)]
    assert _work_mem() == before


def test_a_statement_left_to_the_orm_runs_under_the_settings_too():
    """Where a statement is not compiled, its settings are applied in a transaction around
    the ORM's query (the rows the query computes show the setting it ran under)."""
    from django.db.models import Func, TextField, Value

    shown = Func(Value("work_mem"), function="current_setting", output_field=TextField())

    def build(listing_id):
        return PropertyListing.objects.filter(id=listing_id).annotate(shown=shown).values("shown")

    def build_uncompilable(listing_id):  # id + 1: left to the ORM (see above)
        return build(listing_id + 1)

    listing_id = PropertyListing.objects.order_by("id").values_list("id", flat=True)[0]
    statements = Statements()
    compiled = Shape(("work_mem_shown",), build)
    by_the_orm = Shape(("work_mem_shown_orm",), build_uncompilable)
    assert statements.statement(compiled, [ID], LISTINGS) is not UNCOMPILABLE
    assert statements.statement(by_the_orm, [ID], LISTINGS) is UNCOMPILABLE
    (row,) = statements.objects(compiled, [(ID, listing_id)], LISTINGS, WORK_MEM)
    assert row.shown == "1234kB"
    (row,) = statements.objects(by_the_orm, [(ID, listing_id - 1)], LISTINGS, WORK_MEM)
    assert row.shown == "1234kB"
    assert _work_mem() != "1234kB"
