"""Every RPC is measured at the shared edge: a real rules server (native gRPC) and the browser
bridge (Connect, gRPC-Web) beside it, the process's /metrics endpoint scraped over HTTP before
and after calls — counters and histograms move with the method, transport, status code and
RuleError code, and no label carries anything but those."""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import AsyncIterator

import grpc
import pytest
from connectrpc.client import ConnectClient
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from prometheus_client.parser import text_string_to_metric_families

from hand.v1 import rules_service_pb2 as pb
from hand.v1 import rules_service_pb2_grpc as pb_grpc
from hand_common.metrics import serve_metrics
from hand_rules.server import RulesServer
from hand_rules.settings import RulesConfig
from hand_web.adapter import method_info
from hand_web.server import WebServer
from hand_web.settings import WebConfig

SERVICE = pb.DESCRIPTOR.services_by_name["RulesService"]
RPC_LABELS = {"service", "method", "transport", "code", "error_code"}


@pytest.fixture
async def stack() -> AsyncIterator[tuple[RulesServer, WebServer, str]]:
    rules = RulesServer(RulesConfig.from_env({"HAND_RULES_PORT": "0"}).server)
    await rules.start()
    web = WebServer(WebConfig.from_env({"HAND_WEB_PORT": "0"}),
                    [(rules.servicer, rules.servicer_descriptor, rules.interceptors)])
    await web.start()
    endpoint = serve_metrics("HAND_RULES_METRICS_PORT", {"HAND_RULES_METRICS_PORT": "0"})
    assert endpoint is not None and endpoint.port > 0
    try:
        yield rules, web, endpoint.url
    finally:
        endpoint.stop()
        await web.stop()
        await rules.stop(0)


async def scrape(url: str) -> dict[tuple[str, frozenset], float]:
    """Every sample of the endpoint: (name, labels) → value."""
    def get() -> str:
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200
            return response.read().decode()
    text = await asyncio.to_thread(get)
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(samples, name: str, **labels: str) -> float:
    wanted = {k: v for k, v in labels.items()}
    return sum(v for (n, ls), v in samples.items() if n == name and wanted.items() <= dict(ls).items())


def echo_labels(transport: str, code: str = "OK", error_code: str = "") -> dict[str, str]:
    return {"service": "hand.v1.RulesService", "method": "Echo", "transport": transport,
            "code": code, "error_code": error_code}


async def test_native_calls_count_with_their_method_code_and_rule_error(stack) -> None:
    rules, _web, url = stack
    before = await scrape(url)
    async with grpc.aio.insecure_channel(rules.target) as channel:
        stub = pb_grpc.RulesServiceStub(channel)
        for _ in range(3):
            await stub.Echo(pb.EchoRequest(payload=b"x"))
        with pytest.raises(grpc.aio.AioRpcError):
            await stub.ApplyAction(pb.ApplyActionRequest())  # no state: INVALID_ARGUMENT
        with pytest.raises(grpc.aio.AioRpcError):  # the door: a field over its limit
            await stub.StartRound(pb.StartRoundRequest(rules={"preset": "x" * 40}, seats=4, seed=1))
    after = await scrape(url)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("hand_rpc_server_requests_total", **echo_labels("grpc")) == 3
    assert moved("hand_rpc_server_duration_seconds_count", service="hand.v1.RulesService", method="Echo",
                 transport="grpc", code="OK") == 3
    assert moved("hand_rpc_server_duration_seconds_bucket", method="Echo", transport="grpc", code="OK",
                 le="+Inf") == 3
    assert moved("hand_rpc_server_requests_total", method="ApplyAction", transport="grpc",
                 code="INVALID_ARGUMENT", error_code="INVALID_ARGUMENT") == 1
    assert moved("hand_rpc_server_requests_total", method="StartRound", transport="grpc",
                 code="INVALID_ARGUMENT", error_code="LIMIT_EXCEEDED") == 1
    for (name, labels), _ in after.items():  # bounded label sets: nothing else is a label
        if name.startswith("hand_rpc_server_requests"):
            assert {k for k, _ in labels} == RPC_LABELS


@pytest.mark.parametrize("protocol,transport", [(ProtocolType.CONNECT, "connect"),
                                                (ProtocolType.GRPC_WEB, "grpc-web")])
async def test_browser_calls_count_under_their_transport(stack, protocol, transport: str) -> None:
    _rules, web, url = stack
    before = await scrape(url)
    async with ConnectClient(web.url.rstrip("/"), protocol=protocol, codec=google_protobuf_binary_codec(),
                             send_compression=None) as client:
        await client.execute_unary(request=pb.EchoRequest(payload=b"x"), method=method_info(SERVICE, "Echo"))
        with pytest.raises(ConnectError):
            await client.execute_unary(request=pb.ApplyActionRequest(),
                                       method=method_info(SERVICE, "ApplyAction"))
    after = await scrape(url)
    assert value(after, "hand_rpc_server_requests_total", **echo_labels(transport)) \
        - value(before, "hand_rpc_server_requests_total", **echo_labels(transport)) == 1
    refused = {"method": "ApplyAction", "transport": transport, "code": "INVALID_ARGUMENT",
               "error_code": "INVALID_ARGUMENT"}
    assert value(after, "hand_rpc_server_requests_total", **refused) \
        - value(before, "hand_rpc_server_requests_total", **refused) == 1
    assert value(after, "hand_rpc_server_duration_seconds_count", method="Echo", transport=transport) \
        > value(before, "hand_rpc_server_duration_seconds_count", method="Echo", transport=transport)


async def test_health_checks_are_not_counted(stack) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    rules, _web, url = stack
    async with grpc.aio.insecure_channel(rules.target) as channel:
        await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    after = await scrape(url)
    assert not any("Health" in dict(labels).get("service", "") for (_, labels) in after)
