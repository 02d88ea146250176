"""The command-line table never sends raw control characters to the operator's terminal."""

from __future__ import annotations

import json

from listings.management.commands._output import dump_json, page_table, printable, table
from listings.results import ListingCard, SearchPage

HOSTILE = "Квартира\x07 \u202eабв\x1b[31m червона\x1b[0m 👨‍👩‍👧"


def card(**fields) -> ListingCard:
    required = [name for name, field in ListingCard.model_fields.items() if field.is_required()]
    base = dict.fromkeys(required, None)
    base.update(id=7, **fields)
    return ListingCard(**base)


def test_printable_escapes_bel_esc_and_rtl_override_visibly():
    assert printable(HOSTILE) == "Квартира\\x07 \\u202eабв\\x1b[31m червона\\x1b[0m 👨‍👩‍👧"


def test_page_table_shows_escapes_not_control_characters():
    page = SearchPage(
        total=1,
        limit=10,
        offset=0,
        mode="fulltext",
        listings=[card(title=HOSTILE, city="Київ\u200f", district="Поділ\x00", price=1.5)],
    )
    text = page_table(page)
    assert "\\x07" in text
    assert "\\u202e" in text
    assert "\\u200f" in text
    assert "\\x00" in text
    for char in ("\x07", "\x1b", "\u202e", "\u200f", "\x00"):
        assert char not in text


def test_table_cells_of_any_value():
    text = table([{"group": "Львів\x1b]0;owned\x07"}], [("group", "city", 30)])
    assert "\x1b" not in text
    assert "\\x1b]0;owned\\x07" in text


def test_json_output_stays_valid_json_with_the_same_text():
    page = SearchPage(total=1, limit=10, offset=0, mode="filter", listings=[card(title=HOSTILE)])
    text = dump_json(page)
    for char in ("\x07", "\x1b", "\u202e"):
        assert char not in text
    assert json.loads(text)["listings"][0]["title"] == HOSTILE
    astral = dump_json({"t": "tag\U000e0041"})
    assert json.loads(astral) == {"t": "tag\U000e0041"}
    assert "\\udb40\\udc41" in astral
