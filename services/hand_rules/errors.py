"""Engine ``RuleViolation`` → gRPC status with a ``hand.v1.RuleError`` detail.

``INVALID_ARGUMENT`` for malformed input, ``FAILED_PRECONDITION`` for a move
the rules refuse in this position. The ``google.rpc.Status`` travels in the
``grpc-status-details-bin`` trailer with one ``RuleError`` packed in an
``Any`` (see proto/hand/v1/errors.proto and docs/contracts.md).
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import status_pb2
from grpc_status import rpc_status

from hand.v1 import errors_pb2
from hand_engine import Code, RuleViolation

from .messages import DEFAULT_LANGUAGE, message, shown_params

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


def rule_error(exc: RuleViolation, lang: str = DEFAULT_LANGUAGE) -> errors_pb2.RuleError:
    return errors_pb2.RuleError(
        code=error_code(exc.code), message=message(exc.code, exc.params, lang),
        params=shown_params(exc.params),
    )


def to_status(exc: RuleViolation, lang: str = DEFAULT_LANGUAGE) -> grpc.Status:
    """A ``grpc.Status`` (code, details, trailing metadata) ready for ``context.abort``."""
    detail = rule_error(exc, lang)
    packed = any_pb2.Any()
    packed.Pack(detail)
    status = status_pb2.Status(
        code=status_code(exc.code).value[0], message=detail.message, details=[packed]
    )
    return rpc_status.to_status(status)


def from_status(status: status_pb2.Status | None) -> errors_pb2.RuleError | None:
    """The ``RuleError`` of a ``google.rpc.Status`` (clients and tests), if it has one."""
    for detail in status.details if status is not None else ():
        if detail.Is(errors_pb2.RuleError.DESCRIPTOR):
            error = errors_pb2.RuleError()
            detail.Unpack(error)
            return error
    return None
