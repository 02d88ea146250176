"""Market insight on the real embedded PostgreSQL: trends, market context, duplicates."""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from itertools import combinations, pairwise

import numpy as np
import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from demo.generator import CITY_PRICE_TREND, duplicate_of
from listings import market, search
from listings.errors import InvalidArgument, NotFound
from listings.models import PropertyListing

pytestmark = pytest.mark.usefixtures("listings_access")

RATES = {"USD": 1.0, "EUR": 0.92, "UAH": 41.5}


def _usd(listing) -> float | None:
    if listing.price is None or listing.currency not in RATES:
        return None
    return float(listing.price) / RATES[listing.currency]


# --- trends --------------------------------------------------------------------------------


def _slope(points) -> float:
    """Least-squares slope of log(median per m²) over the periods, weighted by sample."""
    xs, ys, ws = [], [], []
    for index, point in enumerate(points):
        if not point.low_sample and point.median_price_per_m2:
            xs.append(index)
            ys.append(math.log(point.median_price_per_m2))
            ws.append(point.priced_count)
    total = sum(ws)
    mx = sum(w * x for w, x in zip(ws, xs, strict=True)) / total
    my = sum(w * y for w, y in zip(ws, ys, strict=True)) / total
    num = sum(w * (x - mx) * (y - my) for w, x, y in zip(ws, xs, ys, strict=True))
    return num / sum(w * (x - mx) ** 2 for w, x in zip(ws, xs, strict=True))


def test_trend_direction_of_the_generated_market_is_recovered():
    checked = []
    for city, yearly in CITY_PRICE_TREND.items():
        if abs(yearly) < 0.12:
            continue
        result = market.price_trends(
            filters={"city": city, "deal_type": "sale", "property_type": "apartment"},
            period="quarter",
        )
        points = result.series[0].points
        if sum(p.priced_count for p in points) < 120:
            continue  # too few flats in this city of the test data set to tell
        checked.append(city)
        assert math.copysign(1, _slope(points)) == math.copysign(1, yearly), city
    assert {"Київ", "Харків", "Львів"} <= set(checked)


def test_trend_periods_are_contiguous_and_small_ones_marked():
    result = market.price_trends(
        filters={"city": "Ужгород", "deal_type": "sale"}, period="month", currency="USD"
    )
    points = result.series[0].points
    labels = [p.period for p in points]
    assert labels == sorted(labels) and len(labels) >= 20
    years_months = [(int(label[:4]), int(label[5:])) for label in labels]
    for (y1, m1), (y2, m2) in pairwise(years_months):
        assert (y2 * 12 + m2) - (y1 * 12 + m1) == 1  # no month skipped
    assert any(p.low_sample for p in points)
    for point in points:
        assert point.low_sample == (point.priced_count < market.MIN_SAMPLE)
        if point.count == 0:
            assert point.median_price is None
    total = PropertyListing.objects.filter(
        city="Ужгород", deal_type="sale", publish_date__isnull=False
    ).count()
    assert sum(p.count for p in points) == total  # every status counts by default


def test_trend_figures_match_the_rows_and_convert_currencies():
    filters = {"city": "Київ", "deal_type": "sale", "rooms_count": 2}
    usd = market.price_trends(filters=filters, period="quarter", currency="USD")
    uah = market.price_trends(filters=filters, period="quarter", currency="UAH")
    rows = PropertyListing.objects.filter(city="Київ", deal_type="sale", rooms_count=2)
    by_quarter = defaultdict(list)
    from django.utils import timezone

    for listing in rows:
        local = timezone.localtime(listing.publish_date)
        price = _usd(listing)
        if price is not None:
            by_quarter[f"{local.year}-Q{(local.month - 1) // 3 + 1}"].append(price)
    for point_usd, point_uah in zip(usd.series[0].points, uah.series[0].points, strict=True):
        expected = by_quarter.get(point_usd.period)
        assert point_usd.priced_count == len(expected or [])
        if expected:
            assert point_usd.median_price == pytest.approx(statistics.median(expected), rel=1e-6)
            assert point_uah.median_price == pytest.approx(point_usd.median_price * 41.5, rel=1e-6)
    assert usd.warnings == []


