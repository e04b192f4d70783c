"""JSON forms of engine events and actions for stored room events."""

from __future__ import annotations

import dataclasses
from typing import Any

from hand_engine import Action, action_from_dict, action_to_dict


def event_to_json(event: Any) -> dict[str, Any]:
    """An engine event as JSON: ``{"type": "StockDrawn", ...fields}`` (card ids as ints)."""
    return {"type": type(event).__name__, **_plain(dataclasses.asdict(event))}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def action_json(action: Action) -> dict[str, Any]:
    return action_to_dict(action)


def action_from_json(d: dict[str, Any]) -> Action:
    return action_from_dict(d)
