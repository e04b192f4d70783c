"""The door on real servers (port 0): malformed bytes and over-long fields refused with
INVALID_ARGUMENT and a RuleError naming the field and the limit, before any handler runs
and without the value reaching a log line; page tokens validated; rate and stream limits
answered with RESOURCE_EXHAUSTED (RATE_LIMITED, retry_after_ms); health checks exempt."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from structlog.testing import capture_logs

from hand.v1 import errors_pb2, ledger_service_pb2, options_pb2, rules_service_pb2
from hand_auth.tokens import Signer
from hand_common.config import RateLimitConfig
from hand_common.identity import Verifier
from hand_common.serving import edge_interceptors
from hand_common.sessionkeys import dev_private_key
from hand_common.status import from_status
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig
from hand_rules.server import RulesServer
from hand_rules.settings import RulesConfig


async def refused(call) -> tuple[grpc.StatusCode, str, dict[str, str], str]:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    error = from_status(rpc_status.from_call(info.value))
    assert error is not None, info.value
    return info.value.code(), errors_pb2.ErrorCode.Name(error.code), dict(error.params), error.message


@pytest.fixture
async def rules(tmp_path: Path):
    config = RulesConfig.from_env({"HAND_RULES_PORT": "0", "HAND_AUTH_DEV_KEY_FILE": str(tmp_path / "k")})
    server = RulesServer(config.server, limits=config.limits, identity=config.identity)
    await server.start()
    async with grpc.aio.insecure_channel(server.target) as channel:
        yield channel
    await server.stop(0)


def _leaderboard(channel: grpc.aio.Channel):
    return channel.unary_unary("/hand.v1.LedgerService/GetLeaderboard",
                               request_serializer=ledger_service_pb2.GetLeaderboardRequest.SerializeToString,
                               response_deserializer=ledger_service_pb2.GetLeaderboardResponse.FromString)


def _ledger(tmp_path: Path, **env: str) -> LedgerServer:
    return LedgerServer(LedgerConfig.from_env({
        "HAND_LEDGER_PORT": "0", "HAND_SHUTDOWN_GRACE_S": "0", "HAND_AUTH_DEV_KEY_FILE": str(tmp_path / "k"),
        "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'ledger.db'}", **env}), None)


@pytest.mark.parametrize("method", ["ApplyAction", "StartRound", "Echo"])
async def test_undecodable_bytes_are_invalid_argument_not_unknown(rules, method: str) -> None:
    raw = rules.unary_unary(f"/hand.v1.RulesService/{method}")
    bodies = [b"\xff\xff\xff\xff", b"\x12\x80"]  # a bad tag, a truncated length
    if method != "Echo":  # field 1 is a message there: garbage inside it
        bodies.append(b"\x0a\x05\xff\xfe\xfd\xfc\xfb")
    for body in bodies:
        code, name, params, text = await refused(raw(body, metadata=(("accept-language", "ar"),)))
        assert (code, name, params) == (grpc.StatusCode.INVALID_ARGUMENT, "ERROR_CODE_INVALID_ARGUMENT",
                                        {"field": "(request)"})
        assert text == "الطلب غير صالح."


async def test_an_over_long_field_is_refused_before_any_work_and_never_logged(rules) -> None:
    stub = rules.unary_unary("/hand.v1.RulesService/StartRound",
                             request_serializer=rules_service_pb2.StartRoundRequest.SerializeToString,
                             response_deserializer=rules_service_pb2.StartRoundResponse.FromString)
    request = rules_service_pb2.StartRoundRequest(rules=options_pb2.RuleSelection(preset="Q" * 600_000),
                                                  seats=4, seed=1)
    with capture_logs() as logs:
        code, name, params, _ = await refused(stub(request))
    assert (code, name, params) == (grpc.StatusCode.INVALID_ARGUMENT, "ERROR_CODE_LIMIT_EXCEEDED",
                                    {"field": "rules.preset", "limit": "32"})
    assert logs and not any("QQQQ" in repr(line) for line in logs)
    assert not any(line.get("event") == "rpc" for line in logs)  # the handler never ran


@pytest.mark.parametrize("token", ["x", "٣", "9" * 5000, str(2**64), "AVMAAAAy" * 2])
async def test_leaderboard_page_tokens_other_than_ours_are_invalid_argument(tmp_path, token) -> None:
    server = _ledger(tmp_path)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.target) as channel:
            code, _, params, _ = await refused(_leaderboard(channel)(ledger_service_pb2.GetLeaderboardRequest(page_token=token)))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and params["field"] == "page_token"
    finally:
        await server.stop(0)


async def test_a_peer_over_its_rate_is_told_when_to_retry_and_health_checks_still_pass(tmp_path) -> None:
    server = _ledger(tmp_path, HAND_RATE_PEER_PER_S="1", HAND_RATE_PEER_BURST="2")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.target) as channel:
            call = _leaderboard(channel)
            await call(ledger_service_pb2.GetLeaderboardRequest())
            await call(ledger_service_pb2.GetLeaderboardRequest())
            code, name, params, _ = await refused(call(ledger_service_pb2.GetLeaderboardRequest()))
            assert (code, name, params["limit"]) == (
                grpc.StatusCode.RESOURCE_EXHAUSTED, "ERROR_CODE_RATE_LIMITED", "requests_per_peer")
            assert 0 < int(params["retry_after_ms"]) <= 1000
            for _ in range(5):
                reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        await server.stop(0)


async def _stream_server(limits: RateLimitConfig, verifier: Verifier):
    async def forever(request, context):
        yield b"hello"
        await asyncio.Event().wait()

    async def echo(request, context):
        return request

    handler = grpc.method_handlers_generic_handler("test.Door", {
        "Watch": grpc.unary_stream_rpc_method_handler(forever),
        "Echo": grpc.unary_unary_rpc_method_handler(echo)})
    server = grpc.aio.server(interceptors=edge_interceptors(limits, verifier))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


async def test_open_streams_and_a_players_requests_are_capped(tmp_path) -> None:
    key = dev_private_key(str(tmp_path / "k"))
    verifier = Verifier({Signer(key, "hand-auth", 60).kid: key.public_key()}, "hand-auth")
    token, _ = Signer(key, "hand-auth", 60).sign("player-1")
    me = (("authorization", f"Bearer {token}"),)
    limits = RateLimitConfig(player_per_s=0.001, player_burst=3, peer_per_s=0, streams_per_peer=2,
                             streams_per_player=1)
    server, target = await _stream_server(limits, verifier)
    try:
        async with grpc.aio.insecure_channel(target) as channel:
            watch, echo = channel.unary_stream("/test.Door/Watch"), channel.unary_unary("/test.Door/Echo")
            first = watch(b"")
            assert await first.read() == b"hello"
            mine = watch(b"", metadata=me)
            assert await mine.read() == b"hello"
            code, _, params, _ = await refused(watch(b"").read())
            assert (code, params["limit"]) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "streams_per_peer")
            first.cancel()
            await asyncio.sleep(0.2)
            code, _, params, _ = await refused(watch(b"", metadata=me).read())
            assert (code, params["limit"]) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "streams_per_player")
            other = watch(b"")
            assert await other.read() == b"hello"  # the closed stream freed its place
            assert await echo(b"a", metadata=me) == b"a"  # the player's burst of 3: two went to Watch
            code, _, params, _ = await refused(echo(b"a", metadata=me))
            assert params["limit"] == "requests_per_player"
            assert await echo(b"a") == b"a"  # without the token: only the (unlimited) peer bucket
            mine.cancel()
            other.cancel()
    finally:
        await server.stop(0)
