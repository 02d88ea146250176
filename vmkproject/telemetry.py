"""OpenTelemetry traces: off unless an exporter is configured (the standard OTEL_* variables).

The MCP SDK already opens one SERVER span per inbound message (`tools/call <tool>`, with
`mcp.method.name`, `gen_ai.tool.name`, `gen_ai.operation.name`, `jsonrpc.request.id`,
`mcp.protocol.version`, `error.type`) and takes the parent from the request's
`_meta.traceparent`; this module only installs the SDK's TracerProvider and exporter so those
spans go somewhere, adds the children (embedding, each database statement, the audit
enqueue), takes the parent from the HTTP `traceparent` header when `_meta` has none, and
instruments Django (admin). With tracing off every helper here is a no-op.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace

logger = logging.getLogger("vmk.telemetry")

# True once setup() installed a provider; every hot-path helper checks it first.
enabled = False
tracer = trace.get_tracer("vmk-data-mcp")


def setup(
    exporters: list[Any] | None = None, *, simple: bool = False, instrument_django: bool = True
) -> bool:
    """Install the tracer provider once per process (before Django loads its middleware).

    `exporters` replaces the ones named by OTEL_TRACES_EXPORTER (tests pass an in-memory one;
    `simple` exports each span as it ends instead of in batches).
    """
    global enabled
    if enabled:
        return True
    from django.conf import settings

    if exporters is None:
        exporters = _configured_exporters(settings.OTEL_TRACES_EXPORTERS)
        if not exporters:
            return False
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    # OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and OTEL_BSP_* are read by the SDK itself.
    provider = TracerProvider(resource=Resource.create({"service.name": settings.OTEL_SERVICE}))
    for exporter in exporters:
        processor = SimpleSpanProcessor(exporter) if simple else BatchSpanProcessor(exporter)
        provider.add_span_processor(processor)
    trace.set_tracer_provider(provider)
    if instrument_django:
        from opentelemetry.instrumentation.django import DjangoInstrumentor

        # Admin pages get one SERVER span per request; /mcp is the MCP SDK's (not Django's).
        DjangoInstrumentor().instrument(tracer_provider=provider)
    enabled = True
    return True


def _configured_exporters(names: list[str]) -> list[Any]:
    exporters: list[Any] = []
    for name in names:
        if name == "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            # OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT are read by the exporter.
            exporters.append(OTLPSpanExporter())
        elif name == "console":
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter

            exporters.append(ConsoleSpanExporter())
    return exporters


def shutdown() -> None:
    """Export what is buffered (the batch processor) before the process ends."""
    if enabled:
        provider = trace.get_tracer_provider()
        with contextlib.suppress(Exception):
            provider.shutdown()  # type: ignore[attr-defined]


@contextlib.contextmanager
def span(name: str, attributes: Mapping[str, Any] | None = None) -> Iterator[Any]:
    """A child span of the current one; yields None (and costs nothing) with tracing off."""
    if not enabled:
        yield None
        return
    with tracer.start_as_current_span(name, attributes=attributes) as current:
        yield current


def set_attributes(current: Any, attributes: Mapping[str, Any]) -> None:
    if current is not None:
        current.set_attributes({k: v for k, v in attributes.items() if v is not None})


def traceparent() -> str | None:
    """The W3C traceparent of the current span, or None (tracing off, or no span)."""
    if not enabled:
        return None
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier.get("traceparent")


def ids() -> tuple[str, str] | None:
    """(trace id, span id) of the current span in hex, or None."""
    if not enabled:
        return None
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return format(context.trace_id, "032x"), format(context.span_id, "016x")


@contextlib.contextmanager
def context_from_headers(headers: list[tuple[bytes, bytes]]) -> Iterator[None]:
    """Make an HTTP request's `traceparent`/`tracestate` headers the current context.

    The MCP SDK parents its span on `_meta.traceparent` when a request carries one, and on
    the current context otherwise: this covers clients that only send the HTTP header.
    """
    if not enabled:
        yield
        return
    carrier = {
        name.decode("latin-1"): value.decode("latin-1")
        for name, value in headers
        if name in (b"traceparent", b"tracestate")
    }
    if "traceparent" not in carrier:
        yield
        return
    token = otel_context.attach(propagate.extract(carrier))
    try:
        yield
    finally:
        otel_context.detach(token)


# Commands that serve requests: their calls are traced one by one, not as one long span.
class TraceIdsFilter(logging.Filter):
    """Adds `trace_id` and `span_id` (empty outside a traced call) to every log record."""

    def filter(self, record: logging.LogRecord) -> bool:
        found = ids()
        record.trace_id, record.span_id = found if found else ("", "")
        return True
