"""Refusals at the door → a gRPC status with a ``hand.v1.RuleError`` detail.

Every service refuses a request the same way (docs/contracts.md): the status
code, a stable ``ErrorCode``, the offending field and the limit in
``params``, and a message in the caller's language (``accept-language``:
``ar`` or ``en``). This module holds the codes that any service can send
before its own handler runs — malformed bytes, a field over its limit, a bad
page token, no or a bad session, too many requests — and the function that
makes their status.
"""

from __future__ import annotations

from collections.abc import Mapping

import grpc

from hand_engine import Code

from .refused import Refusal
from .rule_messages import message
from .status import pack

__all__ = ["DOOR_MESSAGES", "FIELD_MESSAGES", "Refusal", "door_text", "refusal_message", "refusal_status"]

#: code → (gRPC status, {language: message}); messages name no request value.
DOOR_MESSAGES: dict[str, tuple[grpc.StatusCode, dict[str, str]]] = {
    "INVALID_ARGUMENT": (grpc.StatusCode.INVALID_ARGUMENT, {
        "en": "The request is malformed.", "ar": "الطلب غير صالح."}),
    "LIMIT_EXCEEDED": (grpc.StatusCode.INVALID_ARGUMENT, {
        "en": "A field of the request is longer than its limit.",
        "ar": "أحد حقول الطلب أطول من الحد المسموح."}),
    "RATE_LIMITED": (grpc.StatusCode.RESOURCE_EXHAUSTED, {
        "en": "Too many requests; retry a little later.",
        "ar": "طلبات كثيرة جداً؛ أعد المحاولة بعد قليل."}),
    "UNAUTHENTICATED": (grpc.StatusCode.UNAUTHENTICATED, {
        "en": "Sign in first: the session token is missing or not valid.",
        "ar": "سجّل الدخول أولاً: رمز الجلسة مفقود أو غير صالح."}),
    "SESSION_EXPIRED": (grpc.StatusCode.UNAUTHENTICATED, {
        "en": "The session has expired; refresh it.",
        "ar": "انتهت صلاحية الجلسة؛ جدّدها."}),
    "SERVICE_UNAVAILABLE": (grpc.StatusCode.UNAVAILABLE, {
        "en": "The service cannot reach its database; nothing was changed. Retry shortly.",
        "ar": "تعذّر على الخدمة الوصول إلى قاعدة بياناتها؛ لم يتغير شيء. أعد المحاولة بعد قليل."}),
    "OVERLOADED": (grpc.StatusCode.RESOURCE_EXHAUSTED, {
        "en": "The server is at capacity; nothing was changed. Retry shortly with the same request.",
        "ar": "الخادم في أقصى طاقته؛ لم يتغير شيء. أعد المحاولة بعد قليل بالطلب نفسه."}),
}


#: (code, field) → {language: message}: what a refusal of that field says instead of its code's.
FIELD_MESSAGES: dict[tuple[str, str], dict[str, str]] = {
    ("UNAUTHENTICATED", "refresh_token"): {
        "en": "This refresh token cannot be used (spent, expired or unknown): sign in again.",
        "ar": "لا يمكن استخدام رمز التجديد هذا (مستخدَم أو منتهي الصلاحية أو غير معروف): سجّل الدخول من جديد."},
}


def door_text(code: str, params: Mapping[str, object], lang: str) -> str:
    """A door refusal's message in ``lang``: a malformed field's names the field and what it
    must be (the rules' catalogue, from ``params``), a few fields have their own
    (``FIELD_MESSAGES``), anything else its code's (``DOOR_MESSAGES``)."""
    messages = DOOR_MESSAGES.get(code, DOOR_MESSAGES["INVALID_ARGUMENT"])[1]
    field = str(params.get("field", ""))
    messages = FIELD_MESSAGES.get((code, field), messages)
    if code == "INVALID_ARGUMENT" and field and not field.startswith("("):
        return message(Code.INVALID_ARGUMENT, params, lang)
    return messages.get(lang, messages["en"])


def refusal_status(refusal: Refusal, lang: str) -> grpc.Status:
    """The status of a door refusal in ``lang`` (its message: ``door_text``)."""
    grpc_code = DOOR_MESSAGES.get(refusal.code, DOOR_MESSAGES["INVALID_ARGUMENT"])[0]
    return pack(grpc_code, refusal.code, door_text(refusal.code, refusal.params, lang), refusal.params)


def refusal_message(catalogue: Mapping[str, Mapping[str, str]], code: str,
                    params: Mapping[str, object], lang: str) -> str:
    """The text of a refusal: an engine code's from the rules' catalogue, a door code's
    from ``DOOR_MESSAGES``, any other from the service's ``catalogue`` ({code: {lang:
    template}}, ``INTERNAL`` for an unknown code) with its ``{params}`` filled in
    (without them, the sentence before its parenthesis)."""
    if code in Code.__members__:
        return message(Code[code], params, lang)
    if code in DOOR_MESSAGES and code not in catalogue:
        messages = DOOR_MESSAGES[code][1]
        return messages.get(lang, messages["en"])
    entry = catalogue.get(code) or catalogue["INTERNAL"]
    template = entry.get(lang, entry["en"])
    try:
        return template.format_map({k: str(v) for k, v in params.items()})
    except (KeyError, ValueError):
        return template.split(" (")[0].rstrip(".") + "."