def test_trend_and_distribution_are_in_the_currency_most_matches_are_priced_in():
    rents = {"city": "Київ", "deal_type": "rent_long"}
    sales = {"city": "Київ", "deal_type": "sale"}
    trend_rows = PropertyListing.objects.filter(
        city="Київ", deal_type="rent_long", price__isnull=False, publish_date__isnull=False
    )
    most = Counter(trend_rows.values_list("currency", flat=True)).most_common(1)[0][0]
    assert most == "UAH"  # the generator's rents: what the default must follow
    trend = market.price_trends(filters=rents, period="quarter")
    assert trend.currency == "UAH"
    asked = market.price_trends(filters=rents, period="quarter", currency="UAH")
    assert trend.series == asked.series
    assert market.price_trends(filters=sales).currency == "USD"
    assert market.price_distribution(filters=rents).currency == "UAH"
    assert market.price_distribution(filters=sales).currency == "USD"
    assert market.price_distribution(filters=rents, currency="usd").currency == "USD"


def test_a_trend_by_deal_type_gives_each_series_its_own_currency():
    kyiv = {"city": "Київ"}
    by_deal = market.price_trends(filters=kyiv, group_by="deal_type", period="quarter")
    currencies = {series.group: series.currency for series in by_deal.series}
    assert currencies["sale"] == "USD" and currencies["rent_long"] == "UAH"
    for series in by_deal.series:
        alone = market.price_trends(
            filters=kyiv | {"deal_type": series.group}, period="quarter", currency=series.currency
        )
        assert [p.median_price for p in series.points] == [
            p.median_price for p in alone.series[0].points
        ]
    by_rooms = market.price_trends(filters=kyiv, group_by="rooms_count", period="quarter")
    assert {series.currency for series in by_rooms.series} == {by_rooms.currency}


def test_trend_groups_and_warnings():
    result = market.price_trends(filters={"city": "Київ"}, group_by="deal_type", period="quarter")
    assert {s.group for s in result.series} == {"sale", "rent_long", "rent_short"}
    assert result.warnings == []
    mixed = market.price_trends(filters={"city": "Київ"}, period="quarter")
    assert mixed.warnings == [market.MIXED_DEALS_WARNING]
    active = market.price_trends(filters={"city": "Київ", "listing_status": "active"})
    assert active.filters["listing_status"] == "active"
    assert sum(s.count for s in active.series) < sum(s.count for s in mixed.series)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"period": "week"}, market.PERIOD_UNKNOWN),
        ({"group_by": "street"}, market.GROUP_BY_UNKNOWN),
        ({"currency": "BTC"}, market.CURRENCY_UNKNOWN.format(allowed="USD, EUR, UAH")),
        ({"filters": {"colour": "red"}}, None),
    ],
)
def test_trend_bad_arguments_are_clear_errors(kwargs, message):
    with pytest.raises(InvalidArgument) as caught:
        market.price_trends(**kwargs)
    if message is not None:
        assert caught.value.message == message
    else:
        assert caught.value.message.startswith("Unknown filter 'colour'.")


def test_trend_of_nothing_is_empty_not_an_error():
    result = market.price_trends(filters={"min_area": 900000})
    assert result.series[0].points == [] and result.series[0].change_pct is None


def test_trend_filters_are_read_as_every_searchs_are():
    """A city no listing has is refused with the same message as in every search; a
    misspelled one is corrected as there."""
    with pytest.raises(InvalidArgument) as refused:
        market.price_trends(filters={"city": "Атлантида"})
    with pytest.raises(InvalidArgument) as in_stats:
        search.listing_stats(filters={"city": "Атлантида"})
    assert refused.value.message == in_stats.value.message
    kyiv = market.price_trends(filters={"city": "Киев", "deal_type": "sale"})
    assert kyiv.filters["city"] == "Київ" and kyiv.series[0].count > 0


# --- price distribution --------------------------------------------------------------------


def test_price_distribution_counts_every_priced_listing_once():
    filters = {"city": "Київ", "deal_type": "sale"}
    result = market.price_distribution(filters=filters, bins=10)
    assert len(result.bands) == 10
    assert result.below + result.above + sum(b.count for b in result.bands) == result.total
    expected = PropertyListing.objects.filter(
        city="Київ", deal_type="sale", listing_status="active", price__isnull=False
    ).count()
    assert result.total == expected
    assert result.bands[0].low < result.bands[-1].high
    with pytest.raises(InvalidArgument) as caught:
        market.price_distribution(bins=1)
    assert caught.value.message == market.BINS_RANGE


# --- market context ------------------------------------------------------------------------


def _flat_with_comparables():
    return (
        PropertyListing.objects.filter(
            city="Київ",
            deal_type="sale",
            property_type_id=1,
            rooms_count=2,
            listing_status="active",
            price__isnull=False,
            total_area__isnull=False,
        )
        .order_by("id")
        .first()
    )


