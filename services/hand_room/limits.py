"""The room service's checks of what a client may send, before any work (the bounds
themselves are declared once, in ``hand_common.limits``).

Every refusal is ``INVALID_ARGUMENT`` with ``params["field"]`` naming the
request field and the limit that was broken (docs/contracts.md, "Limits").
"""

from __future__ import annotations

import re
import secrets

from hand_common.limits import (  # noqa: F401 (re-exported: the bounds are declared there, once)
    DEFAULT_PAGE_SIZE, MAX_ID, MAX_NAME, MAX_PAGE_SIZE, MAX_ROOM_ID, TURN_SECONDS,
)
from hand_common.limits import MAX_SEAT_TOKEN as MAX_TOKEN  # noqa: F401

from hand_table import RoomError

ROOM_ID = re.compile(f"[A-Za-z0-9_-]{{1,{MAX_ROOM_ID}}}")
ROOM_ID_CHARS = "A-Z a-z 0-9 - _"  # how a refusal names them (params["chars"])
JOIN_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
JOIN_CODE = re.compile(f"[{JOIN_CODE_ALPHABET}]{{6}}")
MAX_ACTION_ID = MAX_ID
MAX_PLAYER_ID = MAX_ID


def invalid(field: str, detail: str, **params) -> RoomError:
    return RoomError("INVALID_ARGUMENT", detail, field=field, **params)


def room_id(value: str, field: str = "room_id") -> str:
    if not value:
        raise invalid(field, f"{field} is required")
    if not ROOM_ID.fullmatch(value):
        raise invalid(field, f"room_id must be 1..{MAX_ROOM_ID} letters, digits, '-' or '_'", min=1, max=MAX_ROOM_ID,
                      chars=ROOM_ID_CHARS)
    return value


def text(value: str, field: str, limit: int, *, required: bool = False) -> str:
    if len(value) > limit:
        raise invalid(field, f"{field} is too long", max=limit)
    if required and not value:
        raise invalid(field, f"{field} is required")
    return value


def action_id(value: str) -> str:
    text(value, "action_id", MAX_ACTION_ID, required=True)
    if not value.isprintable():
        raise invalid("action_id", "action_id must be printable text")
    return value


def new_join_code() -> str:
    """A random join code: 32^6, about 10^9 of them, so codes repeat over a service's life
    (``RoomIndex.free_code`` keeps one off the rooms in play)."""
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(6))


def join_code(value: str) -> str:
    code = value.strip().upper()
    if not JOIN_CODE.fullmatch(code):
        raise invalid("join_code", "a join code is 6 letters and digits", allowed=JOIN_CODE_ALPHABET)
    return code


def in_range(value: int, field: str, bounds: tuple[int, int]) -> int:
    lo, hi = bounds
    if not lo <= value <= hi:
        raise invalid(field, f"{field} out of range", min=lo, max=hi)
    return value


def loggable_room_id(value: str) -> str | None:
    """A room id fit for a log line (a malformed one is never logged raw)."""
    return value if ROOM_ID.fullmatch(value) else None
