"""OpenTelemetry tracing: one server span per call (only with ``--otel-endpoint``).

Needs the ``tracing`` extra; ``check_tracing`` in infra/settings.py refuses to
start without it. Spans go to an OTLP/gRPC collector through a batch
processor, so a call never waits for the collector. A client that sends W3C
trace context (``traceparent`` metadata) gets the server's span as a child of
its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import grpc
from opentelemetry import propagate, trace
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.propagators.textmap import Getter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from services.api.observe import Call, Observer

TRACER_NAME = "tabletop"
# The codes that mean the server failed; a refusal is the client's (semantic
# conventions for gRPC server spans).
SERVER_ERRORS = frozenset(
    {
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DATA_LOSS,
    }
)
Metadata = Sequence[tuple[str, str | bytes]]


class _MetadataGetter(Getter[Metadata]):
    """Reads W3C trace context headers from gRPC metadata."""

    def get(self, carrier: Metadata, key: str) -> list[str] | None:
        """Returns the text values of ``key``, or None."""
        values = [v for k, v in carrier if k == key and isinstance(v, str)]
        return values or None

    def keys(self, carrier: Metadata) -> list[str]:
        """Returns the metadata's keys."""
        return [k for k, _ in carrier]


_GETTER = _MetadataGetter()


def provider(endpoint: str) -> TracerProvider:
    """Returns a tracer provider that exports to the OTLP/gRPC ``endpoint``.

    ``service.name`` is ``tabletop`` unless ``OTEL_SERVICE_NAME`` says otherwise.
    """
    named = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": "tabletop"}
    traces = TracerProvider(resource=Resource.create(named))
    traces.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    return traces


def traced(tracer: trace.Tracer) -> Observer:
    """Returns an observer that wraps every call in a server span."""

    @contextmanager
    def observe(call: Call) -> Iterator[None]:
        attributes: dict[str, str] = {
            "rpc.system": "grpc",
            "rpc.service": call.service,
            "rpc.method": call.method,
        }
        if call.game_id:
            attributes["tabletop.game_id"] = call.game_id
        with tracer.start_as_current_span(
            call.full_method,
            context=propagate.extract(call.metadata, getter=_GETTER),
            kind=trace.SpanKind.SERVER,
            attributes=attributes,
            record_exception=False,  # an abort is how gRPC ends a refused call
            set_status_on_exception=False,
        ) as span:
            try:
                yield
            finally:
                span.set_attribute("rpc.grpc.status_code", call.code.value[0])
                if call.reason:
                    span.set_attribute("tabletop.error_reason", call.reason)
                if call.code in SERVER_ERRORS:
                    span.set_status(trace.StatusCode.ERROR, call.code.name)

    return observe
