"""``Refusal``: a request refused, as codes only (no gRPC here).

A refusal carries a stable ``ErrorCode`` name, a detail for logs and the params
(the field, the limit); the gRPC status is built at the edge
(``hand_common.refusal.refusal_status``, ``hand_common.status_map``), so pure
domains (``hand_table``) may raise refusals without importing grpc.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Refusal"]


class Refusal(Exception):
    """A request refused before (or instead of) any work; ``code`` is an ``ErrorCode`` name
    without its prefix, ``params`` name the field and the limit."""

    def __init__(self, code: str, detail: str = "", **params: Any) -> None:
        super().__init__(f"{code}: {detail}")
        self.code, self.detail, self.params = code, detail, params
