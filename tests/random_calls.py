"""Random tool calls made from what a server says about itself: its tools/list and its
describe_schema. Mostly plausible arguments (present cities and enum spellings, numbers at
and past each bound, real ids), some junk, so that calls get past validation into the SQL
and the shaping of answers, where hostile data bites.

Used against the test database (tests/mcpserver) and the foreign ones (tests/foreign); the
checks on each answer stay with the callers.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

QUERY_WORDS = (
    "квартира", "будинок", "у Києві", "Львів", "2 кімнати", "двокімнатна", "до 50 тис",
    "від 1000 грн", "5/9", "біля метро", "з ремонтом", "з балконом", "після 2015 року",
    "крім", "або", "не", "подобово", "70 м2", "кухня 12", "з 3 по 5 поверх", "дом",
    "flat in Kyiv", "under $80k", "Шукаю", "приблизно", "10 соток", "у п'ятиповерхівці",
)  # fmt: skip
JUNK: tuple[Any, ...] = (
    "", " ", "\x00", "NaN", "-0", "1e309", "9" * 40, "'; DROP TABLE x; --", "%", "_", "\\",
    "Київ\u0301", "𝕂", "a" * 3000, "2024-02-30", "0001-01-01", "10000-01-01", "yesterday",
    "null", "[]", "USD ", "€", -1, 0, 2**63, -(2**63), 1e300, -1e-300, 0.5, True, None, [], {},
    ["Київ"], {"city": "Київ"},
)  # fmt: skip
DATES = ("2020-01-01", "2024-01-01", "2025-06-30", "2026-11-30", "2024-01-01T00:00:00+03:00")
COUNTS = (0, 1, 2, 3, 5, 9, 10, 16, 25, 40, 60, 100, 200, 201, 300, 1000, 10_000)
PRICES = (0, 100, 800, 5_000, 20_000, 50_000, 100_000, 1_000_000, 1e9)
CURRENCIES = ("USD", "UAH", "EUR", "usd", "грн", "$", "у.о.")
WEIRD_FILTER_NAMES = ("price", "price_max", "town", "__proto__", "city; DROP", "")


class CallMaker:
    """Arguments for any tool the server lists, drawn from a seeded generator."""

    def __init__(
        self,
        tools: Sequence[dict[str, Any]],
        schema: dict[str, Any],
        listing_ids: Sequence[int],
        *,
        seed: int,
        junk_share: float = 0.1,
    ) -> None:
        self.rng = random.Random(seed)
        self.junk_share = junk_share
        self.tools = {tool["name"]: tool["inputSchema"] for tool in tools}
        self.listing_ids = list(listing_ids)
        self.filter_types = schema["filters"]
        self.cities = list(schema["cities"]) or ["Київ"]
        self.present = {
            name: list(facts.get("present") or {}) for name, facts in schema["enums"].items()
        }
        self.property_types = [kind["slug"] for kind in schema["property_types"] if kind["slug"]]

    def call(self) -> tuple[str, dict[str, Any]]:
        name = self.rng.choice(sorted(self.tools))
        return name, self.arguments(name)

    def arguments(self, tool: str) -> dict[str, Any]:
        schema = self.tools[tool]
        required = set(schema.get("required", ()))
        arguments: dict[str, Any] = {}
        for name, spec in schema.get("properties", {}).items():
            if name not in required and self.rng.random() < 0.5:
                continue
            arguments[name] = self._junk() if self._junky() else self._argument(name, spec)
        if self.rng.random() < 0.03:
            arguments[self.rng.choice(WEIRD_FILTER_NAMES)] = self._junk()
        return arguments

    def _junky(self) -> bool:
        return self.rng.random() < self.junk_share

    def _junk(self) -> Any:
        return self.rng.choice(JUNK)

    def _argument(self, name: str, spec: dict[str, Any]) -> Any:
        if name == "filters":
            return self.filters()
        if name == "query":
            words = self.rng.choices(QUERY_WORDS, k=self.rng.randint(1, 6))
            return " ".join(words)
        if name == "listing_id":
            return self.rng.choice([*self.listing_ids, 0, -1, 2**31, 2**63])
        if "enum" in spec:
            return self.rng.choice(spec["enum"])
        kinds = spec.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if "boolean" in kinds:
            return self.rng.choice([True, False])
        if "integer" in kinds or "number" in kinds:
            low, high = spec.get("minimum", 0), spec.get("maximum", 100)
            inside = self.rng.uniform(low, high)
            return self.rng.choice(
                [low, high, low - 1, high + 1, round(inside) if "integer" in kinds else inside]
            )
        if name in ("group_by", "period", "currency"):  # enums described elsewhere
            return self.rng.choice(
                {"currency": CURRENCIES, "period": ("month", "week", "quarter", "year", "day")}
                .get(name, ("city", "rooms_count", "property_type", "metro_station", "colour"))
            )  # fmt: skip
        return self._junk()

    def filters(self) -> dict[str, Any]:
        names = list(self.filter_types)
        chosen = self.rng.sample(names, k=min(len(names), self.rng.randint(0, 5)))
        return {name: self._junk() if self._junky() else self._filter(name) for name in chosen}

    def _filter(self, name: str) -> Any:
        kind = str(self.filter_types[name].get("type", ""))
        allowed = self.present.get(name) or self.filter_types[name].get("allowed_values")
        if allowed and self.rng.random() < 0.8:
            return self.rng.choice(allowed)
        if name == "city":
            return self.rng.choice(self.cities)
        if name == "property_type":
            return self.rng.choice(self.property_types or ["apartment"])
        if name == "currency":
            return self.rng.choice(CURRENCIES)
        if "bool" in kind:
            return self.rng.choice([True, False])
        if "date" in kind:
            return self.rng.choice(DATES)
        if "year" in name:
            return self.rng.randint(1850, 2035)
        if "price" in name:
            return self.rng.choice(PRICES)
        if "int" in kind or "float" in kind:
            return self.rng.choice(COUNTS)
        return self.rng.choice(QUERY_WORDS)