def test_market_context_figures_are_those_of_the_comparables():
    listing = _flat_with_comparables()
    result = market.market_context(listing_id=listing.id, currency="USD")
    area = float(listing.total_area)
    comparables = PropertyListing.objects.filter(
        city=listing.city,
        deal_type="sale",
        property_type_id=1,
        rooms_count=2,
        listing_status="active",
        total_area__gte=round(area * 0.8, 2),
        total_area__lte=round(area * 1.2, 2),
    ).exclude(id=listing.id)
    if result.scope == "district":
        comparables = comparables.filter(district=listing.district)
    prices = [p for p in (_usd(c) for c in comparables) if p is not None]
    per_m2 = [_usd(c) / float(c.total_area) for c in comparables if _usd(c) is not None]
    assert result.comparables_count == len(prices) >= market.MIN_COMPARABLES
    assert result.median_price == pytest.approx(statistics.median(prices), abs=0.01)
    assert result.median_price_per_m2 == pytest.approx(statistics.median(per_m2), abs=0.01)
    mine = _usd(listing)
    cheaper = sum(p < mine for p in prices) + 0.5 * sum(p == mine for p in prices)
    assert result.percentile == pytest.approx(100 * cheaper / len(prices), abs=0.05)
    expected_diff = (mine / area / statistics.median(per_m2) - 1) * 100
    assert result.difference_pct == pytest.approx(expected_diff, abs=0.06)
    assert f"{len(prices)} схож" in result.verdict
    assert f"{round(abs(result.difference_pct))} %" in result.verdict
    assert ("дешевше" in result.verdict) == (result.difference_pct < 0)
    assert len(result.examples) == market.EXAMPLES
    assert all(example.id != listing.id for example in result.examples)


def test_market_context_leaves_the_listings_own_reposts_out_of_its_comparables():
    """A planted copy and its re-post are comparables of each other by city, deal, type,
    rooms and area; the re-post is the same flat, so it is not counted, and the answer
    names it."""
    from tests.reposts import OUR_SITE

    for copy in PropertyListing.objects.exclude(url_source__startswith=OUR_SITE).order_by("id"):
        reposts = [m.id for m in market.find_duplicates(listing_id=copy.id).duplicates]
        active = PropertyListing.objects.filter(id__in=reposts, listing_status="active")
        if copy.price is not None and active.filter(price__isnull=False).exists():
            break
    else:
        raise AssertionError("no planted copy has an active, priced re-post")
    result = market.market_context(listing_id=copy.id, currency="USD")
    assert result.reposts_left_out == reposts
    values, _ = market.comparables_of(copy)
    counted = market._comparable(values).filter(price__isnull=False)
    if result.scope == "district":
        counted = counted.filter(district=copy.district)
    ids = set(counted.values_list("id", flat=True))
    assert set(reposts) & ids  # counted before: the same flat among its own comparables
    priced = [_usd(c) for c in PropertyListing.objects.filter(id__in=ids - set(reposts))]
    assert result.comparables_count == len([p for p in priced if p is not None])
    assert not {example.id for example in result.examples} & set(reposts)


def test_market_context_in_another_currency_scales_the_prices():
    listing = _flat_with_comparables()
    usd = market.market_context(listing_id=listing.id, currency="USD")
    eur = market.market_context(listing_id=listing.id, currency="EUR")
    assert eur.median_price == pytest.approx(usd.median_price * 0.92, rel=1e-4)
    assert eur.percentile == usd.percentile and eur.verdict == usd.verdict


@pytest.mark.parametrize("currency", ["UAH", "USD", "EUR"])
def test_market_context_speaks_in_the_listings_own_currency_unless_asked(currency):
    listing = (
        PropertyListing.objects.filter(currency=currency, price__isnull=False, city="Київ")
        .order_by("id")
        .first()
    )
    own = market.market_context(listing_id=listing.id)
    assert own.currency == currency
    assert own.price == pytest.approx(float(listing.price), abs=0.01)  # as the listing says it
    assert own == market.market_context(listing_id=listing.id, currency=currency)
    other = "UAH" if currency != "UAH" else "USD"
    assert market.market_context(listing_id=listing.id, currency=other).currency == other


def test_market_context_of_a_price_in_no_known_currency_is_in_usd():
    unknown = PropertyListing.objects.filter(currency__isnull=True).order_by("id").first()
    if unknown is None:  # the test database plants NULL currencies; say so if it stops
        pytest.fail("the test database has no listing without a currency")
    assert market.market_context(listing_id=unknown.id).currency == "USD"


