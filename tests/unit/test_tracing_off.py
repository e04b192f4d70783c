"""With no OTLP endpoint configured, tracing costs nothing: no SDK tracer provider is installed,
spans are one shared no-op context manager, Kafka records carry no headers, logs no trace id."""

from __future__ import annotations

from opentelemetry import trace

from hand_common import tracing
from hand_infra import kafka_trace


def test_no_endpoint_installs_no_exporter_and_spans_are_free() -> None:
    assert tracing.configure_tracing("hand_test", {}) is False
    assert not tracing.enabled()
    provider = trace.get_tracer_provider()
    assert not type(provider).__module__.startswith("opentelemetry.sdk"), provider
    assert tracing.start_span("room.append") is tracing.start_span("other", events=3)  # one shared object
    with tracing.start_span("room.append"):
        assert not trace.get_current_span().get_span_context().is_valid
    assert kafka_trace.headers() is None
    assert tracing.inject() == {}
    assert tracing.extract([("traceparent", "00-" + "1" * 32 + "-" + "2" * 16 + "-01")]) is None
    kafka_trace.remember_append("room", [0, 1])
    assert kafka_trace.PENDING.take("room", 0) is None
    assert tracing.add_trace_ids(None, "info", {"event": "x"}) == {"event": "x"}


def test_an_invalid_sample_ratio_is_a_configuration_error() -> None:
    import pytest

    from hand_common.env import ConfigError
    with pytest.raises(ConfigError, match="HAND_TRACE_SAMPLE_RATIO"):
        tracing.configure_tracing("hand_test", {"HAND_OTLP_ENDPOINT": "http://x:4318",
                                                "HAND_TRACE_SAMPLE_RATIO": "2"})
    assert not tracing.enabled()
