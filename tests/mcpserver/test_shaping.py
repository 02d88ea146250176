"""The size budget on the largest cards and listings the bounds allow (no server needed)."""

from __future__ import annotations

import json

import pytest
from django.conf import settings

from listings.results import CARD_TEXT_LIMITS, DETAIL_TEXT_LIMITS, ListingCard, bound_text
from mcpserver import shaping

COSTLY = '😀"\\\x07Ї'  # 4, 2, 2, 6 and 2 bytes of JSON for five characters
HUGE = COSTLY * 10_000


def largest_card(listing_id: int) -> dict:
    texts = {name: bound_text(HUGE, limit)[0] for name, limit in CARD_TEXT_LIMITS.items()}
    card = ListingCard(
        id=listing_id,
        price=123456789012.12,
        rooms_count=2**31 - 1,
        total_area=12345678.12,
        floor=2**31 - 1,
        floors_count=2**31 - 1,
        publish_date=None,
        similarity_score=-0.123456,
        fused_score=0.123456,
        duplicate_ids=[],
        truncated_fields=list(CARD_TEXT_LIMITS),
        **texts,
    )
    return card.model_dump(mode="json")


def largest_detail(listing_id: int) -> dict:
    return {
        "id": listing_id,
        **{name: bound_text(HUGE, limit)[0] for name, limit in DETAIL_TEXT_LIMITS.items()},
        "truncated_fields": list(DETAIL_TEXT_LIMITS),
    }


def page_of(cards: list[dict], total: int = 10_000) -> dict:
    return {
        "total": total,
        "total_exact": True,
        "limit": len(cards),
        "offset": 100,
        "mode": "semantic",
        "query": HUGE[:500],
        "filters": {},
        "listings": cards,
    }


@pytest.mark.parametrize("detail", ["brief", "card", "full"])
def test_fifty_largest_cards_stay_within_the_budget_cut_at_a_whole_card(detail):
    cards = [largest_card(i) for i in range(1, 51)]
    details = {card["id"]: largest_detail(card["id"]) for card in cards}
    budget = settings.MCP_MAX_RESULT_TOKENS
    page = shaping.shape_page(page_of(cards), detail=detail, max_tokens=budget, details=details)
    # What a host gives the model: the page as structuredContent, or as text with its links.
    text = shaping.compact_json(page)
    size = shaping.model_bytes(page, text, shaping.link_bytes(page["listings"]))
    assert shaping.estimate_tokens(size) <= budget
    kept = [card["id"] for card in page["listings"]]
    assert kept == list(range(1, len(kept) + 1)) and kept  # whole cards, in order, never none
    if len(kept) < 50:
        assert page["truncated"] is True and page["has_more"] is True
        assert page["next_offset"] == 100 + len(kept)
    else:
        assert page["truncated"] is False and page["next_offset"] == 150


def test_the_default_budget_is_well_under_claude_codes_25000_tokens():
    assert settings.MCP_MAX_RESULT_TOKENS <= 12_500
    # Cyrillic is 2 bytes a letter: a token per 1.5 letters would still be within budget.
    assert shaping.BYTES_PER_TOKEN == 3


def test_the_largest_listing_is_shortened_to_the_budget_and_says_so():
    detail = largest_detail(7)
    fitted, text = shaping.fit_listing(detail, max_tokens=2_000)
    assert text == shaping.compact_json(fitted)
    assert shaping.model_bytes(fitted, text) == len(text.encode())
    assert shaping.estimate_tokens(len(text.encode())) <= 2_000
    assert {"description", "generated_description"} <= set(fitted["truncated_fields"])
    assert fitted["description"].endswith("…")
    short = {"id": 1, "description": "коротко"}
    assert shaping.fit_listing(short, max_tokens=2_000) == (short, shaping.compact_json(short))


def test_paging_hints_follow_the_total():
    cards = [{"id": i, "title": "т"} for i in range(1, 11)]
    last = shaping.shape_page(page_of(cards, total=110), detail="card", max_tokens=10_000)
    assert last["has_more"] is False and last["next_offset"] is None
    more = shaping.shape_page(page_of(cards, total=111), detail="card", max_tokens=10_000)
    assert more["has_more"] is True and more["next_offset"] == 110
    estimated = {**page_of(cards, total=50), "total_exact": False}
    guessed = shaping.shape_page(estimated, detail="brief", max_tokens=10_000)
    assert guessed["has_more"] is True and guessed["next_offset"] == 110


@pytest.mark.parametrize("text", shaping.RESULT_TEXTS)
@pytest.mark.parametrize("detail", ["brief", "card", "full"])
def test_the_budget_counts_to_the_byte_what_the_model_is_given(text, detail):
    cards = [largest_card(i) for i in range(1, 6)]
    details = {card["id"]: largest_detail(card["id"]) for card in cards}

    def shaped(max_tokens: int) -> dict:
        page = page_of(cards, total=5)
        return shaping.shape_page(
            page, detail=detail, max_tokens=max_tokens, details=details, text=text
        )

    whole, joined = shaping.shaped_answer(
        page_of(cards, total=5), detail=detail, max_tokens=10**9, details=details, text=text
    )
    block = shaping.text_of(whole, text=text, page=True)
    assert joined == block  # the text joined from the cards' pieces is the page's JSON
    assert json.loads(block)["listings"][0]["id"] == 1 and list(json.loads(block))[-1] == "listings"
    tokens = shaping.estimate_tokens(
        shaping.model_bytes(whole, block, shaping.link_bytes(whole["listings"]))
    )
    assert len(shaped(tokens)["listings"]) == 5  # exactly its size fits
    assert shaped(tokens)["truncated"] is False
    smaller = shaped(tokens - 1)  # a token less does not
    assert smaller["truncated"] is True and len(smaller["listings"]) == 4
    if text == "brief" and detail != "brief":  # structuredContent is the larger: it counts
        assert json.loads(block)["note"] == shaping.BRIEF_TEXT_NOTE
        assert len(block) < len(shaping.compact_json(whole)) / 2
        assert tokens == shaping.estimate_tokens(len(shaping.compact_json(whole).encode()))


@pytest.mark.parametrize("listing_id", [0, 7, 12345, 9_007_199_254_740_993, "12a"])
def test_a_links_size_is_the_bytes_it_is_sent_as(listing_id):
    """Counted from its digits for an integer id: the bytes of the link as the SDK sends it
    (keys in any order), and the comma before it."""
    link = shaping.resource_link({"id": listing_id})
    sent = link.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert shaping._link_size({"id": listing_id}) == len(shaping.compact_json(sent).encode()) + 1
