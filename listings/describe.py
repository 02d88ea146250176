"""describe_schema: what an agent needs to know to search, built from the models and the live DB."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connections, models
from django.db.models import Count

from . import capabilities, understanding
from .filters import Filters
from .models import SERVICE_FIELDS, PropertyListing
from .runtime import LISTINGS, Remembered
from .vocabulary import FILTERED_ENUMS, NULL_STATUS_POLICY, Vocabulary

ENUM_COLUMNS = (
    "deal_type",
    "listing_status",
    "currency",
    "metro_distance_type",
    "building_type",
    "renovation_status",
    "bathroom_type",
    "parking_type",
    "heating_type",
    "layout_type",
    "window_view",
)
LIVE_TTL_SEC = 300.0
TOP_VALUES = 30
CITY_LIMIT = 200

SAMPLE_QUERIES = [
    {
        "tool": "search_similar_listings",
        "query": "простора двокімнатна квартира біля метро з ремонтом",
        "filters": {"city": "Київ", "deal_type": "sale", "max_price": 120000, "currency": "USD"},
    },
    {
        "tool": "search_by_metadata",
        "query": "квартира з балконом у новобудові",
        "filters": {"city": "Львів", "min_rooms": 2},
        "sort_by": "price_asc",
    },
    {
        "tool": "hybrid_search",
        "query": "будинок з ділянкою та гаражем",
        "filters": {"deal_type": "sale"},
    },
    {
        "tool": "listing_stats",
        "filters": {"deal_type": "rent_long", "city": "Київ"},
        "group_by": "rooms_count",
        "currency": "UAH",
    },
]

# The cities: describe_schema and the admin's choices read the same facts.
_live_cache = Remembered(LIVE_TTL_SEC)


def _column_type(field: models.Field) -> str:
    if isinstance(field, models.ForeignKey):
        return "integer (→ property_types.id)"
    if isinstance(field, models.DecimalField):
        return "numeric"
    if isinstance(field, models.DateTimeField):
        return "timestamp with time zone"
    if isinstance(field, models.CharField | models.TextField):
        return "text"
    if isinstance(field, models.BigIntegerField | models.IntegerField):
        return "integer"
    return field.get_internal_type()


def _columns() -> list[dict[str, Any]]:
    columns = []
    for field in PropertyListing._meta.concrete_fields:
        if field.name in SERVICE_FIELDS:
            continue
        column: dict[str, Any] = {
            "name": field.column,
            "type": _column_type(field),
            "meaning": str(field.verbose_name),
            "nullable": field.null,
        }
        if field.choices:
            column["documented_values"] = {str(k): str(v) for k, v in field.choices}
        columns.append(column)
    return columns


def top_cities() -> dict[str, int]:
    """The cities with the most listings (up to CITY_LIMIT), busiest first, with their counts:
    describe_schema shows the first TOP_VALUES, the admin offers them all as choices."""
    return _live_cache.get("cities", _read_top_cities)


def _read_top_cities() -> dict[str, int]:
    busiest = (
        PropertyListing.objects.exclude(city__isnull=True)
        .exclude(city="")
        .values("city")
        .annotate(listings=Count("*"))
        .order_by("-listings", "city")[:CITY_LIMIT]
    )
    return {str(row["city"]): int(row["listings"]) for row in busiest}


def property_types() -> list[dict[str, Any]]:
    """Every property type (id, slug, name), by id: the rows the filters resolve against."""
    return [
        {"id": type_id, "slug": slug, "name": name}
        for type_id, slug, name in understanding.property_type_rows()
    ]


def _live_facts() -> dict[str, Any]:
    """Cities and property types (cached); enum values come from search.live_vocabulary."""
    return {
        "cities": dict(list(top_cities().items())[:TOP_VALUES]),
        "property_types": property_types(),
    }


def _enum(described: dict[str, Any]) -> dict[str, Any]:
    """One enum column: at most TOP_VALUES of the values present (most frequent first)."""
    present = dict(list(described["present"].items())[:TOP_VALUES])
    maps_to = {value: described["maps_to"][value] for value in present}
    return described | {"present": present, "maps_to": maps_to}


def _currencies(vocab: Vocabulary) -> dict[str, Any]:
    present = vocab.present.get("currency", {})
    return {
        "meaning": "how the currency column's spellings count in price filters, sorting and "
        "stats (case and spaces ignored); a price in a currency that maps to nothing (null) is "
        "left out of them and counted in prices_left_out",
        "aliases": dict(sorted(vocab.aliases.items())),
        "present": dict(present),
        "maps_to": {raw: vocab.currency_of(raw) for raw in present},
        "null_count": vocab.nulls.get("currency", 0),
        "null_currency_means": vocab.null_currency,
        "priced_rows_left_out": vocab.prices_without_currency(),
    }


def _filters(vocab: Vocabulary) -> dict[str, Any]:
    described = {}
    for name, info in Filters.model_fields.items():
        annotation = getattr(info.annotation, "__name__", None) or str(info.annotation)
        annotation = annotation.replace("typing.", "").replace("datetime.", "")
        described[name] = {
            "type": annotation,
            "description": info.description,
            **({"default": info.default} if info.default is not None else {}),
        }
        if name in FILTERED_ENUMS:
            # Besides these, the synonyms listed under enums.
            described[name]["allowed_values"] = vocab.allowed(name)
    return described


def describe_schema() -> dict[str, Any]:
    from .embedders import get_embedder
    from .search import (
        DISTANCE_METRICS,
        GROUP_BY,
        MAX_OFFSET,
        RRF_K,
        SORT_ORDERS,
        live_vocabulary,
        stored_embedder,
    )
    from .search.score_range import score_range

    facts = _live_facts()
    embedder = get_embedder()
    vocab = live_vocabulary()
    enums: dict[str, Any] = {
        name: _enum(vocab.describe(name)) for name in ENUM_COLUMNS if name != "currency"
    }
    found = capabilities.current()
    enums["listing_status"]["null_policy"] = NULL_STATUS_POLICY
    currencies = vocab.present.get("currency", {})
    enums["currency"] = {
        "documented": list(settings.EXCHANGE_RATES),
        "present": dict(list(currencies.items())[:TOP_VALUES]),
        "maps_to": {raw: vocab.currency_of(raw) for raw in list(currencies)[:TOP_VALUES]},
        "null_count": vocab.nulls.get("currency", 0),
        "see": "currencies",
    }
    for column in _columns():
        if column["name"] in enums:
            enums[column["name"]]["labels"] = column["documented_values"]
    return {
        "table": "property_listings",
        "language": "Ukrainian: listing text is Ukrainian; translate queries into Ukrainian "
        "before searching. With interpret on, Russian and English words left to search for "
        "are also searched as the Ukrainian words listings use (interpreted.translated names "
        "them), from a glossary of listings' words: a translated query finds more.",
        "columns": _columns(),
        "enums": enums,
        "cities": facts["cities"],
        "property_types": facts["property_types"],
        "filters": _filters(vocab),
        "sort_orders": list(SORT_ORDERS),
        "distance_metrics": list(DISTANCE_METRICS),
        "stats_group_by": list(GROUP_BY),
        "limits": {
            "max_limit": settings.MAX_LIMIT,
            "max_offset": MAX_OFFSET,
            "max_query_length": settings.MAX_QUERY_LENGTH,
        },
        "exchange_rates": {
            "meaning": "units of each currency per 1 USD; price filters, sorting and stats "
            "convert through these",
            "rates": dict(settings.EXCHANGE_RATES),
        },
        "currencies": _currencies(vocab),
        "embedding": embedder.describe()
        | {"stored_vectors_made_by": stored_embedder(), "score_range": score_range()},
        "full_text": found.describe()["full_text"]
        | {
            "ranking": "ts_rank_cd (cover density)",
            "fallback": "ILIKE over title, description and address_raw when nothing matches",
        },
        "indexes": found.describe()["indexes"]
        | {
            "meaning": "null: no such index, so that search scans the table (slower, same results)"
            "; vector_hnsw_other: further HNSW indexes (partial ones serve the filter in their "
            "WHERE); index_used in a page names the one that ranked it",
        },
        "database_warnings": list(found.warnings),
        "hybrid": {"fusion": "Reciprocal Rank Fusion", "k": RRF_K},
        "sample_queries": SAMPLE_QUERIES,
    }


def database_overview() -> dict[str, Any]:
    """Totals, price range and top cities, for the stats://database resource."""
    from .search import listing_stats

    everything = {"listing_status": "any"}
    # in USD, as the keys say, whatever the listings are priced in
    by_status = listing_stats(filters=everything, group_by=None, currency="USD")
    active = {"listing_status": "active"}
    by_deal = listing_stats(filters=active, group_by="deal_type", currency="USD")
    cities = listing_stats(filters=active, group_by="city", currency="USD")
    with connections[LISTINGS].cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FILTER (WHERE embedding IS NOT NULL), count(*), "
            "min(publish_date), max(publish_date) FROM property_listings"
        )
        with_embedding, total, first, last = cursor.fetchone()
    return {
        "total_listings": total,
        "with_embedding": with_embedding,
        "published_between": [first, last],
        "all_statuses_usd": by_status.groups[0].model_dump() if by_status.groups else None,
        "active_by_deal_type_usd": [row.model_dump() for row in by_deal.groups],
        "top_cities_active": [
            {"city": row.group, "count": row.count, "median_price_usd": row.median_price}
            for row in cities.groups[:10]
        ],
    }
