"""Ledger refusals → gRPC status with a ``hand.v1.RuleError`` detail (English / Arabic)."""

from __future__ import annotations

from typing import Any

import grpc

from hand_common.language import language_of
from hand_common.refusal import DOOR_MESSAGES, Refusal, pack, refusal_status
from hand_room.status import text as room_text

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
    return language_of(context.invocation_metadata())


def to_status(error: LedgerError, lang: str) -> grpc.Status:
    if error.code in DOOR_MESSAGES:  # LIMIT_EXCEEDED, UNAUTHENTICATED, SESSION_EXPIRED, ...
        return refusal_status(Refusal(error.code, error.detail, **error.params), lang)
    entry = MESSAGES.get(error.code)
    msg = entry.get(lang, entry["en"]) if entry else room_text(error.code, error.params, lang)
    code = GRPC_CODES.get(error.code, grpc.StatusCode.FAILED_PRECONDITION)
    return pack(code, error.code, msg, error.params)
