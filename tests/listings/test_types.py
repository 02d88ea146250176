"""listings.types: every argument typed once, the same refusal from every interface."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from pydantic import BaseModel, ValidationError

from listings import market, search, types
from listings.errors import InvalidArgument
from listings.models import Currency, PropertyListing
from mcpserver.server import mcp


def test_the_allowed_values_are_the_literals_and_the_models_choices():
    assert tuple(Currency.values) == types.CURRENCIES
    columns = {field.name for field in PropertyListing._meta.concrete_fields}
    assert set(types.GROUP_BY) <= columns
    assert search.SORT_ORDERS == types.SORT_ORDERS
    assert market.PERIODS == ("month", "quarter")
    assert types.SORT_UNKNOWN == (
        "'sort_by' must be one of: relevance, price_asc, price_desc, date_desc, area_desc."
    )


def _parameters(tool: str) -> dict:
    found = mcp._tool_manager.get_tool(tool)
    assert found is not None
    return found.parameters["properties"]


def _enum(schema: dict) -> list[str]:
    for option in [schema, *schema.get("anyOf", [])]:
        if "enum" in option:
            return list(option["enum"])
    raise AssertionError(f"no enum in {schema}")


def test_the_tools_publish_the_same_values():
    assert _enum(_parameters("price_trends")["currency"]) == list(types.CURRENCIES)
    assert _enum(_parameters("price_trends")["period"]) == list(types.PERIODS)
    assert _enum(_parameters("listing_stats")["group_by"]) == list(types.GROUP_BY)
    assert _enum(_parameters("search_by_metadata")["sort_by"]) == list(types.SORT_ORDERS)
    semantic = _parameters("search_similar_listings")
    assert _enum(semantic["distance_metric"]) == list(types.DISTANCE_METRICS)
    assert semantic["limit"]["minimum"] == 1 and semantic["offset"]["maximum"] == types.MAX_OFFSET


@pytest.mark.usefixtures("listings_access")
@pytest.mark.parametrize(
    ("call", "message"),
    [
        # Strict: a number written as text, or a bool, is not a number.
        (lambda: search.get_listing(listing_id="5"), search.LISTING_ID_INVALID),  # type: ignore[arg-type]
        (lambda: search.similar_to_listing(listing_id=1, limit=True), search.LIMIT_RANGE),
        (lambda: search.semantic_search(query="q", min_similarity=float("nan")), None),
        (lambda: search.fulltext_search(query=5), search.QUERY_REQUIRED),
        (lambda: market.price_trends(currency="GBP"), "'currency' must be one of: USD, EUR, UAH."),
        (lambda: market.price_distribution(bins=101), market.BINS_RANGE),
        (lambda: search.get_listing(), "Missing required argument 'listing_id'."),  # type: ignore[call-arg]
    ],
)
def test_direct_calls_are_refused_with_the_arguments_message(call, message):
    with pytest.raises(InvalidArgument) as caught:
        call()
    expected = message or search.MIN_SIMILARITY_RANGE
    assert caught.value.message == expected.format(max_limit=50)
    assert caught.value.code == "invalid_argument"


class Card(BaseModel):
    id: int


def test_a_result_models_error_inside_a_checked_function_is_not_the_callers():
    @types.checked
    def build(*, listing_id: types.ListingId) -> Card:
        return Card.model_validate({"id": "not a number"})  # foreign data, say

    with pytest.raises(ValidationError):
        build(listing_id=1)
    with pytest.raises(InvalidArgument):
        build(listing_id=0)


def test_a_query_is_folded_once_for_every_interface():
    assert types.query_text("  двокімнатна \n квартира ") == "двокімнатна квартира"
    with pytest.raises(InvalidArgument) as caught:
        types.query_text("   ")
    assert caught.value.message == search.QUERY_REQUIRED


def test_the_commands_help_lists_the_typed_values(capsys):
    with pytest.raises(SystemExit):
        call_command("search_listings", "--help")
    shown = " ".join(capsys.readouterr().out.split())
    assert all(value in shown for value in (*types.SORT_ORDERS, *types.DISTANCE_METRICS))
    assert all(mode in shown for mode in types.SEARCH_MODES)
