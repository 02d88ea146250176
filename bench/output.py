"""Where the benchmark commands write their JSON: `--out`, or bench/results/<name>-<time>.json."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandParser

RESULTS_DIR = Path(settings.BASE_DIR) / "bench" / "results"


def add_out_argument(parser: CommandParser) -> None:
    parser.add_argument(
        "--out", default="", help="JSON file (default bench/results/<name>-<time>.json)"
    )


def result_path(out: str, name: str) -> Path:
    """`out`, or bench/results/<name>-<UTC time>.json; its folder created."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    path = Path(out) if out else RESULTS_DIR / f"{name}-{stamp}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path
