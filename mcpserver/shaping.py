"""Search pages shaped for agents: a detail level, paging hints, a size budget, links.

A page comes from listings.search as today's cards; here, at the MCP output layer, it is cut
to the `detail` asked for (`brief`, `card`, `full`), told whether there is more
(`has_more`, `next_offset`), kept within MCP_MAX_RESULT_TOKENS by cutting whole cards
(`truncated`), and each card is also a `resource_link` to listing://{id}.

Hosts give the model one of a result's two forms, not both: Claude Code and VS Code its
structuredContent, Open WebUI, ollmcp, llama.cpp or Mastra its text block and links. The
budget counts the larger of the two (model_bytes); the wire carries both. MCP_RESULT_TEXT
chooses the text block: `full`, the page itself as the MCP specification recommends, or
`brief`, the page at detail=brief (a third of the bytes; structuredContent is counted then).

Tokens are estimated as UTF-8 bytes / 3. Ukrainian letters are 2 bytes each and common
tokenizers spend a token per 2-4 letters (4-8 bytes), JSON keys, digits and punctuation a
token per 2-4 bytes: bytes / 3 over-counts Ukrainian text and is about right for the JSON
around it, so a budget in these tokens is not exceeded in real ones.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcp_types import ResourceLink

from listings import search, types
from listings.errors import InvalidArgument

from .catalog import DETAILS

BYTES_PER_TOKEN = 3
BRIEF_FIELDS = (
    "id",
    "title",
    "price",
    "currency",
    "deal_type",
    "city",
    "district",
    "rooms_count",
    "total_area",
    "duplicate_ids",
)
SCORES = ("fused_score", "similarity_score", "rank_score")
BRIEF_TITLE_CHARS = 80
# What a brief page keeps around its cards.
BRIEF_PAGE_FIELDS = (
    "total",
    "total_exact",
    "limit",
    "offset",
    "mode",
    "warnings",
    "embedding_note",
    "untrusted_content",
)
# What it keeps of what was read from the query: the summary (the filters read, in words), the
# text searched for, and what was corrected, translated, overridden or not applied.
BRIEF_INTERPRETED = ("summary", "text", "overridden", "corrected", "translated", "refused")
DETAIL_UNKNOWN = "'detail' must be one of: brief, card, full."
RESULT_TEXTS = ("full", "brief")
BRIEF_TEXT_NOTE = (
    "Brief cards; each card in full is in this result's structuredContent (or get_listing_by_id)."
)


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
    brief = {name: card[name] for name in BRIEF_FIELDS if card.get(name) not in (None, [])}
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
    return types.paging(
        offset=page["offset"],
        limit=page["limit"],
        total=page["total"],
        total_exact=page.get("total_exact", True),
        rows=rows,
    )


def _rows(cards: list[dict[str, Any]]) -> int:
    """Rows of the search the cards stand for (a card folds its duplicates in)."""
    return sum(1 + len(card.get("duplicate_ids") or []) for card in cards)


def resource_link(card: dict[str, Any]) -> ResourceLink:
    """The card as a link to its listing:// resource. Its title is in the card next to it,
    and the resource template gives the MIME type: the link carries neither again."""
    return ResourceLink(uri=f"listing://{card['id']}", name=f"listing {card['id']}")


def _json_size(value: Any) -> int:
    return len(compact_json(value).encode())


def _link_bytes(card: dict[str, Any]) -> int:
    """The bytes of the card's resource link as it is sent."""
    return _json_size(resource_link(card).model_dump(mode="json", by_alias=True, exclude_none=True))


# A resource link's bytes around its listing id, which it writes twice (name and uri).
_LINK_AROUND_ID = _link_bytes({"id": 0}) - 2 * len("0")


def _link_size(card: dict[str, Any]) -> int:
    """The bytes of the card's resource link (as resource_link() is sent; the order of its
    keys does not change its size) and the comma before it."""
    listing_id = card["id"]
    if type(listing_id) is int:  # its digits, once in the name and once in the uri
        return _LINK_AROUND_ID + 2 * len(str(listing_id)) + 1
    return _link_bytes(card) + 1


def link_bytes(cards: list[dict[str, Any]]) -> int:
    return sum(_link_size(card) for card in cards)


def _brief_page(page: dict[str, Any], kept: tuple[str, ...] = BRIEF_PAGE_FIELDS) -> dict[str, Any]:
    """What a brief page keeps around its cards: `kept`, the duplicates folded when there
    were any, and of a brief card's texts, only the title as untrusted content."""
    brief = {name: page[name] for name in kept if name in page}
    if page.get("duplicates_collapsed"):
        brief["duplicates_collapsed"] = page["duplicates_collapsed"]
    if "untrusted_content" in brief:
        brief["untrusted_content"] = {**brief["untrusted_content"], "fields": ["title"]}
    return brief


def brief_text_page(page: dict[str, Any]) -> dict[str, Any]:
    """The text block of MCP_RESULT_TEXT=brief: the page's paging and brief cards (last)."""
    brief = _brief_page(
        page, (*BRIEF_PAGE_FIELDS, "detail", "truncated", "has_more", "next_offset")
    )
    return {**brief, "note": BRIEF_TEXT_NOTE, "listings": [brief_card(c) for c in page["listings"]]}


