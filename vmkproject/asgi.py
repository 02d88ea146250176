"""One ASGI app: /mcp for agents, /health for probes, everything else Django (admin)."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vmkproject.settings")

from django.core.asgi import get_asgi_application

from vmkproject import telemetry

# Before Django loads its middleware: the Django instrumentation adds its own.
telemetry.setup()
django_app = get_asgi_application()

from vmkproject.app import build_app  # noqa: E402

application = build_app(django_app)
