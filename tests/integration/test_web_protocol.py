"""The browser protocol: the rules servicer over Connect and gRPC-Web (``hand_web``) answers as it
does over native gRPC — same payloads, same error codes, RuleError details and ar/en messages, the
same edge (the door's limits and undecodable-request refusals, rate limits shared with native gRPC)
— and CORS follows ``HAND_WEB_CORS_ORIGINS``."""

from __future__ import annotations

import http.client
from collections.abc import AsyncIterator

import grpc
import pytest
from connectrpc.client import ConnectClient
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType

from hand.v1 import errors_pb2
from hand.v1 import rules_service_pb2 as pb
from hand.v1 import rules_service_pb2_grpc as pb_grpc
from hand_common.config import RateLimitConfig
from hand_rules.server import RulesServer
from hand_rules.settings import RulesConfig
from hand_web.adapter import method_info
from hand_web.server import WebServer
from hand_web.settings import WebConfig

from .web_support import PROTOCOLS
from .web_support import client as _client
from .web_support import preflight as _preflight

SERVICE = pb.DESCRIPTOR.services_by_name["RulesService"]


@pytest.fixture
async def servers() -> AsyncIterator[tuple[RulesServer, WebServer]]:
    """A rules server on a free port and a web server exposing the same servicer object."""
    rules = RulesServer(RulesConfig.from_env({"HAND_RULES_PORT": "0"}).server)
    await rules.start()
    web = WebServer(WebConfig.from_env({"HAND_WEB_PORT": "0", "HAND_WEB_CORS_ORIGINS": "http://app.example"}),
                    [(rules.servicer, rules.servicer_descriptor, rules.interceptors)])
    await web.start()
    try:
        yield rules, web
    finally:
        await web.stop()
        await rules.stop(0)


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=["connect", "grpc-web"])
async def test_a_unary_call_answers_as_native_grpc_does(servers, protocol: ProtocolType) -> None:
    rules, web = servers
    async with grpc.aio.insecure_channel(rules.target) as channel:
        native = await pb_grpc.RulesServiceStub(channel).Echo(pb.EchoRequest(payload=b"hand"))
    async with ConnectClient(web.url.rstrip("/"), protocol=protocol, codec=google_protobuf_binary_codec(),
                             send_compression=None) as client:
        browser = await client.execute_unary(request=pb.EchoRequest(payload=b"hand"),
                                             method=method_info(SERVICE, "Echo"))
    assert browser == native


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=["connect", "grpc-web"])
@pytest.mark.parametrize("lang", ["ar", "en"])
async def test_a_refusal_keeps_its_code_rule_error_and_language(servers, protocol: ProtocolType,
                                                                lang: str) -> None:
    rules, web = servers
    request = pb.ApplyActionRequest()  # no state: INVALID_ARGUMENT
    async with grpc.aio.insecure_channel(rules.target) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as native:
            await pb_grpc.RulesServiceStub(channel).ApplyAction(request, metadata=(("accept-language", lang),))
    async with ConnectClient(web.url.rstrip("/"), protocol=protocol, codec=google_protobuf_binary_codec(),
                             send_compression=None) as client:
        with pytest.raises(ConnectError) as browser:
            await client.execute_unary(request=request, method=method_info(SERVICE, "ApplyAction"),
                                       headers={"accept-language": lang})
    assert browser.value.code.name == native.value.code().name == "INVALID_ARGUMENT"
    assert browser.value.message == native.value.details()
    [detail] = browser.value.details
    assert detail.type_name == "hand.v1.RuleError"
    error = errors_pb2.RuleError.FromString(detail.message_bytes)
    assert error.code == errors_pb2.ERROR_CODE_INVALID_ARGUMENT
    assert error.message == native.value.details()
    assert any("\u0600" <= ch <= "\u06ff" for ch in error.message) == (lang == "ar")


