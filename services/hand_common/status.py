"""Refusals → gRPC status with one ``hand.v1.RuleError`` detail, and back.

The one place every service builds a refused call's status (docs/contracts.md):
the gRPC code, a stable wire ``ErrorCode``, ``params`` naming the field and
the limit, and a message in the caller's language. The ``google.rpc.Status``
travels in the ``grpc-status-details-bin`` trailer with the ``RuleError``
packed in an ``Any`` (proto/hand/v1/errors.proto).

- ``pack`` / ``from_status``: a ``RuleError`` into a ``grpc.Status`` and back;
- ``rule_status``: an engine ``RuleViolation`` (``INVALID_ARGUMENT`` for
  malformed input, ``FAILED_PRECONDITION`` for a move the rules refuse);
- ``hand_common.refusal.refusal_message``: the text of any refusal.
"""

from __future__ import annotations

from collections.abc import Mapping

import grpc
from google.protobuf import any_pb2
from google.rpc import status_pb2
from grpc_status import rpc_status

from hand.v1 import errors_pb2
from hand_engine import Code, RuleViolation

from .language import DEFAULT_LANGUAGE
from .rule_messages import message, shown_params

__all__ = [
    "MALFORMED", "error_code", "from_status", "pack", "pack_detail", "refusal_error", "rule_error",
    "rule_status", "status_code",
]

MALFORMED = frozenset({
    Code.INVALID_ARGUMENT, Code.INVALID_OPTIONS, Code.INVALID_STATE, Code.UNKNOWN_CARD,
    Code.DUPLICATE_CARD, Code.STAGING_OVERLAP,
})


def status_code(code: Code) -> grpc.StatusCode:
    """The gRPC status code a violation with ``code`` fails the call with."""
    return grpc.StatusCode.INVALID_ARGUMENT if code in MALFORMED else grpc.StatusCode.FAILED_PRECONDITION


def error_code(code: Code) -> int:
    """The stable wire ``ErrorCode`` of an engine ``Code`` (same member name)."""
    return errors_pb2.ErrorCode.Value(f"ERROR_CODE_{code.name}")


def pack_detail(grpc_code: grpc.StatusCode, detail: errors_pb2.RuleError) -> grpc.Status:
    """A ``grpc.Status`` (code, details, trailing metadata) ready for ``context.abort``."""
    packed = any_pb2.Any()
    packed.Pack(detail)
    return rpc_status.to_status(
        status_pb2.Status(code=grpc_code.value[0], message=detail.message, details=[packed]))


def refusal_error(code: str, message: str, params: Mapping[str, object],
                  unknown: int = errors_pb2.ERROR_CODE_UNSPECIFIED) -> errors_pb2.RuleError:
    """A ``RuleError`` (``code``: an ``ErrorCode`` name sans prefix; ``unknown`` is the
    wire code of a name the contract does not have)."""
    name = f"ERROR_CODE_{code}"
    number = errors_pb2.ErrorCode.Value(name) if name in errors_pb2.ErrorCode.keys() else unknown
    return errors_pb2.RuleError(code=number, message=message, params=shown_params(params))


def pack(grpc_code: grpc.StatusCode, code: str, message: str, params: Mapping[str, object],
         unknown: int = errors_pb2.ERROR_CODE_UNSPECIFIED) -> grpc.Status:
    """A status with one ``RuleError`` (see ``refusal_error``)."""
    return pack_detail(grpc_code, refusal_error(code, message, params, unknown))


def rule_error(exc: RuleViolation, lang: str = DEFAULT_LANGUAGE) -> errors_pb2.RuleError:
    return errors_pb2.RuleError(
        code=error_code(exc.code), message=message(exc.code, exc.params, lang),
        params=shown_params(exc.params),
    )


def rule_status(exc: RuleViolation, lang: str = DEFAULT_LANGUAGE) -> grpc.Status:
    """The status of an engine ``RuleViolation``."""
    return pack_detail(status_code(exc.code), rule_error(exc, lang))


def from_status(status: status_pb2.Status | None) -> errors_pb2.RuleError | None:
    """The ``RuleError`` of a ``google.rpc.Status`` (clients and tests), if it has one."""
    for detail in status.details if status is not None else ():
        if detail.Is(errors_pb2.RuleError.DESCRIPTOR):
            error = errors_pb2.RuleError()
            detail.Unpack(error)
            return error
    return None
