"""The one exception → gRPC status mapper of every server (room, ledger, auth, rules).

A handler raises; :meth:`StatusMap.refuse` (``hand_common.rpc``'s ``refuse``)
turns what it raised into the refused call's status, the same way everywhere:

1. ``translate(exc)``: a service's infrastructure failure as a refusal (the
   database unreachable: ``SERVICE_UNAVAILABLE``; the room's broker or store:
   ``ROOM_UNAVAILABLE``) — or None;
2. a ``Refusal`` (``code``, ``params``) or an engine ``RuleViolation`` (its
   ``Code``) → :meth:`StatusMap.status`;
3. anything else is ``INTERNAL``, its traceback logged, nothing of it told to
   the caller: with a ``RuleError`` detail and the service's ``INTERNAL``
   message (``internal_detail``), or a plain ``internal error`` status.

:meth:`StatusMap.status` of a code, its params and the caller's language:

- the gRPC code: a door code's (``hand_common.refusal.DOOR_MESSAGES``), else the
  service's ``codes``, else an engine code's (``hand_common.status.status_code``),
  ``INTERNAL`` for ``INTERNAL``, else ``FAILED_PRECONDITION``;
- the message (``hand_common.refusal.refusal_message``): an engine code's from
  the rules' catalogue, a door code's, or the service's ``messages`` (with
  ``door_first``, a code that is both a door code and an engine code —
  ``INVALID_ARGUMENT`` — takes the door's sentence);
- the detail: a ``RuleError`` with the code's stable wire number (``unknown``
  for a code the contract lacks) and ``params`` as shown to clients.

Each service keeps only its tables (``hand_room.status``, ``hand_ledger.status``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import grpc

from hand.v1 import errors_pb2
from hand_engine import Code, RuleViolation

from .refusal import DOOR_MESSAGES, Refusal, door_text, refusal_message
from .rpc import Refused, plain_status
from .status import pack_detail, refusal_error, status_code

__all__ = ["StatusMap"]


def _nothing(exc: BaseException) -> Refusal | None:
    return None


@dataclass(frozen=True)
class StatusMap:
    """One service's refusal tables; see the module doc."""

    log: Any
    messages: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # {code: {lang: template}}
    codes: Mapping[str, grpc.StatusCode] = field(default_factory=dict)
    translate: Callable[[BaseException], Refusal | None] = _nothing
    internal_detail: bool = True  # INTERNAL with a RuleError detail, or a plain status
    door_first: bool = False
    unknown: int = errors_pb2.ERROR_CODE_UNSPECIFIED  # the wire code of a name the contract lacks
    log_grpc_code: bool = False  # the summary line's ``code``: the gRPC status name, ``error`` the code
    counted: Callable[[str], None] | None = None  # a refusals metric, by code
    failed_event: str = "rpc_failed"

    def grpc_code(self, code: str) -> grpc.StatusCode:
        """The gRPC status code of a refusal's ``code``."""
        if code in DOOR_MESSAGES:
            return DOOR_MESSAGES[code][0]
        if code in self.codes:
            return self.codes[code]
        if code in Code.__members__:
            return status_code(Code[code])
        return grpc.StatusCode.INTERNAL if code == "INTERNAL" else grpc.StatusCode.FAILED_PRECONDITION

    def text(self, code: str, params: Mapping[str, object], lang: str) -> str:
        """The refusal's message in ``lang``."""
        if self.door_first and code in DOOR_MESSAGES and code not in self.messages:
            return door_text(code, params, lang)
        return refusal_message(self.messages or {"INTERNAL": {"en": "internal error"}}, code, params, lang)

    def rule_error(self, code: str, params: Mapping[str, object], lang: str) -> errors_pb2.RuleError:
        """The wire detail of a refusal."""
        return refusal_error(code, self.text(code, params, lang), params, unknown=self.unknown)

    def status(self, code: str, params: Mapping[str, object], lang: str) -> grpc.Status:
        """The status of a refusal ``code`` with ``params`` in ``lang``."""
        return pack_detail(self.grpc_code(code), self.rule_error(code, params, lang))

    def refuse(self, exc: BaseException, lang: str) -> Refused:
        """What a handler raised, as a refused call (``hand_common.rpc``)."""
        exc = self.translate(exc) or exc
        if isinstance(exc, RuleViolation):
            code, params = exc.code.value, dict(exc.params)
        elif isinstance(exc, Refusal):
            code, params = exc.code, exc.params
        else:
            self.log.exception(self.failed_event, error=type(exc).__name__)
            code, params = "INTERNAL", {}
            if not self.internal_detail:
                return self._refused(code, plain_status(grpc.StatusCode.INTERNAL, "internal error"))
        return self._refused(code, self.status(code, params, lang))

    def _refused(self, code: str, status: Any) -> Refused:
        if self.counted is not None:
            self.counted(code)
        if self.log_grpc_code:
            return Refused(status.code.name if hasattr(status.code, "name") else code, status,
                           {} if code == "INTERNAL" else {"error": code})
        return Refused(code, status)
