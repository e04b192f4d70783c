"""Ledger refusals → gRPC status with a ``hand.v1.RuleError`` detail (English / Arabic)."""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import status_pb2
from grpc_status import rpc_status

from hand.v1 import errors_pb2
from hand_room.status import text as room_text
from hand_rules.messages import language

GRPC_CODES = {
    "ROOM_NOT_FOUND": grpc.StatusCode.NOT_FOUND,
    "PLAYER_NOT_FOUND": grpc.StatusCode.NOT_FOUND,
    "SEAT_TOKEN_INVALID": grpc.StatusCode.PERMISSION_DENIED,
    "INVALID_ARGUMENT": grpc.StatusCode.INVALID_ARGUMENT,
    "INTERNAL": grpc.StatusCode.INTERNAL,
}
MESSAGES = {
    "PLAYER_NOT_FOUND": {"en": "The ledger has no record of that player.",
                         "ar": "لا يوجد في السجل لاعب بهذا المعرّف."},
    "REPLAY_BROKEN": {"en": "This room's archive cannot be replayed.",
                      "ar": "لا يمكن إعادة عرض أرشيف هذه الغرفة."},
}


class LedgerError(Exception):
    """A refused ledger request; ``code`` is an ``ErrorCode`` name without its prefix."""

    def __init__(self, code: str, detail: str = "", **params: Any) -> None:
        super().__init__(f"{code}: {detail}")
        self.code, self.detail, self.params = code, detail, params


def lang_of(context: grpc.aio.ServicerContext) -> str:
    for key, value in context.invocation_metadata() or ():
        if key == "accept-language":
            return language(value if isinstance(value, str) else value.decode("latin-1"))
    return language(None)


def to_status(error: LedgerError, lang: str) -> grpc.Status:
    entry = MESSAGES.get(error.code)
    msg = entry.get(lang, entry["en"]) if entry else room_text(error.code, error.params, lang)
    name = f"ERROR_CODE_{error.code}"
    number = errors_pb2.ErrorCode.Value(name) if name in errors_pb2.ErrorCode.keys() else 0
    detail = errors_pb2.RuleError(code=number, message=msg,
                                  params={k: str(v) for k, v in error.params.items()})
    packed = any_pb2.Any()
    packed.Pack(detail)
    code = GRPC_CODES.get(error.code, grpc.StatusCode.FAILED_PRECONDITION)
    return rpc_status.to_status(status_pb2.Status(code=code.value[0], message=msg, details=[packed]))