def test_market_context_without_a_price_or_area_or_enough_comparables():
    unpriced = PropertyListing.objects.filter(price__isnull=True).order_by("id").first()
    result = market.market_context(listing_id=unpriced.id)
    assert result.verdict == market.VERDICT_NO_PRICE
    assert result.percentile is None and result.difference_pct is None
    # A land plot has no rooms: the comparables are other plots of about its size.
    rare = (
        PropertyListing.objects.filter(city="Ужгород", property_type_id=6, price__isnull=False)
        .order_by("id")
        .first()
    )
    if rare is not None:
        small = market.market_context(listing_id=rare.id)
        if small.comparables_count < market.MIN_COMPARABLES:
            assert small.verdict == market.VERDICT_TOO_FEW.format(
                count=small.comparables_count, city="Ужгород"
            )
    with pytest.raises(NotFound) as caught:
        market.market_context(listing_id=10**12)
    assert caught.value.message == market.LISTING_NOT_FOUND.format(listing_id=10**12)
    with pytest.raises(InvalidArgument):
        market.market_context(listing_id=0)


# --- duplicates ----------------------------------------------------------------------------


def _planted_pairs() -> set[tuple[int, int]]:
    """Pairs of listings the generator planted as the same property."""
    groups: dict[int, set[int]] = defaultdict(set)
    copies = PropertyListing.objects.exclude(url_source__startswith="https://example-realty.ua/")
    for listing_id in copies.values_list("id", flat=True):
        root = duplicate_of(settings.DEMO_SEED, listing_id)
        assert root is not None
        groups[root] |= {root, listing_id}
    return {pair for members in groups.values() for pair in combinations(sorted(members), 2)}


def test_duplicate_detection_finds_the_planted_pairs():
    planted = _planted_pairs()
    assert len(planted) >= 100
    found: set[tuple[int, int]] = set()
    for listing_id in PropertyListing.objects.order_by("id").values_list("id", flat=True):
        result = market.find_duplicates(listing_id=listing_id)
        for match in result.duplicates:
            found.add((min(listing_id, match.id), max(listing_id, match.id)))
    true = found & planted
    precision = len(true) / len(found)
    recall = len(true) / len(planted)
    assert precision >= 0.95, (precision, sorted(found - planted)[:10])
    assert recall >= 0.8, (recall, sorted(planted - found)[:10])


def test_duplicates_carry_their_evidence_and_one_group_id():
    pair = sorted(_planted_pairs())[0]
    first = market.find_duplicates(listing_id=pair[0])
    second = market.find_duplicates(listing_id=pair[1])
    match = next(m for m in first.duplicates if m.id == pair[1])
    evidence = match.evidence
    assert abs(evidence["price_difference_pct"]) <= 100 * market.DUPLICATE_PRICE_TOLERANCE
    assert abs(evidence["area_difference_m2"]) <= 1.5
    assert evidence["same_contact_phone"] or (
        evidence["text_similarity"] >= market.DUPLICATE_MIN_SIMILARITY
    )
    assert first.duplicate_group == second.duplicate_group == min(pair)
    assert first.rule == market.DUPLICATE_RULE


def test_a_listing_without_comparable_fields_has_no_duplicates():
    land = PropertyListing.objects.filter(rooms_count__isnull=True).order_by("id").first()
    result = market.find_duplicates(listing_id=land.id)
    assert result.duplicates == [] and result.duplicate_group == land.id
    with pytest.raises(NotFound):
        market.find_duplicates(listing_id=10**12)


# --- command -------------------------------------------------------------------------------


def test_market_report_prints_the_trend_and_districts(capsys):
    call_command("market_report", "--city", "Київ", "--deal-type", "sale", "--period", "quarter")
    out = capsys.readouterr().out
    assert "Trend by quarter, prices in USD" in out
    assert "Печерський" in out and "median/m²" in out