def text_of(content: dict[str, Any], *, text: str, page: bool) -> str:
    """The text block for `content`: itself as compact JSON, or a search page's brief form."""
    if page and text == "brief" and content.get("detail") != "brief":
        return compact_json(brief_text_page(content))
    return compact_json(content)


def model_bytes(content: dict[str, Any], text: str, links: int = 0) -> int:
    """What the model is given of a result, the larger of its two forms: hosts give it
    structuredContent (Claude Code, VS Code) or the text block and the links (most others),
    not both."""
    return max(_json_size(content), len(text.encode()) + links)


def shape_page(
    page: dict[str, Any],
    *,
    detail: str,
    max_tokens: int,
    details: dict[int, dict[str, Any]] | None = None,
    text: str = "full",
) -> dict[str, Any]:
    """The page at `detail`, with has_more/next_offset, cut at a whole card to `max_tokens`
    of model_bytes (structuredContent, or the text block `text` with the links)."""
    return shaped_answer(page, detail=detail, max_tokens=max_tokens, details=details, text=text)[0]


def shaped_answer(
    page: dict[str, Any],
    *,
    detail: str,
    max_tokens: int,
    details: dict[int, dict[str, Any]] | None = None,
    text: str = "full",
) -> tuple[dict[str, Any], str]:
    """shape_page's page and its text block (text_of), each card serialized once: the
    sizes that cut the page are those of the pieces the text is joined from."""
    cards: list[dict[str, Any]] = page["listings"]
    compact = [without_nulls(card) for card in cards]
    if detail == "brief":
        shaped = _brief_page(page)
        if page.get("interpreted"):
            said = page["interpreted"]
            shaped["interpreted"] = {
                name: said[name] for name in BRIEF_INTERPRETED if said.get(name)
            }
        shown = [brief_card(card) for card in cards]
    elif detail == "full":
        shaped = dict(page)
        shown = [without_nulls(full_card(card, (details or {}).get(card["id"]))) for card in cards]
    else:
        shaped = dict(page)
        shown = list(compact)
    shaped.pop("listings", None)
    shaped["detail"] = detail
    brief_text = text == "brief" and detail != "brief"
    rows = max(_rows(cards), len(cards) + page.get("duplicates_collapsed", 0))
    # Cards past what the budget holds on their own are never serialized.
    limit = max_tokens * BYTES_PER_TOKEN
    pieces: list[_Piece] = []
    structured_sum = text_sum = 0
    for card in shown:
        piece = _piece(card, brief_text=brief_text)
        pieces.append(piece)
        structured_sum += piece.size + 1
        text_sum += piece.text_size + 1
        if max(structured_sum, text_sum) > limit:
            break
    kept = len(pieces)
    while True:
        if kept < len(shown):
            has_more, next_offset = True, page["offset"] + _rows(cards[:kept])
        else:
            has_more, next_offset = _paging(page, rows)
        # The cards last: the text is the page's JSON up to them, then theirs.
        candidate = {
            **shaped,
            "truncated": kept < len(shown),
            "has_more": has_more,
            "next_offset": next_offset,
            "listings": [],
        }
        around = compact_json(candidate)
        around_text = compact_json(brief_text_page(candidate)) if brief_text else around
        commas = max(kept - 1, 0)
        structured = len(around.encode()) + sum(p.size for p in pieces[:kept]) + commas
        as_text = len(around_text.encode()) + sum(p.text_size for p in pieces[:kept]) + commas
        if kept == 0 or estimate_tokens(max(structured, as_text)) <= max_tokens:
            candidate["listings"] = shown[:kept]
            joined = ",".join(p.text for p in pieces[:kept])
            return candidate, f"{around_text[:-2]}{joined}]}}"
        if kept == 1 and shown[0] is not compact[0]:
            # A full card too large alone: its card (a few KB) instead, so the page moves on.
            shown[0] = compact[0]
            pieces[0] = _piece(shown[0], brief_text=brief_text)
            continue
        kept -= 1


@dataclass(frozen=True)
class _Piece:
    """A card as the text block carries it, and what it adds to each form of the result."""

    text: str
    size: int  # in structuredContent
    text_size: int  # in the text block, with its resource link


def _piece(card: dict[str, Any], *, brief_text: bool) -> _Piece:
    whole = compact_json(card)
    shown = compact_json(brief_card(card)) if brief_text else whole
    size = len(whole.encode())
    text_size = (len(shown.encode()) if brief_text else size) + _link_size(card)
    return _Piece(shown, size, text_size)


SHORTEST_CUT = 100


def fit_listing(detail: dict[str, Any], *, max_tokens: int) -> tuple[dict[str, Any], str]:
    """A full listing within `max_tokens` (model_bytes), and its text block: its longest
    texts shortened (named in truncated_fields, marked «…») until it fits. The text is the
    listing's compact JSON, so both forms are the same size: one dump sizes and writes it."""
    detail = dict(detail)
    text = compact_json(detail)
    while estimate_tokens(len(text.encode())) > max_tokens:
        texts = [k for k, v in detail.items() if isinstance(v, str) and len(v) > SHORTEST_CUT]
        if not texts:
            break
        longest = max(texts, key=lambda name: len(compact_json(detail[name])))
        cut = detail[longest].removesuffix("…")
        detail[longest] = cut[: len(cut) * 2 // 3] + "…"
        detail["truncated_fields"] = sorted({*detail.get("truncated_fields", []), longest})
        text = compact_json(detail)
    return detail, text
