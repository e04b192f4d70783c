"""Messages for refused requests, in English and Arabic, keyed by engine ``Code``.

Each entry lists templates per language, most specific first; the first whose
``{params}`` are all known is used, so a code raised with or without
parameters reads well either way.
"""

from __future__ import annotations

import string
from collections.abc import Mapping

from .language import DEFAULT_LANGUAGE
from hand_engine import Code, format_card

__all__ = ["CATALOGUE", "message", "shown_params"]

# code → {language: (template, ...)}
CATALOGUE: dict[Code, dict[str, tuple[str, ...]]] = {
    Code.INVALID_ARGUMENT: {
        "en": ("{field} must be {min} to {max} characters, each one of {chars}.",
               "Seat {host_seat} is the host's own seat: the host cannot remove it (LeaveRoom leaves).",
               "{field} must be within {min}..{max}.", "{field} is too long: at most {max}.",
               "{field} must be one of: {allowed}.", "{field} is missing or malformed.",
               "The request is malformed."),
        "ar": ("يجب أن يكون {field} من {min} إلى {max} حرفاً، كل منها واحد من {chars}.",
               "المقعد {host_seat} هو مقعد المضيف نفسه: لا يستطيع المضيف إزالته (يغادر بـ LeaveRoom).",
               "يجب أن يكون {field} بين {min} و{max}.", "{field} أطول من المسموح: {max} على الأكثر.",
               "يجب أن يكون {field} واحداً من: {allowed}.", "الحقل {field} مفقود أو غير صالح.",
               "الطلب غير صالح."),
    },
    Code.INVALID_OPTIONS: {
        "en": ("Invalid rule option {option}={value}: allowed {allowed}.",
               "Invalid rule option {option}={value}: must be within {min}..{max}.",
               "Invalid rule option: {option}.", "Unknown rule preset: {preset}.",
               "These rule options are not allowed."),
        "ar": ("خيار قواعد غير صالح {option}={value}: المسموح {allowed}.",
               "خيار قواعد غير صالح {option}={value}: يجب أن يكون بين {min} و{max}.",
               "خيار قواعد غير صالح: {option}.", "مجموعة قواعد غير معروفة: {preset}.",
               "خيارات القواعد هذه غير مسموح بها."),
    },
    Code.INVALID_STATE: {
        "en": ("The game state sent is not a consistent position.",),
        "ar": ("حالة اللعب المرسلة غير متسقة.",),
    },
    Code.UNKNOWN_CARD: {
        "en": ("Unknown card id {card}.", "Unknown card."),
        "ar": ("رقم ورقة غير معروف: {card}.", "ورقة غير معروفة."),
    },
    Code.DUPLICATE_CARD: {
        "en": ("The card {card} is listed twice.", "A card is listed twice."),
        "ar": ("الورقة {card} مذكورة مرتين.", "ورقة مذكورة مرتين."),
    },
    Code.ROUND_OVER: {
        "en": ("The round is over.",),
        "ar": ("انتهت الجولة.",),
    },
    Code.NOT_YOUR_TURN: {
        "en": ("It is not your turn: seat {seat} is to play.", "It is not your turn."),
        "ar": ("ليس دورك: الدور للمقعد {seat}.", "ليس دورك."),
    },
    Code.WRONG_PHASE: {
        "en": ("You cannot do that at this step of your turn.",),
        "ar": ("لا يمكنك فعل ذلك في هذه المرحلة من دورك.",),
    },
    Code.OPENING_DISCARD_ONLY: {
        "en": ("On the starter's first turn you may only discard.",),
        "ar": ("في الدور الأول للبادئ يُسمح بالرمي فقط.",),
    },
    Code.CARD_NOT_IN_HAND: {
        "en": ("The card {card} is not in your hand.", "That card is not in your hand."),
        "ar": ("الورقة {card} ليست في يدك.", "هذه الورقة ليست في يدك."),
    },
    Code.DISCARD_PILE_EMPTY: {
        "en": ("The discard pile is empty.",),
        "ar": ("النار فارغة: لا توجد ورقة لأخذها.",),
    },
    Code.TAKE_NOT_ALLOWED: {
        "en": ("You may not take the discard top now.",),
        "ar": ("لا يمكنك أخذ الورقة من النار الآن.",),
    },
    Code.TAKE_CANNOT_BE_MET: {
        "en": ("You could not meet what taking that card requires.",),
        "ar": ("لا يمكنك الوفاء بشرط أخذ هذه الورقة.",),
    },
    Code.NO_ACTIVE_TAKE: {
        "en": ("There is no taken card to return.",),
        "ar": ("لا توجد ورقة مأخوذة لإرجاعها.",),
    },
    Code.TAKE_NOT_RETURNABLE: {
        "en": ("The taken card can no longer be returned.",),
        "ar": ("لم يعد بالإمكان إرجاع الورقة المأخوذة.",),
    },
    Code.TAKEN_CARD_NOT_DISCARDABLE: {
        "en": ("You cannot discard the card you took this turn.",),
        "ar": ("لا يمكنك رمي الورقة التي أخذتها في هذا الدور.",),
    },
    Code.TAKEN_CARD_RESTRICTED: {
        "en": ("The taken card may only be used to meet its obligation.",),
        "ar": ("لا تُستخدم الورقة المأخوذة إلا للوفاء بشرط أخذها.",),
    },
    Code.TAKEN_CARD_NOT_IN_OPENING: {
        "en": ("Your opening must include the card you took.",),
        "ar": ("يجب أن يتضمن نزولك الورقة التي أخذتها.",),
    },
    Code.OBLIGATION_UNMET: {
        "en": ("Meet the obligation of the taken card, or return it, before discarding.",),
        "ar": ("أوفِ بشرط الورقة المأخوذة أو أرجعها قبل الرمي.",),
    },
    Code.OBLIGATION_WOULD_FAIL: {
        "en": ("After that move you could no longer meet the taken card's obligation.",),
        "ar": ("بعد هذه الحركة لن تتمكن من الوفاء بشرط الورقة المأخوذة.",),
    },
    Code.INVALID_MELD: {
        "en": ("Those cards do not form a set or a run.",),
        "ar": ("هذه الأوراق لا تشكّل مجموعة ولا تسلسلاً.",),
    },
    Code.JOKER_LIMIT: {
        "en": ("Too many jokers in one meld.",),
        "ar": ("عدد الجوكر كبير جداً في تنزيلة واحدة.",),
    },
    Code.JOKER_DECLARATION_INVALID: {
        "en": ("The joker cannot stand for that card here.",),
        "ar": ("لا يمكن للجوكر أن يحل محل هذه الورقة هنا.",),
    },
    Code.BELOW_THRESHOLD: {
        "en": ("Your opening totals {total} of the {threshold} needed.",
               "Your opening is below the threshold."),
        "ar": ("مجموع نزولك {total} من {threshold} المطلوبة.", "نزولك أقل من الحد المطلوب."),
    },
    Code.NOT_OPEN: {
        "en": ("You must open before laying off or taking a joker.",),
        "ar": ("يجب أن تنزل أولاً قبل الإضافة أو سحب الجوكر.",),
    },
    Code.UNKNOWN_MELD: {
        "en": ("There is no such meld on the table.",),
        "ar": ("لا توجد هذه التنزيلة على الطاولة.",),
    },
    Code.INVALID_LAYOFF: {
        "en": ("Those cards cannot be added to that meld.",),
        "ar": ("لا يمكن إضافة هذه الأوراق إلى هذه التنزيلة.",),
    },
    Code.LAYOFF_LEAVES_TOO_FEW: {
        "en": ("That lay-off would leave too few cards in your hand.",),
        "ar": ("هذه الإضافة تترك في يدك أوراقاً أقل من المسموح.",),
    },
    Code.INVALID_RETRIEVAL: {
        "en": ("Those cards do not free that joker.",),
        "ar": ("هذه الأوراق لا تحرر هذا الجوكر.",),
    },
    Code.MUST_DISCARD_TO_GO_OUT: {
        "en": ("You go out by discarding your last card.",),
        "ar": ("تنتهي يدك برمي آخر ورقة.",),
    },
    Code.GOING_OUT_FORBIDDEN: {
        "en": ("You may not go out on your first turn.",),
        "ar": ("لا يمكنك إنهاء اللعب في دورك الأول.",),
    },
    Code.DEAD_END: {
        "en": ("That move would leave you no legal way to end your turn.",),
        "ar": ("هذه الحركة لا تترك لك طريقة مسموحة لإنهاء دورك.",),
    },
    Code.ONLY_DISCARD_ALLOWED: {
        "en": ("Only the discard is left this turn.",),
        "ar": ("لم يبقَ لك في هذا الدور إلا الرمي.",),
    },
    Code.STAGING_OVERLAP: {
        "en": ("A card is in two staged melds.",),
        "ar": ("ورقة موجودة في تنزيلتين مجهزتين.",),
    },
    Code.MATCH_OVER: {
        "en": ("The match is over.",),
        "ar": ("انتهت المباراة.",),
    },
}

_FORMATTER = string.Formatter()


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in _FORMATTER.parse(template) if name}


def _shown(key: str, value: object) -> str:
    """A parameter as shown in a message and in ``RuleError.params``: engine card
    ids in the one card notation (``10H``, ``JK#2``), lists comma-separated."""
    if key in ("card", "joker") and type(value) is int and 0 <= value < 106:
        return format_card(value)
    if key == "cards" and isinstance(value, (tuple, list)):
        return ",".join(_shown("card", v) for v in value)
    return str(value)


def shown_params(params: Mapping[str, object]) -> dict[str, str]:
    """``params`` as the wire's ``RuleError.params`` (text values, ``None`` left out)."""
    return {k: _shown(k, v) for k, v in params.items() if v is not None}


def message(code: Code, params: Mapping[str, object], lang: str = DEFAULT_LANGUAGE) -> str:
    """The text for ``code`` in ``lang`` (English if ``lang`` is not offered)."""
    templates = CATALOGUE[code].get(lang) or CATALOGUE[code][DEFAULT_LANGUAGE]
    shown = {k: _shown(k, v) for k, v in params.items() if v is not None}
    for template in templates:
        if _fields(template) <= shown.keys():
            return template.format_map(shown)
    return templates[-1]