def test_market_report_without_a_deal_type_reports_each_in_its_own_currency(capsys):
    """Sales and rents mixed gave one trend of meaningless medians and a note saying so."""
    import json

    call_command("market_report", "--city", "Київ", "--period", "quarter")
    printed = capsys.readouterr()
    sections = printed.out.split("== ")[1:]
    heads = [section.splitlines()[:2] for section in sections]
    assert heads[0] == ["sale ==", heads[0][1]] and "prices in USD" in heads[0][1]
    assert ["rent_long ==", heads[1][1]] == heads[1] and "prices in UAH" in heads[1][1]
    assert all("Districts (" in section for section in sections)
    assert market.MIXED_DEALS_WARNING not in printed.err
    call_command("market_report", "--city", "Київ", "--period", "quarter", "--json")
    body = json.loads(capsys.readouterr().out)["by_deal_type"]
    assert [part["deal_type"] for part in body][:2] == ["sale", "rent_long"]
    for part in body:
        assert part["trend"]["filters"]["deal_type"] == part["deal_type"]
        assert part["districts"]["currency"] == part["trend"]["currency"]


def test_market_report_json_and_errors(capsys):
    import json

    call_command("market_report", "--city", "Львів", "--deal-type", "sale", "--json")
    body = json.loads(capsys.readouterr().out)
    assert body["trend"]["filters"]["city"] == "Львів"
    assert body["districts"]["group_by"] == "district"
    with pytest.raises(CommandError) as caught:
        call_command("market_report", "--period", "week")
    assert str(caught.value) == f"invalid_argument: {market.PERIOD_UNKNOWN}"


# --- collapsing duplicates on a search page ---------------------------------------------------


def test_a_page_shows_one_card_per_property():
    from listings import search

    a, b = sorted(_planted_pairs())[0]
    first = PropertyListing.objects.get(id=a)
    filters = {
        "city": first.city,
        "deal_type": first.deal_type,
        "rooms_count": first.rooms_count,
        "floor": first.floor,
        "listing_status": "any",
    }
    page = search.fulltext_search(filters=filters, limit=50)
    ids = [card.id for card in page.listings]
    assert {a, b} <= set(ids) and len(ids) < 50
    collapsed = market.collapse_duplicates(page)
    kept = [card.id for card in collapsed.listings]
    keeper = min((a, b), key=ids.index)
    other = b if keeper == a else a
    assert keeper in kept and other not in kept
    card = next(c for c in collapsed.listings if c.id == keeper)
    assert other in card.duplicate_ids
    assert card.duplicates_note == market._more_listings(len(card.duplicate_ids))
    assert collapsed.duplicates_collapsed == len(ids) - len(kept) >= 1
    assert [i for i in ids if i in kept] == kept  # the order is kept
    assert market.collapse_duplicates(collapsed) == collapsed  # nothing left to fold


def _folded_by_the_full_rule(page) -> dict[int, int]:
    """later id -> the earlier card it folds into, every pair of the page judged by the
    whole rule from the table (as every page was before the cards screened the pairs)."""
    from listings.querysets import price_in
    from listings.runtime import _rates

    ids = [card.id for card in page.listings]
    rows = {
        row["id"]: row
        for row in PropertyListing.objects.filter(id__in=ids)
        .annotate(usd=price_in("USD", _rates(), None))
        .values("id", "embedding", "usd", *market.RULE_FIELDS)
    }
    first_of: dict[int, int] = {}
    for position, later in enumerate(ids):
        for earlier in ids[:position]:
            if earlier in first_of:
                continue
            a, b = rows[earlier]["embedding"], rows[later]["embedding"]
            similarity = None
            if a is not None and b is not None:
                a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
                similarity = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
            if market.same_property(rows[earlier], rows[later], similarity):
                first_of[later] = earlier
                break
    return first_of


def test_the_cards_screen_out_no_pair_the_whole_rule_would_fold():
    from django.db import connections
    from django.test.utils import CaptureQueriesContext

    planted = sorted(_planted_pairs())
    pages = []
    for a, _ in planted[:12]:
        first = PropertyListing.objects.get(id=a)
        filters = {"city": first.city, "deal_type": first.deal_type, "listing_status": "any"}
        pages.append(search.fulltext_search(filters=filters, limit=50))
    pages.append(search.semantic_search(query="квартира з балконом", limit=50))
    folded_pages = unread_pages = 0
    for page in pages:
        expected = _folded_by_the_full_rule(page)
        collapsed = market.collapse_duplicates(page)
        hidden = {i for card in collapsed.listings for i in card.duplicate_ids}
        assert hidden == set(expected) and collapsed.duplicates_collapsed == len(expected)
        folded_pages += bool(expected)
        alike = any(
            market._may_be_same(earlier, later)
            for position, later in enumerate(page.listings)
            for earlier in page.listings[:position]
        )
        if not alike:  # nothing to fold and nothing read
            with CaptureQueriesContext(connections["listings"]) as queries:
                assert market.collapse_duplicates(page) == page
            assert len(queries) == 0
            unread_pages += 1
    assert folded_pages >= 6  # the planted pairs are on these pages
    assert unread_pages >= 1


