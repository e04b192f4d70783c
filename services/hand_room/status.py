"""The room service's refusal tables (English / Arabic) for the one mapper, ``hand_common.status_map``."""

from __future__ import annotations

import grpc
import structlog
from aiokafka.errors import KafkaError

from hand.v1 import errors_pb2
from hand_common.refusal import Refusal
from hand_common.status_map import StatusMap
from hand_infra.sqlstore import unreachable

from hand_table import RoomCode, RoomError

#: codes that mean "the request itself is malformed" (gRPC INVALID_ARGUMENT)
INVALID = {"INVALID_ARGUMENT", "INVALID_OPTIONS", "INVALID_STATE", "UNKNOWN_CARD",
           "DUPLICATE_CARD", "STAGING_OVERLAP", "ACTION_ID_REUSED", "UNKNOWN_PHRASE"}
NOT_FOUND = {"ROOM_NOT_FOUND", "TICKET_NOT_FOUND"}
EXISTS = {"TICKET_EXISTS"}
OUT_OF_RANGE = {"SEQ_OUT_OF_RANGE"}
PERMISSION = {"SEAT_TOKEN_INVALID", "NOT_HOST", "JOIN_CODE_REQUIRED", "SEAT_PLAYER_MISMATCH",
              "SEAT_TOKEN_EXPIRED"}
UNAVAILABLE = {"ROOM_UNAVAILABLE"}

ROOM_MESSAGES: dict[str, dict[str, str]] = {
    "ROOM_NOT_FOUND": {"en": "No such room.", "ar": "لا توجد غرفة بهذا المعرّف أو الرمز."},
    "ROOM_EXISTS": {"en": "That room exists already.", "ar": "هذه الغرفة موجودة بالفعل."},
    "ROOM_FULL": {"en": "The room is full ({seats} seats).", "ar": "الغرفة ممتلئة ({seats} مقاعد)."},
    "SEAT_TAKEN": {"en": "That seat is taken.", "ar": "هذا المقعد مشغول."},
    "SEAT_TOKEN_INVALID": {"en": "This seat token is not valid for this room.",
                           "ar": "رمز المقعد غير صالح لهذه الغرفة."},
    "NOT_HOST": {"en": "Only the host (seat {host_seat}) can do that.",
                 "ar": "هذا متاح لمضيف الغرفة فقط (المقعد {host_seat})."},
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
    "SEQ_OUT_OF_RANGE": {"en": "That seq is past the room's history (next seq {next_seq}).",
                         "ar": "هذا الرقم التسلسلي بعد نهاية سجل الغرفة (التالي {next_seq})."},
    "MATCH_OVER": {"en": "The match is over.", "ar": "انتهت المباراة."},
    "SEAT_EMPTY": {"en": "Seat {seat} is free already.", "ar": "المقعد {seat} شاغر بالفعل."},
    "SEAT_PLAYER_MISMATCH": {
        "en": "This seat belongs to a signed-in player: send that player's session with its seat token.",
        "ar": "هذا المقعد للاعب مسجّل الدخول: أرسل جلسة هذا اللاعب مع رمز المقعد."},
    "SEAT_TOKEN_EXPIRED": {
        "en": "This seat token has expired: its seat was left or freed, or the match is over.",
        "ar": "انتهت صلاحية رمز المقعد: غودر المقعد أو أُخلي، أو انتهت المباراة."},
    "JOIN_CODE_REQUIRED": {"en": "This room is private: join it with its join code.",
                           "ar": "هذه الغرفة خاصة: انضم إليها برمز الانضمام."},
    "ROOM_MOVED": {"en": "This room is served by another server ({owner_address}); nothing was changed.",
                   "ar": "هذه الغرفة يخدمها خادم آخر ({owner_address})؛ لم يتغير شيء."},
    "UNKNOWN_PHRASE": {"en": "That is not a quick-chat phrase (this server knows 1 to {max}).",
                       "ar": "هذه ليست عبارة من عبارات الدردشة السريعة (يعرف الخادم من 1 إلى {max})."},
    "TICKET_NOT_FOUND": {"en": "No such play-now ticket (or not with this seat token).",
                         "ar": "لا توجد تذكرة «العب الآن» بهذا المعرّف (أو ليست بهذا الرمز)."},
    "TICKET_EXISTS": {"en": "You are already waiting for a table ({ticket_id}).",
                      "ar": "أنت تنتظر طاولة بالفعل ({ticket_id})."},
    "SEAT_SEED_FIXED": {"en": "Your seat seed for this room was fixed when you first sat down; join without one.",
                        "ar": "بذرة مقعدك في هذه الغرفة ثُبّتت عند جلوسك أول مرة؛ انضم من دونها."},
    "TICKET_SEATED": {"en": "A table was found for this ticket already; leave the room instead.",
                      "ar": "وُجدت طاولة لهذه التذكرة بالفعل؛ غادر الغرفة بدلاً من ذلك."},
    "INTERNAL": {"en": "Internal error; nothing was changed. Retry later.",
                 "ar": "خطأ داخلي؛ لم يتغير شيء. أعد المحاولة لاحقاً."},
}


#: the room's codes that are not FAILED_PRECONDITION (door and engine codes have their own)
ROOM_GRPC_CODES: dict[str, grpc.StatusCode] = {
    **{code: grpc.StatusCode.INVALID_ARGUMENT for code in INVALID},
    **{code: grpc.StatusCode.NOT_FOUND for code in NOT_FOUND},
    **{code: grpc.StatusCode.ALREADY_EXISTS for code in EXISTS},
    **{code: grpc.StatusCode.PERMISSION_DENIED for code in PERMISSION},
    **{code: grpc.StatusCode.OUT_OF_RANGE for code in OUT_OF_RANGE},
    **{code: grpc.StatusCode.UNAVAILABLE for code in UNAVAILABLE},
}


def _unavailable(exc: BaseException) -> Refusal | None:
    """The broker, or the store down or hanging: ROOM_UNAVAILABLE (retry)."""
    if isinstance(exc, KafkaError) or unreachable(exc):
        return RoomError(RoomCode.ROOM_UNAVAILABLE, "unavailable", retry_after_ms=1000)
    return None


STATUS = StatusMap(structlog.get_logger("hand_room.gateway"), messages=ROOM_MESSAGES, codes=ROOM_GRPC_CODES,
                   translate=_unavailable, unknown=errors_pb2.ERROR_CODE_INTERNAL)


def rule_error(code: str, params: dict, lang: str) -> errors_pb2.RuleError:
    """The wire detail of a refusal (unknown codes are INTERNAL)."""
    return STATUS.rule_error(code, params, lang)


def to_status(code: str, params: dict, lang: str) -> grpc.Status:
    return STATUS.status(code, params, lang)
