"""Search quality on the labelled requests: precision@10 and nDCG@10 per mode and slice."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from bench import quality
from bench.output import add_out_argument, result_path
from listings import search
from listings.embedders import get_embedder
from listings.models import PropertyListing


class Command(BaseCommand):
    help = (
        "Run the labelled requests (bench/quality/requests.json) in every mode, with and "
        "without interpretation; print precision@10 and nDCG@10 by slice (Ukrainian, Russian, "
        "English, typos, numeric constraints) and write JSON to bench/results/."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--modes", default="semantic,text,hybrid")
        parser.add_argument("--requests", type=int, default=0, help="only the first N")
        add_out_argument(parser)

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
        self.stdout.write(f"read beyond the judge: {report.beyond or 'none'}")
        result = {
            "when": datetime.now(UTC).isoformat(timespec="seconds"),
            "embedder": embedder,
            "listings": listings,
            "fts_config": search._fts_config(),
            "runs": runs,
            "skipped": report.skipped,
            "read_beyond": {str(key): value for key, value in report.beyond.items()},
            "per_request": [
                {
                    "id": o.request["id"],
                    "query": o.request["query"],
                    "mode": o.mode,
                    "interpret": o.interpret,
                    "p10": o.precision,
                    "ndcg10": round(o.ndcg, 3),
                    "satisfied": None if o.satisfied is None else round(o.satisfied, 3),
                    "error": o.error,
                }
                for o in report.outcomes
            ],
        }
        safe = embedder.replace(":", "-")
        out = result_path(options["out"], f"quality-{safe}-{listings}")
        out.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
        self.stdout.write(f"written: {out}")
