"""A gRPC server past its capacity refuses at once instead of queueing (issue 24, "overload is
shed, not amplified"): the bound on unary calls in flight (``HAND_GRPC_MAX_IN_FLIGHT``) answers
OVERLOADED with ``retry_after_ms`` before any work, and the runtime's backlog of calls the
service has not taken yet (``HAND_GRPC_MAX_PENDING_CALLS``) drops the excess CANCELLED while
the loop is busy, instead of holding every caller for seconds."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from hand.v1 import errors_pb2
from hand_common.config import GrpcServerConfig
from hand_common.in_flight import InFlightLimit
from hand_common.serving import edge_interceptors
from hand_common.status import from_status

pytestmark = pytest.mark.timeout(60)


async def _server(*, max_in_flight: int = 0, max_pending_calls: int = 0, handler=None):
    started = asyncio.Event()
    release = asyncio.Event()
    served: list[bytes] = []

    async def slow(request, context):
        started.set()
        await release.wait()
        served.append(request)
        return request

    async def watch(request, context):
        yield b"open"
        await asyncio.Event().wait()

    generic = grpc.method_handlers_generic_handler("test.Load", {
        "Slow": grpc.unary_unary_rpc_method_handler(handler or slow),
        "Watch": grpc.unary_stream_rpc_method_handler(watch)})
    config = GrpcServerConfig(host="127.0.0.1", port=0, max_message_bytes=1 << 20, workers=1,
                              max_pending_calls=max_pending_calls, max_in_flight=max_in_flight,
                              shutdown_grace_s=0)
    interceptors = edge_interceptors(None, None, max_in_flight)
    limit = next((i for i in interceptors if isinstance(i, InFlightLimit)), None)
    server = grpc.aio.server(options=config.server_options(), interceptors=interceptors)
    server.add_generic_rpc_handlers((generic,))
    health_pb2_grpc.add_HealthServicer_to_server(_Health(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}", release, served, limit


class _Health(health_pb2_grpc.HealthServicer):
    async def Check(self, request, context):
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


async def test_calls_past_the_bound_in_flight_are_refused_at_once_and_change_nothing() -> None:
    server, target, release, served, limit = await _server(max_in_flight=3)
    try:
        async with grpc.aio.insecure_channel(target) as channel:
            slow, watch = channel.unary_unary("/test.Load/Slow"), channel.unary_stream("/test.Load/Watch")
            streams = [watch(b"") for _ in range(5)]  # open streams are not load
            for s in streams:
                assert await s.read() == b"open"
            held = [asyncio.ensure_future(slow(bytes([i]))) for i in range(3)]
            while limit.active < 3:
                await asyncio.sleep(0.01)
            began = time.monotonic()
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await slow(b"x")
            assert time.monotonic() - began < 1.0, "refused at once, not after the held calls"
            assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            error = from_status(rpc_status.from_call(info.value))
            assert errors_pb2.ErrorCode.Name(error.code) == "ERROR_CODE_OVERLOADED"
            assert error.params["limit"] == "calls_in_flight" and error.params["in_flight"] == "3"
            assert 100 <= int(error.params["retry_after_ms"]) <= 300
            assert error.message  # a readable message
            reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
            assert reply.status == health_pb2.HealthCheckResponse.SERVING  # health is never limited
            release.set()
            assert sorted(await asyncio.gather(*held)) == [b"\x00", b"\x01", b"\x02"]
            assert b"x" not in served, "the refused call ran"
            assert await slow(b"y") == b"y"  # the places are free again
            assert limit.active == 0 and limit.refused == 1
            for s in streams:
                s.cancel()
    finally:
        await server.stop(0)


@pytest.mark.parametrize("bound", [2, 0])
async def test_a_busy_loop_drops_the_backlog_past_its_bound_at_once_instead_of_holding_every_caller(
        bound: int) -> None:
    async def blocking(request, context):
        if request == b"block":
            time.sleep(1.5)  # the loop takes no new call meanwhile: they wait in the backlog
        return request

    server, target, _, _, _ = await _server(max_pending_calls=bound, handler=blocking)
    channel = grpc.insecure_channel(target)  # a client on its own threads, not on the blocked loop
    try:
        call = channel.unary_unary("/test.Load/Slow")
        assert await asyncio.to_thread(call, b"warm", timeout=10) == b"warm"
        with concurrent.futures.ThreadPoolExecutor(40) as pool:
            blocker = pool.submit(call, b"block", timeout=20)
            await asyncio.sleep(0.3)
            futures = [pool.submit(_outcome, call, bytes([i])) for i in range(30)]
            outcomes = [await asyncio.wrap_future(f) for f in futures]
            assert await asyncio.wrap_future(blocker) == b"block"
        dropped = [took for outcome, took in outcomes if outcome == grpc.StatusCode.CANCELLED]
        served = [outcome for outcome, _ in outcomes if isinstance(outcome, bytes)]
        assert len(dropped) + len(served) == 30, outcomes  # nothing else: dropped or served
        if bound:
            assert dropped, outcomes
            assert max(dropped) < 0.8, "a dropped call is answered at once, not when the loop frees"
        else:  # grpcio's own backlog (1,000) holds them all until the loop takes them
            assert not dropped and len(served) == 30
    finally:
        channel.close()
        await server.stop(0)


def _outcome(call, request: bytes):
    began = time.monotonic()
    try:
        return call(request, timeout=20), time.monotonic() - began
    except grpc.RpcError as exc:
        return exc.code(), time.monotonic() - began
