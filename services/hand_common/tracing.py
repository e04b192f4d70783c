"""OpenTelemetry traces: on when an OTLP endpoint is configured, free when not.

``configure_tracing(service)`` (called once per process by
``serve_until_signalled``, the bot's ``__main__`` and ``hand_run``) installs the
SDK's ``TracerProvider`` with a batching OTLP/HTTP exporter (protobuf, the
collector's ``/v1/traces``) only when ``HAND_OTLP_ENDPOINT`` is set; otherwise nothing is installed and
``start_span`` hands back one shared ``nullcontext`` — no span object, no
context switch (docs/decisions/0021-metrics-and-traces.md). With tracing on,
gRPC clients made afterwards carry the context (``opentelemetry-instrumentation-grpc``'s
client instrumentation); the server side is a span of the edge
(``hand_common.rpc_metrics``), for native gRPC and the browser protocol
alike; Kafka records carry it in their headers (``hand_infra.kafka_trace``).

    with start_span("room.append", events=3):
        ...

Log lines carry ``trace_id`` and ``span_id`` (``add_trace_ids``, a structlog
processor of ``hand_common.logging``) while a span is current.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace

from .env import EnvReader, EnvVar, number

__all__ = [
    "add_trace_ids", "configure_tracing", "current", "disable_tracing", "enabled", "extract", "inject",
    "record_span", "start_span",
]

OTLP_ENDPOINT = EnvVar(
    "HAND_OTLP_ENDPOINT", "",
    "OpenTelemetry collector (OTLP over HTTP, e.g. http://jaeger:4318; /v1/traces is added) that "
    "traces are exported to; empty: tracing off (no SDK installed, near-zero cost)"
)
TRACE_SAMPLE_RATIO = EnvVar(
    "HAND_TRACE_SAMPLE_RATIO", "1",
    "share of new traces recorded when HAND_OTLP_ENDPOINT is set (0 to 1; a caller's sampled flag is "
    "followed)",
    number(0, 1),
)

_NULL = contextlib.nullcontext()
_state: dict[str, Any] = {"tracer": None, "provider": None}


def enabled() -> bool:
    """Whether spans are recorded in this process."""
    return _state["tracer"] is not None


def configure_tracing(service: str, environ: Mapping[str, str] | None = None, *,
                      exporter: Any = None, install_global: bool = True) -> bool:
    """Install tracing for ``service`` when ``HAND_OTLP_ENDPOINT`` is set (or an ``exporter``
    is given: tests pass an in-memory one, exported synchronously). Returns whether it is on."""
    env = EnvReader(environ)
    endpoint = env.get(OTLP_ENDPOINT)
    ratio = env.get(TRACE_SAMPLE_RATIO)
    env.check("tracing")
    if not endpoint and exporter is None:
        return False
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
    from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

    provider = TracerProvider(resource=Resource.create({"service.name": service}),
                              sampler=ParentBased(TraceIdRatioBased(ratio)))
    if exporter is None:
        # OTLP over HTTP, not gRPC: the gRPC exporter's blocking channel, driven from the batch
        # processor's thread beside grpc.aio in the same process, once aborted a room instance
        # at start ("epoll_wait: Bad file descriptor", decision 0021)
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=traces_url(endpoint))))
    else:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    if install_global:
        trace.set_tracer_provider(provider)
        from opentelemetry.instrumentation.grpc import GrpcAioInstrumentorClient
        GrpcAioInstrumentorClient().instrument()  # channels made from now on inject the context
    _state.update(tracer=provider.get_tracer("hand"), provider=provider)
    return True


def traces_url(endpoint: str) -> str:
    """The collector's traces URL: ``endpoint`` itself when it names a path, else
    ``<endpoint>/v1/traces`` (OTLP/HTTP's default path)."""
    scheme, _, rest = endpoint.partition("://")
    if "/" in rest.strip("/"):
        return endpoint
    return endpoint.rstrip("/") + "/v1/traces"


def disable_tracing() -> None:
    """Stop recording (tests); spans already exported stay exported."""
    provider = _state["provider"]
    _state.update(tracer=None, provider=None)
    if provider is not None:
        provider.shutdown()


def start_span(name: str, *, context: Any = None, kind: trace.SpanKind = trace.SpanKind.INTERNAL,
               current: bool = True, **attributes: Any) -> Any:
    """A context manager: a span named ``name`` (a child of ``context``, else of the current
    span), current inside the block; the shared ``nullcontext`` while tracing is off.
    ``current=False``: the span is not made current (an async generator's)."""
    tracer = _state["tracer"]
    if tracer is None:
        return _NULL
    if current:
        return tracer.start_as_current_span(name, context=context, kind=kind, attributes=attributes)
    return _detached(tracer, name, context, kind, attributes)


@contextlib.contextmanager
def _detached(tracer: Any, name: str, context: Any, kind: Any, attributes: dict) -> Any:
    span = tracer.start_span(name, context=context, kind=kind, attributes=attributes)
    try:
        yield span
    except BaseException as exc:
        span.record_exception(exc)
        raise
    finally:
        span.end()


def current() -> Any:
    """The current context to hand to work done later or elsewhere; None while tracing is off."""
    return otel_context.get_current() if _state["tracer"] is not None else None


def record_span(name: str, context: Any, start_ns: int, end_ns: int, **attributes: Any) -> None:
    """A finished span of ``context``'s trace, from ``start_ns`` to ``end_ns`` (``time.time_ns``):
    one command's share of work done for many at once (a batch's store append). Nothing while
    tracing is off."""
    tracer = _state["tracer"]
    if tracer is not None:
        tracer.start_span(name, context=context, start_time=start_ns, attributes=attributes).end(end_time=end_ns)


def inject(carrier: dict[str, str] | None = None, context: Any = None) -> dict[str, str]:
    """The W3C ``traceparent`` (and ``tracestate``) of ``context`` (default: the current one)
    written into ``carrier``; empty while tracing is off."""
    carrier = {} if carrier is None else carrier
    if _state["tracer"] is not None:
        propagate.inject(carrier, context=context)
    return carrier


def extract(pairs: Iterable[tuple[str, Any]] | Mapping[str, Any] | None) -> Any:
    """The context a caller sent (gRPC metadata, HTTP or Kafka headers; bytes or text values);
    ``None`` while tracing is off or when it sent none."""
    if _state["tracer"] is None or not pairs:
        return None
    items = pairs.items() if isinstance(pairs, Mapping) else pairs
    carrier = {}
    for key, value in items:
        if key in ("traceparent", "tracestate"):
            carrier[key] = value.decode("latin-1") if isinstance(value, (bytes, bytearray)) else value
    return propagate.extract(carrier) if carrier else None


def add_trace_ids(_logger: Any, _name: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """structlog processor: ``trace_id`` and ``span_id`` of the current span, if any."""
    if _state["tracer"] is None:
        return event_dict
    span_context = trace.get_current_span(otel_context.get_current()).get_span_context()
    if span_context.is_valid:
        event_dict.setdefault("trace_id", format(span_context.trace_id, "032x"))
        event_dict.setdefault("span_id", format(span_context.span_id, "016x"))
    return event_dict
