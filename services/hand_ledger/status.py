"""The ledger's refusal tables (English / Arabic) for the one mapper, ``hand_common.status_map``."""

from __future__ import annotations

import grpc
import structlog

from hand_common.refusal import Refusal
from hand_common.status_map import StatusMap
from hand_infra.sqlstore import store_refusal

GRPC_CODES = {
    "ROOM_NOT_FOUND": grpc.StatusCode.NOT_FOUND,
    "PLAYER_NOT_FOUND": grpc.StatusCode.NOT_FOUND,
    "SEAT_TOKEN_INVALID": grpc.StatusCode.PERMISSION_DENIED,
    "PLAYER_ID_PRIVATE": grpc.StatusCode.PERMISSION_DENIED,
    "INVALID_ARGUMENT": grpc.StatusCode.INVALID_ARGUMENT,
    "SEQ_OUT_OF_RANGE": grpc.StatusCode.OUT_OF_RANGE,
    "LEDGER_BEHIND": grpc.StatusCode.UNAVAILABLE,
    "INTERNAL": grpc.StatusCode.INTERNAL,
    "TOURNAMENT_NOT_FOUND": grpc.StatusCode.NOT_FOUND,
    "TOURNAMENT_NOT_ORGANISER": grpc.StatusCode.PERMISSION_DENIED,
    "TOURNAMENT_NOT_ENTERED": grpc.StatusCode.NOT_FOUND,
    "ROOM_UNAVAILABLE": grpc.StatusCode.UNAVAILABLE,
}
MESSAGES = {
    "ROOM_NOT_FOUND": {"en": "The ledger has no record of that room.",
                       "ar": "لا يوجد في السجل غرفة بهذا المعرّف."},
    "SEAT_TOKEN_INVALID": {
        "en": "The ledger takes no seat token and shows a running match as a spectator sees it: "
              "leave seat_token empty, and name a seat's view with seat once the match is over.",
        "ar": "لا يقبل السجل رمز مقعد ويعرض المباراة الجارية كما يراها المشاهد: "
              "اترك seat_token فارغاً، واطلب عرض مقعد بالحقل seat بعد انتهاء المباراة."},
    "INTERNAL": {"en": "Internal error; nothing was changed. Retry later.",
                 "ar": "خطأ داخلي؛ لم يتغير شيء. أعد المحاولة لاحقاً."},
    "PLAYER_NOT_FOUND": {"en": "The ledger has no record of that player.",
                         "ar": "لا يوجد في السجل لاعب بهذا المعرّف."},
    "PLAYER_ID_PRIVATE": {"en": "A player's account id is private: ask by the public handle.",
                          "ar": "معرّف حساب اللاعب خاص: اطلب إحصاءاته بالمعرّف العام."},
    "SEQ_OUT_OF_RANGE": {"en": "That step is past the archived events (there are {next_seq}).",
                         "ar": "هذه الخطوة بعد آخر حدث مؤرشف (عددها {next_seq})."},
    "LEDGER_BEHIND": {"en": "The ledger has not caught up with that room yet (it holds {next_seq} events); "
                             "retry in a moment.",
                      "ar": "لم يلحق السجل بهذه الغرفة بعد (لديه {next_seq} حدثاً)؛ أعد المحاولة بعد لحظة."},
    "TOURNAMENT_NOT_FOUND": {"en": "There is no such tournament.", "ar": "لا توجد بطولة بهذا المعرّف."},
    "TOURNAMENT_NOT_ORGANISER": {"en": "Only the tournament's organiser may do this.",
                                 "ar": "لا يقوم بهذا إلا منظّم البطولة."},
    "TOURNAMENT_WRONG_STATE": {"en": "The tournament is {status}: this needs {wanted}.",
                               "ar": "حالة البطولة {status}: يتطلب هذا {wanted}."},
    "TOURNAMENT_FULL": {"en": "Every seat of this tournament is taken ({seats}).",
                        "ar": "كل مقاعد هذه البطولة محجوزة ({seats})."},
    "TOURNAMENT_RESULTS_HIDDEN": {"en": "Results are shown once the tournament is closed.",
                                  "ar": "تظهر النتائج بعد إغلاق البطولة."},
    "TOURNAMENT_NOT_ENTERED": {"en": "You have not entered this tournament.",
                               "ar": "لم تشارك في هذه البطولة."},
    "ROOM_UNAVAILABLE": {"en": "The room service did not answer; retry shortly.",
                         "ar": "لم تُجب خدمة الغرف؛ أعد المحاولة بعد قليل."},
    "REPLAY_BROKEN": {"en": "This room's archive cannot be replayed.",
                      "ar": "لا يمكن إعادة عرض أرشيف هذه الغرفة."},
}


class LedgerError(Refusal):
    """A refused ledger request; ``code`` is an ``ErrorCode`` name without its prefix."""


def _unavailable(exc: BaseException) -> Refusal | None:
    return store_refusal(exc)


STATUS = StatusMap(structlog.get_logger("hand_ledger.service"), messages=MESSAGES, codes=GRPC_CODES,
                   translate=_unavailable, door_first=True)


def text(error: Refusal, lang: str) -> str:
    """The refusal's message: the ledger's own, a door code's, or the rules' catalogue."""
    return STATUS.text(error.code, error.params, lang)


def to_status(error: Refusal, lang: str) -> grpc.Status:
    return STATUS.status(error.code, error.params, lang)
