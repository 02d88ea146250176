"""Shared output for the search commands: a readable table or JSON, errors as CommandError."""

from __future__ import annotations

import contextlib
import json
import unicodedata
from collections.abc import Iterator
from typing import Any

from django.core.management.base import CommandError, CommandParser

from listings import contacts
from listings.errors import SearchError
from listings.filters import FILTER_NAMES


def one_of(allowed: tuple[str, ...], mode: str = "") -> str:
    """The help of an option whose values are a Literal of listings.types. No argparse
    `choices`: the search functions refuse a bad value with the same message as the tools."""
    return (f"{mode} mode: " if mode else "") + "one of " + ", ".join(allowed)


def add_filter_arguments(parser: CommandParser) -> None:
    """--city, --deal-type, --min-price ... one option per filter; --rooms for rooms_count."""
    for name in FILTER_NAMES:
        option = "--" + name.replace("_", "-")
        parser.add_argument(option, dest=f"filter_{name}", default=None, help=f"filter {name}")
    parser.add_argument(
        "--rooms", dest="filter_rooms_count_alias", default=None, help="same as --rooms-count"
    )


def filters_from(options: dict[str, Any]) -> dict[str, Any]:
    filters = {
        key.removeprefix("filter_"): value
        for key, value in options.items()
        if key.startswith("filter_") and value is not None and key != "filter_rooms_count_alias"
    }
    if options.get("filter_rooms_count_alias") is not None:
        filters["rooms_count"] = options["filter_rooms_count_alias"]
    if filters.get("has_balcony") is not None:
        filters["has_balcony"] = str(filters["has_balcony"]).lower() in {"1", "true", "yes", "так"}
    return filters


@contextlib.contextmanager
def command_errors() -> Iterator[None]:
    try:
        yield
    except SearchError as exc:
        raise CommandError(f"{exc.code}: {printable(exc.message)}") from None


def dump_json(model: Any, *, show_contacts: bool = False) -> str:
    # Contacts are masked in command output too, unless the operator asks (--show-contacts).
    model = contacts.redact(model, show_contacts=show_contacts)
    if hasattr(model, "model_dump"):
        model = model.model_dump(mode="json")
    text = json.dumps(model, ensure_ascii=False, indent=2, default=str)
    # Still valid JSON: such characters only occur inside strings, where \\uXXXX means them.
    return "".join(_json_escape(char) if _unsafe(char) and char != "\n" else char for char in text)


# Zero-width (non-)joiners hold emoji and Indic words together; every other control or
# format character (BEL, ESC, the bidi overrides) is shown as an escape.
KEPT_FORMAT_CHARACTERS = frozenset({"\u200c", "\u200d"})
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _unsafe(char: str) -> bool:
    return unicodedata.category(char) in UNSAFE_CATEGORIES and char not in KEPT_FORMAT_CHARACTERS


def _json_escape(char: str) -> str:
    encoded = char.encode("utf-16-be")
    return "".join(
        f"\\u{int.from_bytes(encoded[i : i + 2], 'big'):04x}" for i in range(0, len(encoded), 2)
    )


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(text: str) -> str:
    """`text` safe for the operator's terminal: control and format characters from the
    listings (BEL, ESC sequences, RTL overrides) become visible escapes such as \\x07, \\u202e."""
    return "".join(_escape(char) if _unsafe(char) else char for char in text)


def _cell(value: Any, width: int) -> str:
    text = "" if value is None else str(value)
    if isinstance(value, float):
        text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"  # 0.841, 44.5
    text = printable(" ".join(text.split()))
    return text[: width - 1] + "…" if len(text) > width else text.ljust(width)


def table(rows: list[dict[str, Any]], columns: list[tuple[str, str, int]]) -> str:
    header = " ".join(_cell(title, width) for _, title, width in columns)
    lines = [header, "-" * len(header)]
    lines += [" ".join(_cell(row.get(key), width) for key, _, width in columns) for row in rows]
    return "\n".join(line.rstrip() for line in lines)


def page_table(page: Any) -> str:
    score = {
        "semantic": ("similarity_score", "similarity"),
        "similar": ("similarity_score", "similarity"),
        "hybrid": ("fused_score", "fused"),
        "fulltext": ("rank_score", "rank"),
    }.get(page.mode, ("rank_score", "rank"))
    rows = [card.model_dump() for card in page.listings]
    for row in rows:
        row["price_text"] = (
            f"{row['price']:,.0f} {row['currency']}" if row["price"] is not None else "—"
        )
        row["area_text"] = f"{row['total_area']:g}" if row["total_area"] is not None else "—"
    body = table(
        rows,
        [
            ("id", "id", 7),
            (score[0], score[1], 10),
            ("title", "title", 48),
            ("city", "city", 10),
            ("district", "district", 16),
            ("rooms_count", "rooms", 5),
            ("area_text", "m²", 6),
            ("price_text", "price", 14),
            ("deal_type", "deal", 10),
        ],
    )
    shown = f"{page.offset + 1}–{page.offset + page.rows()}" if page.listings else "0"
    exact = "" if page.total_exact else "≈"
    head = f"mode: {page.mode}   showing {shown} of {exact}{page.total}"
    interpreted = getattr(page, "interpreted", None)
    if interpreted is not None:
        head += f"\n{printable(interpreted.summary)}   text: {printable(interpreted.text or '—')}"
        if interpreted.translated:
            pairs = (f"{given} → {word}" for given, word in interpreted.translated.items())
            head += f"\nin Ukrainian too: {printable(', '.join(pairs))}"
        for reason in dict.fromkeys(interpreted.refused.values()):
            head += f"\nnot applied: {printable(reason)}"
    for warning in getattr(page, "warnings", None) or ():
        head += f"\nwarning: {printable(warning)}"
    folded = [card for card in page.listings if card.duplicate_ids]
    if folded:
        head += f"\nduplicates folded ({page.duplicates_collapsed}): " + "; ".join(
            f"#{card.id} also as " + ", ".join(f"#{i}" for i in card.duplicate_ids)
            for card in folded
        )
    if getattr(page, "embedding_note", None):
        head += f"\nnote: {printable(page.embedding_note)}"
    for dropped in getattr(page, "if_dropped", None) or ():
        total = f"{'' if dropped.total_exact else '≥'}{dropped.total}"
        head += f"\nwithout {', '.join(dropped.dropped)}: {total} listings"
    return f"{head}\n{body}"
