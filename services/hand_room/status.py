"""Room refusals → gRPC status with a ``hand.v1.RuleError`` detail (English / Arabic)."""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import status_pb2
from grpc_status import rpc_status

from hand.v1 import errors_pb2
from hand_engine import Code
from hand_rules.errors import status_code
from hand_rules.messages import message as rule_message

from .errors import INVALID, NOT_FOUND, PERMISSION, UNAVAILABLE

ROOM_MESSAGES: dict[str, dict[str, str]] = {
    "ROOM_NOT_FOUND": {"en": "No such room.", "ar": "لا توجد غرفة بهذا المعرّف أو الرمز."},
    "ROOM_EXISTS": {"en": "That room exists already.", "ar": "هذه الغرفة موجودة بالفعل."},
    "ROOM_FULL": {"en": "The room is full.", "ar": "الغرفة ممتلئة."},
    "SEAT_TAKEN": {"en": "That seat is taken.", "ar": "هذا المقعد مشغول."},
    "SEAT_TOKEN_INVALID": {"en": "This seat token is not valid for this room.",
                           "ar": "رمز المقعد غير صالح لهذه الغرفة."},
    "NOT_HOST": {"en": "Only the host can do that.", "ar": "هذا متاح لمضيف الغرفة فقط."},
    "MATCH_STARTED": {"en": "The match has already started.", "ar": "بدأت المباراة بالفعل."},
    "MATCH_NOT_STARTED": {"en": "The match is not being played.", "ar": "المباراة ليست قيد اللعب."},
    "NOT_ENOUGH_PLAYERS": {"en": "Every seat must be filled first (add bots?).",
                           "ar": "يجب شغل كل المقاعد أولاً (أضف لاعبين آليين؟)."},
    "STALE_ACTION": {"en": "The game has moved on since your view; refresh and try again.",
                     "ar": "تغيّرت اللعبة منذ آخر عرض لديك؛ حدّث وحاول مجدداً."},
    "ACTION_ID_REUSED": {"en": "That action id was already used for another move.",
                         "ar": "معرّف الحركة هذا استُخدم لحركة أخرى."},
    "ROOM_UNAVAILABLE": {"en": "The room did not answer in time; retry with the same action id.",
                         "ar": "لم تستجب الغرفة في الوقت المحدد؛ أعد المحاولة بنفس معرّف الحركة."},
    "INTERNAL": {"en": "Internal error.", "ar": "خطأ داخلي."},
}


def grpc_code(code: str) -> grpc.StatusCode:
    if code in INVALID:
        return grpc.StatusCode.INVALID_ARGUMENT
    if code in NOT_FOUND:
        return grpc.StatusCode.NOT_FOUND
    if code in PERMISSION:
        return grpc.StatusCode.PERMISSION_DENIED
    if code in UNAVAILABLE:
        return grpc.StatusCode.UNAVAILABLE
    if code == "INTERNAL":
        return grpc.StatusCode.INTERNAL
    if code in Code.__members__:
        return status_code(Code[code])
    return grpc.StatusCode.FAILED_PRECONDITION


def text(code: str, params: dict, lang: str) -> str:
    if code in Code.__members__:
        return rule_message(Code[code], params, lang)
    entry = ROOM_MESSAGES.get(code, ROOM_MESSAGES["INTERNAL"])
    return entry.get(lang, entry["en"])


def to_status(code: str, params: dict, lang: str) -> grpc.Status:
    msg = text(code, params, lang)
    number = errors_pb2.ErrorCode.Value(f"ERROR_CODE_{code}") if f"ERROR_CODE_{code}" in errors_pb2.ErrorCode.keys() else 0
    detail = errors_pb2.RuleError(code=number, message=msg, params={k: str(v) for k, v in params.items()})
    packed = any_pb2.Any()
    packed.Pack(detail)
    return rpc_status.to_status(status_pb2.Status(code=grpc_code(code).value[0], message=msg, details=[packed]))
