"""Search pages shaped for agents: a detail level, paging hints, a size budget, links.

A page comes from listings.search as today's cards; here, at the MCP output layer, it is cut
to the `detail` asked for (`brief`, `card`, `full`), told whether there is more
(`has_more`, `next_offset`), kept within MCP_MAX_RESULT_TOKENS by cutting whole cards
(`truncated`), and each card is also a `resource_link` to listing://{id}.

Tokens are estimated as UTF-8 bytes / 3. Ukrainian letters are 2 bytes each and common
tokenizers spend a token per 2-4 letters (4-8 bytes), JSON keys, digits and punctuation a
token per 2-4 bytes: bytes / 3 over-counts Ukrainian text and is about right for the JSON
around it, so a budget in these tokens is not exceeded in real ones.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_types import ResourceLink

from listings import search
from listings.errors import InvalidArgument

from .catalog import DETAILS

BYTES_PER_TOKEN = 3
BRIEF_FIELDS = (
    "id",
    "title",
    "price",
    "currency",
    "city",
    "district",
    "rooms_count",
    "total_area",
)
SCORES = ("fused_score", "similarity_score", "rank_score")
BRIEF_TITLE_CHARS = 80
# What a brief page keeps around its cards.
BRIEF_PAGE_FIELDS = ("total", "total_exact", "limit", "offset", "mode", "untrusted_content")
DETAIL_UNKNOWN = "'detail' must be one of: brief, card, full."


def estimate_tokens(size_bytes: int) -> int:
    return -(-size_bytes // BYTES_PER_TOKEN)


def compact_json(value: Any) -> str:
    """The text form of a result: compact, UTF-8 (Cyrillic as itself, not escaped)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def parse_detail(value: Any) -> str:
    if value not in DETAILS:
        raise InvalidArgument(DETAIL_UNKNOWN)
    return str(value)


def brief_card(card: dict[str, Any]) -> dict[str, Any]:
    """The fewest fields that let an agent choose; a field it lacks is unknown (null)."""
    brief = {name: card[name] for name in BRIEF_FIELDS if card.get(name) is not None}
    title = brief.get("title")
    if isinstance(title, str) and len(title) > BRIEF_TITLE_CHARS:
        brief["title"] = title[: BRIEF_TITLE_CHARS - 1] + "…"
    for name in SCORES:
        if isinstance(card.get(name), int | float):
            brief["score"] = round(card[name], 4)
            break
    return brief


def without_nulls(card: dict[str, Any]) -> dict[str, Any]:
    """The card without its null fields (scores of another mode, no duplicates note...):
    an absent field reads as null, and ten cards are a kilobyte shorter."""
    return {name: value for name, value in card.items() if value is not None}


def full_card(card: dict[str, Any], detail: dict[str, Any] | None) -> dict[str, Any]:
    if detail is None:
        return card
    extra = {k: v for k, v in detail.items() if k not in card and k != "untrusted_content"}
    cut = sorted(set(card.get("truncated_fields", [])) | set(detail.get("truncated_fields", [])))
    return {**card, **extra, "truncated_fields": cut}


def listing_details(*, listing_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The full cards of a page's listings (for detail='full'), through listings.search."""
    return {
        listing_id: search.get_listing(listing_id=listing_id).model_dump(mode="json")
        for listing_id in listing_ids
    }


def _paging(page: dict[str, Any], rows: int) -> tuple[bool, int | None]:
    offset, limit, total = page["offset"], page["limit"], page["total"]
    if page.get("total_exact", True):
        has_more = offset + rows < total
    else:
        has_more = rows >= limit or offset + rows < total
    next_offset = offset + rows if has_more else None
    if next_offset is not None and next_offset > search.MAX_OFFSET:
        next_offset = None
    return has_more, next_offset


def _rows(cards: list[dict[str, Any]]) -> int:
    """Rows of the search the cards stand for (a card folds its duplicates in)."""
    return sum(1 + len(card.get("duplicate_ids") or []) for card in cards)


def resource_link(card: dict[str, Any]) -> ResourceLink:
    title = card.get("title")
    return ResourceLink(
        uri=f"listing://{card['id']}",
        name=title if isinstance(title, str) and title else f"listing {card['id']}",
        mime_type="application/json",
    )


def link_bytes(cards: list[dict[str, Any]]) -> int:
    return sum(
        len(compact_json(resource_link(card).model_dump(mode="json", exclude_none=True)).encode())
        for card in cards
    )


def shape_page(
    page: dict[str, Any],
    *,
    detail: str,
    max_tokens: int,
    details: dict[int, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The page at `detail`, with has_more/next_offset, cut at a whole card to `max_tokens`
    (its text and its cards' resource links together)."""
    cards: list[dict[str, Any]] = page["listings"]
    compact = [without_nulls(card) for card in cards]
    if detail == "brief":
        shaped = {name: page[name] for name in BRIEF_PAGE_FIELDS if name in page}
        if "untrusted_content" in shaped:  # of a brief card's texts, only the title
            shaped["untrusted_content"] = {**shaped["untrusted_content"], "fields": ["title"]}
        shown = [brief_card(card) for card in cards]
    elif detail == "full":
        shaped = dict(page)
        shown = [without_nulls(full_card(card, (details or {}).get(card["id"]))) for card in cards]
    else:
        shaped = dict(page)
        shown = list(compact)
    shaped["detail"] = detail
    rows = max(_rows(cards), len(cards) + page.get("duplicates_collapsed", 0))
    kept = len(shown)
    while True:
        candidate = {**shaped, "listings": shown[:kept], "truncated": kept < len(shown)}
        if kept < len(shown):
            has_more, next_offset = True, page["offset"] + _rows(cards[:kept])
        else:
            has_more, next_offset = _paging(page, rows)
        candidate.update(has_more=has_more, next_offset=next_offset)
        size = len(compact_json(candidate).encode()) + link_bytes(shown[:kept])
        if kept == 0 or estimate_tokens(size) <= max_tokens:
            return candidate
        if kept == 1 and shown[0] is not compact[0]:
            # A full card too large alone: its card (a few KB) instead, so the page moves on.
            shown[0] = compact[0]
            continue
        kept -= 1


SHORTEST_CUT = 100


def fit_listing(detail: dict[str, Any], *, max_tokens: int) -> dict[str, Any]:
    """A full listing within `max_tokens`: its longest texts shortened (named in
    truncated_fields, marked «…») until it fits."""
    detail = dict(detail)
    while estimate_tokens(len(compact_json(detail).encode())) > max_tokens:
        texts = [k for k, v in detail.items() if isinstance(v, str) and len(v) > SHORTEST_CUT]
        if not texts:
            break
        longest = max(texts, key=lambda name: len(compact_json(detail[name])))
        text = detail[longest].removesuffix("…")
        detail[longest] = text[: len(text) * 2 // 3] + "…"
        detail["truncated_fields"] = sorted({*detail.get("truncated_fields", []), longest})
    return detail
