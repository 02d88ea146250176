"""Search quality on the labelled requests: precision@10 and nDCG@10 per mode and slice."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from bench import quality
from listings import search
from listings.embedders import get_embedder
from listings.models import PropertyListing

RESULTS_DIR = Path(settings.BASE_DIR) / "bench" / "results"


class Command(BaseCommand):
    help = (
        "Run the labelled requests (bench/quality/requests.json) in every mode, with and "
        "without interpretation; print precision@10 and nDCG@10 by slice (Ukrainian, Russian, "
        "English, typos, numeric constraints) and write JSON to bench/results/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--modes", default="semantic,text,hybrid")
        parser.add_argument("--requests", type=int, default=0, help="only the first N")
        parser.add_argument("--out", default="", help="JSON file (default bench/results/...)")

    def handle(self, *args: Any, **options: Any) -> None:
        requests = quality.load_requests()
        if options["requests"]:
            requests = requests[: options["requests"]]
        modes = [m for m in str(options["modes"]).split(",") if m in quality.MODES]
        report = quality.run(requests, modes)
        runs = report.table()
        embedder = get_embedder().name
        listings = PropertyListing.objects.count()
        self.stdout.write(f"embedder: {embedder}   listings: {listings}")
        self.stdout.write(quality.format_table(runs))
        if report.skipped:
            self.stdout.write(f"skipped (no listing meets the judge): {report.skipped}")
        result = {
            "when": datetime.now(UTC).isoformat(timespec="seconds"),
            "embedder": embedder,
            "listings": listings,
            "fts_config": search._fts_config(),
            "runs": runs,
            "skipped": report.skipped,
            "per_request": [
                {
                    "id": o.request["id"],
                    "query": o.request["query"],
                    "mode": o.mode,
                    "interpret": o.interpret,
                    "p10": o.precision,
                    "ndcg10": round(o.ndcg, 3),
                    "error": o.error,
                }
                for o in report.outcomes
            ],
        }
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        safe = embedder.replace(":", "-")
        out = Path(options["out"] or RESULTS_DIR / f"quality-{safe}-{listings}-{stamp}.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
        self.stdout.write(f"written: {out}")