def _neighbours(listing_id: int) -> set[int]:
    page = search.similar_to_listing(listing_id=listing_id, filters={"listing_status": "any"})
    return {card.id for card in page.listings}


def test_more_like_this_leaves_out_the_listings_own_reposts():
    """A re-post of the listing is the same flat, not one like it: it was among the first
    neighbours. It is taken out, the warnings name it, and find_duplicates agrees."""
    from django.db import connections
    from django.test.utils import CaptureQueriesContext

    similar = market.collapsing(search.similar_to_listing)
    every = {"listing_status": "any"}
    left_out = 0
    for a, b in sorted(_planted_pairs())[:40]:
        raw = search.similar_to_listing(listing_id=a, filters=every, limit=10)
        raw_ids = [card.id for card in raw.listings]
        if b not in raw_ids:
            continue
        page = similar(listing_id=a, filters=every, limit=10)
        ids = [card.id for card in page.listings]
        assert b not in ids and [i for i in raw_ids if i in ids] == ids
        reposts = (
            set(raw_ids) - set(ids) - {i for card in page.listings for i in card.duplicate_ids}
        )
        assert b in reposts
        assert reposts <= {match.id for match in market.find_duplicates(listing_id=a).duplicates}
        note = market.SOURCE_REPOSTS_NOTE.format(
            listing_id=a, ids=", ".join(str(i) for i in raw_ids if i in reposts)
        )
        assert page.warnings == [note]
        assert page.duplicates_collapsed == len(raw_ids) - len(ids)
        left_out += 1
    assert left_out >= 3  # planted re-posts are among each other's first neighbours
    # a listing with no re-post among its neighbours: the same page, and no statement (its
    # card's fields came with its vector); a page from elsewhere reads them by id
    lone = next(
        i
        for i in PropertyListing.objects.filter(embedding__isnull=False)
        .order_by("id")
        .values_list("id", flat=True)[:50]
        if not market.find_duplicates(listing_id=i).duplicates
    )
    raw = search.similar_to_listing(listing_id=lone, limit=10)
    with CaptureQueriesContext(connections["listings"]) as queries:
        assert market.collapse_duplicates(raw, source=lone) == raw
    assert len(queries) == 0
    bare = raw.model_copy()
    bare._source = None
    with CaptureQueriesContext(connections["listings"]) as queries:
        assert market.collapse_duplicates(bare, source=lone).model_dump() == raw.model_dump()
    assert len(queries) == 1
    # and the reposts found either way are the same
    a, b = next((a, b) for a, b in sorted(_planted_pairs()) if b in _neighbours(a))
    with_source = similar(listing_id=a, filters=every, limit=10)
    page = search.similar_to_listing(listing_id=a, filters=every, limit=10)
    page._source = None
    assert market.collapse_duplicates(page, source=a).model_dump() == with_source.model_dump()


def test_collapsed_note_speaks_ukrainian():
    assert market._more_listings(1) == "ще 1 оголошення цього об'єкта"
    assert market._more_listings(2) == "ще 2 оголошення цього об'єкта"
    assert market._more_listings(5) == "ще 5 оголошень цього об'єкта"
    assert market._more_listings(12) == "ще 12 оголошень цього об'єкта"


@pytest.mark.parametrize(
    "figures",
    [
        lambda: search.listing_stats(filters={"deal_type": "sale"}, group_by="city"),
        lambda: search.listing_stats(filters={"city": "Київ"}, group_by="rooms_count"),
        lambda: search.listing_stats(filters={"city": "Київ"}),
        lambda: market.price_trends(
            filters={"city": "Київ", "deal_type": "sale"}, group_by="rooms_count"
        ),
    ],
)
def test_market_figures_can_be_read_from_the_market_index_alone(figures):
    """Counts are COUNT(*), not COUNT(id): the market index holds no id, and with COUNT(id)
    every figure read the table (1.4-5x slower at 1 000 000 listings, bench/RESULTS.md)."""
    from django.db import connections, transaction
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connections["listings"]) as queries:
        figures()
    statement = next(query["sql"] for query in queries if "percentile_cont" in query["sql"])
    with transaction.atomic(using="listings"), connections["listings"].cursor() as cursor:
        # 3000 rows are read faster whole: make the planner show what it can do.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        cursor.execute("EXPLAIN " + statement)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Only Scan using ix_property_listings_market" in plan, plan