async def test_cors_allows_only_the_configured_origins(servers) -> None:
    import asyncio

    _, web = servers
    allowed = await asyncio.to_thread(_preflight, web, "http://app.example")
    assert allowed.status == 204
    assert allowed.getheader("access-control-allow-origin") == "http://app.example"
    assert "connect-protocol-version" in allowed.getheader("access-control-allow-headers")
    refused = await asyncio.to_thread(_preflight, web, "http://elsewhere.example")
    assert refused.status == 403 and refused.getheader("access-control-allow-origin") is None


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=["connect", "grpc-web"])
async def test_the_door_refuses_a_field_over_its_limit_as_on_native_grpc(servers, protocol: ProtocolType) -> None:
    rules, web = servers
    request = pb.StartRoundRequest(rules={"preset": "x" * 40}, seats=4, seed=1)  # preset: at most 32
    async with grpc.aio.insecure_channel(rules.target) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as native:
            await pb_grpc.RulesServiceStub(channel).StartRound(request)
    async with _client(web, protocol) as client:
        with pytest.raises(ConnectError) as browser:
            await client.execute_unary(request=request, method=method_info(SERVICE, "StartRound"))
    assert browser.value.code.name == native.value.code().name == "INVALID_ARGUMENT"
    error = errors_pb2.RuleError.FromString(browser.value.details[0].message_bytes)
    assert error.code == errors_pb2.ERROR_CODE_LIMIT_EXCEEDED
    assert error.params["field"] == "rules.preset" and error.params["limit"] == "32"


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=["connect", "grpc-web"])
async def test_undecodable_bytes_are_invalid_argument_not_unknown(servers, protocol: ProtocolType) -> None:
    _, web = servers

    class Raw:  # a codec that sends the bytes as they are
        def name(self) -> str:
            return "proto"

        def encode(self, message: bytes) -> bytes:
            return message

        def decode(self, data, message_class):
            return message_class.FromString(data)

    async with ConnectClient(web.url.rstrip("/"), protocol=protocol, codec=Raw(), send_compression=None) as client:
        with pytest.raises(ConnectError) as browser:
            await client.execute_unary(request=b"\xff\xff\xff", method=method_info(SERVICE, "StartRound"))
    assert browser.value.code.name == "INVALID_ARGUMENT"
    error = errors_pb2.RuleError.FromString(browser.value.details[0].message_bytes)
    assert error.code == errors_pb2.ERROR_CODE_INVALID_ARGUMENT and error.params["field"] == "(request)"


async def test_rate_limits_count_browser_and_native_calls_together() -> None:
    limits = RateLimitConfig(peer_per_s=0.001, peer_burst=3)
    rules = RulesServer(RulesConfig.from_env({"HAND_RULES_PORT": "0"}).server, limits=limits)
    await rules.start()
    web = WebServer(WebConfig.from_env({"HAND_WEB_PORT": "0"}),
                    [(rules.servicer, rules.servicer_descriptor, rules.interceptors)])
    await web.start()
    try:
        echo = pb.EchoRequest(payload=b"x")
        async with grpc.aio.insecure_channel(rules.target) as channel:
            stub = pb_grpc.RulesServiceStub(channel)
            await stub.Echo(echo)
            async with _client(web, ProtocolType.CONNECT) as client:
                await client.execute_unary(request=echo, method=method_info(SERVICE, "Echo"))
                await client.execute_unary(request=echo, method=method_info(SERVICE, "Echo"))
                with pytest.raises(ConnectError) as browser:  # the loopback peer's burst of 3 is spent
                    await client.execute_unary(request=echo, method=method_info(SERVICE, "Echo"))
            with pytest.raises(grpc.aio.AioRpcError) as native:
                await stub.Echo(echo)
        assert browser.value.code.name == native.value.code().name == "RESOURCE_EXHAUSTED"
        error = errors_pb2.RuleError.FromString(browser.value.details[0].message_bytes)
        assert error.code == errors_pb2.ERROR_CODE_RATE_LIMITED
    finally:
        await web.stop()
        await rules.stop(0)


def test_python_m_hand_rules_serves_browsers_too_when_enabled(tmp_path) -> None:
    """``HAND_WEB_ENABLED=on``: the deployable service answers Connect on its own web port."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    log_path = tmp_path / "rules.log"
    env = {**os.environ, "HAND_RULES_PORT": "0", "HAND_WEB_PORT": "0", "HAND_WEB_ENABLED": "on",
           "HAND_LOG_FORMAT": "json", "HAND_AUTH_DEV_KEY_FILE": str(tmp_path / "dev.key")}
    with log_path.open("w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "hand_rules"], env=env, cwd=root, stderr=log, stdout=log)
    try:
        address = None
        deadline = time.monotonic() + 30
        while address is None and time.monotonic() < deadline:
            for line in log_path.read_text().splitlines():
                record = json.loads(line) if line.startswith("{") else {}
                if record.get("event") == "listening" and "services" in record:  # hand_web's line
                    address = record["address"]
            assert proc.poll() is None, log_path.read_text()
            time.sleep(0.05)
        assert address, log_path.read_text()
        conn = http.client.HTTPConnection(*address.rsplit(":", 1), timeout=5)
        conn.request("POST", "/hand.v1.RulesService/Echo", body=pb.EchoRequest(payload=b"hi").SerializeToString(),
                     headers={"content-type": "application/proto", "connect-protocol-version": "1"})
        response = conn.getresponse()
        assert response.status == 200
        assert pb.EchoResponse.FromString(response.read()).payload == b"hi"
        conn.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
