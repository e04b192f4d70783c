"""Wire formats of the room service's Kafka messages (JSON, UTF-8).

- ``hand.room-commands`` (key room_id): ``{"room_id", "type", "command_id",
  "reply_to", "token_hash", "action_id", "payload", "sent_at"}``;
- ``hand.room-replies`` (key reply_to): ``{"command_id", "reply_to", "ok",
  "seqs", "result", "code", "message", "params"}``;
- ``hand.bot-requests`` (key room_id): ``{"room_id", "seat", "level",
  "round_no", "turn_no", "seq", "perspective"}``.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any


def encode(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def decode(raw: bytes) -> dict[str, Any]:
    return json.loads(raw)


def command(room_id: str, type_: str, *, reply_to: str = "", token_hash: str = "",
            action_id: str | None = None, payload: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"room_id": room_id, "type": type_, "command_id": uuid.uuid4().hex,
            "reply_to": reply_to, "token_hash": token_hash, "action_id": action_id,
            "payload": payload or {}, "sent_at": time.time()}
