"""The edge's interceptors wrap a method's handler once, not on every call
(``hand_common.handler_memo``), and what they do per call still happens per call: the
rate limit counts each call, the in-flight bound each call in its handler, the stream
limit each open stream, the metrics each outcome."""

from __future__ import annotations

import dataclasses

import grpc
import pytest

from hand_common.config import RateLimitConfig
from hand_common.handler_memo import HandlerMemo
from hand_common.rpc_metrics import REQUESTS
from hand_common.serving import edge_interceptors

pytestmark = pytest.mark.timeout(60)

BURST = 20


def _limits() -> RateLimitConfig:
    return dataclasses.replace(RateLimitConfig.from_env({}), peer_per_s=0.001, peer_burst=BURST,
                               streams_per_peer=2)


async def test_each_method_is_wrapped_once_and_every_call_still_passes_each_gate() -> None:
    async def echo(request, context):
        return request

    async def watch(request, context):
        yield request

    interceptors = edge_interceptors(_limits(), None, max_in_flight=8)
    server = grpc.aio.server(interceptors=interceptors)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("test.Memo", {
        "Echo": grpc.unary_unary_rpc_method_handler(echo),
        "Watch": grpc.unary_stream_rpc_method_handler(watch)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    ok = REQUESTS.labels("test.Memo", "Echo", "grpc", "OK", "")
    before = ok._value.get()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            echo_call, watch_call = channel.unary_unary("/test.Memo/Echo"), channel.unary_stream("/test.Memo/Watch")
            for i in range(BURST - 2):
                assert await echo_call(bytes([i])) == bytes([i])
            assert [m async for m in watch_call(b"w")] == [b"w"]
            assert await echo_call(b"last") == b"last"  # the burst's last token
            with pytest.raises(grpc.aio.AioRpcError) as refused:  # counted per call: the burst is spent
                await echo_call(b"over")
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    finally:
        await server.stop(None)
    assert ok._value.get() - before == BURST - 1
    memos = [m for i in interceptors for m in vars(i).values() if isinstance(m, HandlerMemo)]
    assert len(memos) == len(interceptors) == 4  # metrics, in flight, rate limit, door
    for memo in memos:  # Echo and Watch: one wrapping each (the in-flight bound wraps unary calls only)
        assert 1 <= memo.built <= 2, (memo, memo.built)


def test_the_memo_rebuilds_for_another_handler_and_stays_small() -> None:
    memo = HandlerMemo(size=4)
    a, b = object(), object()
    first = memo.wrapped(a, "/s/M", lambda h, tag: (h, tag), "x")
    assert memo.wrapped(a, "/s/M", lambda h, tag: (h, tag), "y") is first  # kept
    assert memo.wrapped(b, "/s/M", lambda h, tag: (h, tag), "x") == (b, "x")
    assert memo.wrapped(a, "/s/N", lambda h, tag: (h, tag), "z") == (a, "z")  # another key
    handlers = [object() for _ in range(10)]
    for h in handlers:
        memo.wrapped(h, "/s/M", lambda h: h)
    assert len(memo._kept) <= 4 and memo.built == 3 + 10
