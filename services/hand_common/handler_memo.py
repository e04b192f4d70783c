"""Each interceptor's wrapped handler, built once per handler it wraps.

grpcio asks every interceptor for the call's handler on every call, and an interceptor
that wraps its inner handler built a new one each time: closures, a new
``RpcMethodHandler`` and, four interceptors deep, a dozen objects a call for the
collector (kept, the room service's CPU per action at 300 rooms fell ×0.89,
docs/room-service.md, 2026-12-07). The inner
handler of a method is the same object call after call (the servicer's, or the next
interceptor's memoized one), so its wrapping can be kept: a wrapper that needs the
call's own data (metadata, peer) reads it from the ``context`` when it runs.

Keyed by the inner handler's identity and what else the wrapping depends on; a handler
that is new on every call (never the case for ours) only rebuilds, and the memo is
emptied past ``size`` entries, so it stays small whatever it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["HandlerMemo"]


class HandlerMemo:
    """``wrapped(handler, key, build, *args)``: ``build(handler, *args)``, kept for
    ``handler`` and ``key`` (what else the wrapping depends on: the method, a label)."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._kept: dict[tuple, tuple[Any, Any]] = {}
        self.built = 0  # wrappings built (tests)

    def wrapped(self, handler: Any, key: Hashable, build: Callable[..., Any], *args: Any) -> Any:
        k = (id(handler), key)
        kept = self._kept.get(k)
        if kept is not None and kept[0] is handler:
            return kept[1]
        result = build(handler, *args)
        self.built += 1
        if len(self._kept) >= self.size:
            self._kept.clear()
        self._kept[k] = (handler, result)  # holding ``handler`` keeps its id from being reused
        return result
