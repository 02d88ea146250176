"""Search quality on labelled requests (bench_quality): precision@10 and nDCG@10 per mode,
with and without interpretation, by slice (language, numeric constraints, typos).

Each request in requests.json is judged by conditions on listing attributes, so the set
works on any generated database: a listing is relevant when it meets them all.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db.models import Q

from listings import search
from listings.filters import PRICE_FILTERS
from listings.querysets import enum_condition
from listings.results import SearchPage
from listings.search.understood import read_query

REQUESTS_FILE = Path(__file__).with_name("requests.json")
K = 10
ENUM_JUDGES = ("window_view", "parking_type", "heating_type", "bathroom_type", "layout_type")
EXTRA_JUDGES = (*ENUM_JUDGES, "metro", "text")
MODES: dict[str, Callable[..., SearchPage]] = {
    "semantic": search.semantic_search,
    "text": search.fulltext_search,
    "hybrid": search.hybrid_search,
}
SLICES: dict[str, Callable[[Mapping[str, Any]], bool]] = {
    "all": lambda r: True,
    "uk": lambda r: r["lang"] == "uk" and not r["typo"],
    "ru": lambda r: r["lang"] == "ru",
    "en": lambda r: r["lang"] == "en",
    "typos": lambda r: bool(r["typo"]),
    "numeric": lambda r: bool(r["numeric"]),
    "no_numeric": lambda r: not r["numeric"],
}


def load_requests(path: Path = REQUESTS_FILE) -> list[dict[str, Any]]:
    requests: list[dict[str, Any]] = json.loads(path.read_text("utf-8"))["requests"]
    return requests


def read_beyond(request: Mapping[str, Any]) -> dict[str, Any]:
    """The filters the request is read into that neither its judge nor its `implied` names
    (a price's currency aside), and those with another value than the judge's named one:
    what the reader added that the person did not ask for, as "apartment with a pool" read
    as the district Поділ. Its cards can still all be relevant, so nDCG alone may not show
    it."""
    judge = request["judge"]
    allowed = {*judge, *request.get("implied", ()), "currency"}
    filters = read_query(request["query"]).filters
    return {
        name: value
        for name, value in filters.items()
        # a value named otherwise than the judge's (a rent for a sale, another city) too
        if name not in allowed or (isinstance(judge.get(name), str) and value != judge[name])
    }


def judged(judge: Mapping[str, Any]) -> Any:
    """Active listings that meet every condition of `judge`."""
    filters = {key: value for key, value in judge.items() if key not in EXTRA_JUDGES}
    qs = search._filtered(search._resolved(filters))
    vocab = search.live_vocabulary()
    for column in ENUM_JUDGES:
        if column in judge:
            qs = qs.filter(enum_condition(column, str(judge[column]), vocab))
    if judge.get("metro"):
        qs = qs.filter(metro_station__isnull=False).exclude(metro_station="")
    if judge.get("text"):
        condition = Q()
        for word in judge["text"]:
            condition |= Q(title__icontains=word) | Q(description__icontains=word)
        qs = qs.filter(condition)
    return qs


# The judge's conditions that are numeric constraints (the target: ≥ 0.95 of the top
# 10 of every request that has one satisfy it).
NUMERIC_JUDGES = (
    "rooms_count",
    "min_rooms",
    "max_rooms",
    "min_price",
    "max_price",
    "min_price_per_m2",
    "max_price_per_m2",
    "currency",
    "min_area",
    "max_area",
    "floor",
    "min_floor",
    "max_floor",
    "not_top_floor",
    "min_floors_count",
    "max_floors_count",
    "min_kitchen_area",
    "max_kitchen_area",
    "min_living_area",
    "max_living_area",
    "min_building_year",
    "max_building_year",
    "max_metro_distance",
)
SATISFIED_TARGET = 0.95


def numeric_part(judge: Mapping[str, Any]) -> dict[str, Any]:
    """The numeric constraints of `judge` (currency only with a price), or {}."""
    part = {key: value for key, value in judge.items() if key in NUMERIC_JUDGES}
    if not PRICE_FILTERS & set(part):
        part.pop("currency", None)
    return part


def ndcg(relevant: Sequence[bool], ideal_hits: int, k: int = K) -> float:
    dcg = sum(1.0 / math.log2(rank + 2) for rank, hit in enumerate(relevant[:k]) if hit)
    best = sum(1.0 / math.log2(rank + 2) for rank in range(min(k, ideal_hits)))
    return dcg / best if best else 0.0


@dataclass
class Outcome:
    request: dict[str, Any]
    mode: str
    interpret: bool
    precision: float
    ndcg: float
    ms: float
    error: str | None = None
    # Share of the returned top 10 that meet the request's numeric constraints (None: none).
    satisfied: float | None = None


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)  # requests no listing meets
    # request id -> the filters read beyond its judge (read_beyond), where there are any
    beyond: dict[int, dict[str, Any]] = field(default_factory=dict)

    def table(self) -> dict[str, dict[str, dict[str, Any]]]:
        """run ('hybrid+interpret') -> slice -> {p10, ndcg10, n}."""
        runs: dict[str, dict[str, dict[str, Any]]] = {}
        for mode in MODES:
            for interpret in (False, True):
                name = mode + ("+interpret" if interpret else "")
                picked = [o for o in self.outcomes if o.mode == mode and o.interpret == interpret]
                runs[name] = {}
                for slice_name, wanted in SLICES.items():
                    chosen = [o for o in picked if wanted(o.request)]
                    if not chosen:
                        continue
                    runs[name][slice_name] = {
                        "p10": round(sum(o.precision for o in chosen) / len(chosen), 3),
                        "ndcg10": round(sum(o.ndcg for o in chosen) / len(chosen), 3),
                        "n": len(chosen),
                    }
                    shares = [o.satisfied for o in chosen if o.satisfied is not None]
                    if slice_name == "numeric" and shares:
                        runs[name][slice_name] |= {
                            "satisfied": round(sum(shares) / len(shares), 3),
                            "satisfied_min": round(min(shares), 3),
                            "below_target": sorted(
                                o.request["id"]
                                for o in chosen
                                if o.satisfied is not None and o.satisfied < SATISFIED_TARGET
                            ),
                        }
                runs[name]["all"]["ms_mean"] = round(
                    sum(o.ms for o in picked) / max(1, len(picked)), 1
                )
        return runs


def run(requests: Sequence[dict[str, Any]], modes: Sequence[str] = tuple(MODES)) -> Report:
    report = Report()
    for request in requests:
        beyond = read_beyond(request)
        if beyond:
            report.beyond[request["id"]] = beyond
        relevant_qs = judged(request["judge"])
        ideal, _ = search.capped_count(relevant_qs, K)
        if not ideal:
            report.skipped.append(request["id"])
            continue
        for mode in modes:
            for interpret in (False, True):
                started = time.perf_counter()
                try:
                    page = MODES[mode](query=request["query"], limit=K, interpret=interpret)
                except search.SearchError as exc:
                    outcome = Outcome(request, mode, interpret, 0.0, 0.0, 0.0, exc.code)
                    report.outcomes.append(outcome)
                    continue
                ms = (time.perf_counter() - started) * 1000
                ids = [card.id for card in page.listings]
                hits = set(relevant_qs.filter(id__in=ids).values_list("id", flat=True))
                marks = [listing_id in hits for listing_id in ids]
                satisfied = None
                constraints = numeric_part(request["judge"])
                if constraints:
                    meeting = judged(constraints).filter(id__in=ids).count()
                    satisfied = meeting / len(ids) if ids else 0.0
                report.outcomes.append(
                    Outcome(
                        request,
                        mode,
                        interpret,
                        sum(marks) / K,
                        ndcg(marks, ideal),
                        ms,
                        satisfied=satisfied,
                    )
                )
    return report


def format_table(runs: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    slices = [name for name in SLICES if any(name in row for row in runs.values())]
    header = f"{'run':<20}" + "".join(f"{name:>11}" for name in slices) + f"{'P@10':>8}{'ms':>7}"
    lines = [header, "nDCG@10 by slice".rjust(len(header) // 2), "-" * len(header)]
    for name, row in runs.items():
        cells = "".join(f"{row[s]['ndcg10']:>11.3f}" if s in row else f"{'—':>11}" for s in slices)
        lines.append(f"{name:<20}{cells}{row['all']['p10']:>8.3f}{row['all']['ms_mean']:>7.0f}")
    counts = "  ".join(f"{s}={runs[next(iter(runs))][s]['n']}" for s in slices)
    lines.append(f"requests per slice: {counts}")
    lines.append(
        f"numeric constraints met by the top {K} (mean / worst / requests under "
        f"{SATISFIED_TARGET}):"
    )
    for name, row in runs.items():
        numeric = row.get("numeric", {})
        if "satisfied" in numeric:
            lines.append(
                f"  {name:<18}{numeric['satisfied']:>7.3f}{numeric['satisfied_min']:>7.3f}  "
                f"{numeric['below_target']}"
            )
    return "\n".join(lines)
