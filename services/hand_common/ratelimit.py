"""Load shedding: token buckets per player and per peer, and a cap on open streams.

``RateLimitInterceptor`` (a grpc.aio server interceptor, any service) charges
every call to two buckets: the signed-in player's (from a verified
``authorization: Bearer`` session token, when the call carries one) and the
peer address's (the client's IP, signed in or not). A call finding either
empty is refused with ``RESOURCE_EXHAUSTED`` and a ``RuleError``
``ERROR_CODE_RATE_LIMITED`` whose params give ``limit`` (what was exceeded),
``per_s`` and ``retry_after_ms``. Server-streaming calls (Watch) also count
against ``streams_per_player`` / ``streams_per_peer`` while they stay open.
Health checks and reflection are exempt. Buckets live in a bounded LRU
(``tracked_keys``), so a flood of distinct peers cannot grow memory, and
refusals are logged at most once a second per limit (with their count), so
a flood cannot grow the log either.

    server = grpc.aio.server(interceptors=[RateLimitInterceptor(config.limits, verifier),
                                           DoorInterceptor()])
"""

from __future__ import annotations

import math
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import structlog

from .config import RateLimitConfig
from .door import abort_refusal, exempt, wrap_handler
from .handler_memo import HandlerMemo
from .identity import Verifier
from .refusal import Refusal

__all__ = ["Buckets", "RateLimitInterceptor", "peer_host"]

log = structlog.get_logger("hand_common.ratelimit")
LOG_EVERY_S = 1.0


class Buckets:
    """Token buckets by key: ``rate`` tokens a second up to ``burst``; LRU-bounded."""

    def __init__(self, rate: float, burst: int, max_keys: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.max_keys, self._clock = rate, burst, max_keys, clock
        self._state: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key → (tokens, at)

    def take(self, key: str) -> float:
        """Take one token; 0.0 if granted, else the seconds until one is available."""
        if self.rate <= 0:
            return 0.0
        now = self._clock()
        tokens, at = self._state.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.rate)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.rate
        self._state[key] = (tokens, now)
        while len(self._state) > self.max_keys:
            self._state.popitem(last=False)
        return wait


def peer_host(peer: str | None) -> str:
    """The address part of a grpc peer (``ipv4:1.2.3.4:5678`` → ``ipv4:1.2.3.4``)."""
    if not peer:
        return "unknown"
    if peer.startswith("ipv6:["):
        return peer.split("]", 1)[0] + "]"
    head, _, _port = peer.rpartition(":")
    return head if head.startswith(("ipv4:", "ipv6:")) else peer[:64]


class RateLimitInterceptor(grpc.aio.ServerInterceptor):
    """Per-player and per-peer request rates and open-stream counts (see the module doc)."""

    def __init__(self, config: RateLimitConfig, verifier: Verifier | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config, self.verifier = config, verifier
        self._players = Buckets(config.player_per_s, config.player_burst, config.tracked_keys, clock)
        self._peers = Buckets(config.peer_per_s, config.peer_burst, config.tracked_keys, clock)
        self._streams: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()  # limit name → refusals (tests, metrics)
        self._clock = clock
        self._logged: dict[str, tuple[float, int]] = {}  # limit → (last line at, refusals then)
        self._memo = HandlerMemo()

    def _player(self, context: grpc.aio.ServicerContext) -> str | None:
        if self.verifier is None:
            return None
        try:
            session = self.verifier.session_of(context.invocation_metadata())
        except Refusal:
            return None  # the handler refuses it if it needs a player
        return None if session is None else session.player_id

    def _keys(self, context: grpc.aio.ServicerContext) -> tuple[str | None, str]:
        return self._player(context), "peer:" + peer_host(context.peer())

    async def _refuse(self, context, limit: str, per_s: float | int, wait_s: float) -> None:
        self.refused[limit] += 1
        retry_ms = max(1, math.ceil(wait_s * 1000))
        now, (at, before) = self._clock(), self._logged.get(limit, (-LOG_EVERY_S, 0))
        if now - at >= LOG_EVERY_S:  # one line a second per limit, however hard the flood
            log.info("rate_limited", limit=limit, refused=self.refused[limit] - before,
                     retry_after_ms=retry_ms)
            self._logged[limit] = (now, self.refused[limit])
        await abort_refusal(context, Refusal("RATE_LIMITED", limit, limit=limit, per_s=per_s,
                                             retry_after_ms=retry_ms))

    async def _gate(self, context: grpc.aio.ServicerContext, streaming: bool) -> None:
        player, peer = self._keys(context)
        wait = self._peers.take(peer)
        if wait:
            await self._refuse(context, "requests_per_peer", self.config.peer_per_s, wait)
        if player is not None:
            wait = self._players.take("player:" + player)
            if wait:
                await self._refuse(context, "requests_per_player", self.config.player_per_s, wait)
        if streaming:
            await self._check_streams(context, player, peer)

    async def _check_streams(self, context, player: str | None, peer: str) -> None:
        if self.config.streams_per_peer and self._streams[peer] >= self.config.streams_per_peer:
            await self._refuse(context, "streams_per_peer", self.config.streams_per_peer, 1.0)
        cap = self.config.streams_per_player
        if player is not None and cap and self._streams["player:" + player] >= cap:
            await self._refuse(context, "streams_per_player", cap, 1.0)

    @contextmanager
    def _open_stream(self, request: Any, context: grpc.aio.ServicerContext) -> Iterator[None]:
        player, peer = self._keys(context)
        keys = [peer] + ([] if player is None else ["player:" + player])
        for key in keys:
            self._streams[key] += 1
        try:
            yield
        finally:
            for key in keys:
                self._streams[key] -= 1
                if self._streams[key] <= 0:
                    del self._streams[key]

    def open_streams(self) -> int:
        """Streams open now, counted per peer (tests)."""
        return sum(n for key, n in self._streams.items() if key.startswith("peer:"))

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        if handler is None or exempt(handler_call_details.method):
            return handler
        return self._memo.wrapped(handler, handler_call_details.method, self._gated)

    def _gated(self, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        streaming = handler.response_streaming

        async def gate(request: Any, context: grpc.aio.ServicerContext) -> None:
            await self._gate(context, streaming)

        return wrap_handler(handler, gate, on_stream=self._open_stream if streaming else None)

