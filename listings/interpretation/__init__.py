"""Requests understood: a Ukrainian, Russian or English request read into typed filters
plus the remaining text (parser.py and the rules' modules), and place names resolved
against the values present (places.py). Pure: the search layer (listings.understanding)
supplies the live values."""

from .parser import interpret, property_type_named
from .places import PLACE_COLUMNS, Gazetteer
from .request import Chip, Interpretation

__all__ = [
    "PLACE_COLUMNS",
    "Chip",
    "Gazetteer",
    "Interpretation",
    "interpret",
    "property_type_named",
]
