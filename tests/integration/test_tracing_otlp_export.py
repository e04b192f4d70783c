"""Spans leave the process over OTLP/HTTP to the collector named by HAND_OTLP_ENDPOINT: a
real exporter, posting protobuf to a local HTTP server that stands in for the collector
(the edge we do not own). The OTLP/gRPC exporter it replaces aborted a room instance at
start beside grpc.aio (decision 0021)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from hand_common import tracing


@pytest.fixture
def collector():
    received: list[tuple[str, str, bytes]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((self.path, self.headers.get("Content-Type", ""), body))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


def test_a_span_reaches_the_collector_as_otlp_protobuf_over_http(collector) -> None:
    endpoint, received = collector
    assert tracing.configure_tracing("hand_test", {"HAND_OTLP_ENDPOINT": endpoint}, install_global=False)
    try:
        with tracing.start_span("room.append", commands=3):
            pass
        assert tracing._state["provider"].force_flush(10_000)
    finally:
        tracing.disable_tracing()
    assert received, "nothing was exported"
    path, content_type, body = received[0]
    assert path == "/v1/traces" and content_type == "application/x-protobuf"
    request = ExportTraceServiceRequest.FromString(body)
    spans = [s for r in request.resource_spans for ss in r.scope_spans for s in ss.spans]
    assert [s.name for s in spans] == ["room.append"]
    assert {a.key: a.value.int_value for a in spans[0].attributes} == {"commands": 3}
    service = {a.key: a.value.string_value for a in request.resource_spans[0].resource.attributes}
    assert service["service.name"] == "hand_test"


@pytest.mark.parametrize("endpoint, url", [
    ("http://jaeger:4318", "http://jaeger:4318/v1/traces"),
    ("http://jaeger:4318/", "http://jaeger:4318/v1/traces"),
    ("https://otel.example/custom/traces", "https://otel.example/custom/traces"),
])
def test_the_endpoint_names_the_collector_and_v1_traces_is_added(endpoint: str, url: str) -> None:
    assert tracing.traces_url(endpoint) == url
