"""Events: engine event dataclasses ⇔ ``hand.v1.Event``.

Generic over the event classes: the oneof member is the class name in
snake_case and the fields share their names (pinned by the contract tests).
``None`` (a redacted or absent value) is an unset optional field; an
empty tuple is an empty repeated field.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from hand.v1 import events_pb2
from hand_engine import Code, Meld, RoundResult, RuleViolation
import hand_engine as _engine  # the event classes, by name

from . import state as _state
from ._cards import card_in, cards_in, cards_out

# fields of the event classes that hold card ids (the wire shifts them by one)
_CARD = frozenset({"card", "joker"})
_CARDS = frozenset({"cards", "deck", "order"})

_ONEOF = events_pb2.Event.DESCRIPTOR.oneofs_by_name["event"]
_MEMBER_OF = {f.message_type.name: f.name for f in _ONEOF.fields}
_CLASSES = {name: getattr(_engine, name) for name in _MEMBER_OF}
_TO_ENGINE = {"Meld": _state.meld_from_proto, "RoundResult": _state.result_from_proto}
#: per event class: its oneof member, its message class and its field names (looked up once:
#: ``dataclasses.fields`` per event was 2 % of a loaded room instance's loop)
_SHAPES = {name: (_MEMBER_OF[name], getattr(events_pb2, name), tuple(f.name for f in dataclasses.fields(cls)))
           for name, cls in _CLASSES.items()}


def _to_wire(name: str, value: Any) -> Any:
    if name in _CARD:
        return None if value is None else value + 1
    if name in _CARDS:
        return cards_out(value)
    if isinstance(value, Meld):
        return _state._meld_message(value)
    if isinstance(value, RoundResult):
        return _state.result_to_proto(value)
    if isinstance(value, tuple) and value and isinstance(value[0], Meld):
        return [_state._meld_message(m) for m in value]
    return value


def event_to_proto(event: Any) -> events_pb2.Event:
    member, message, names = _SHAPES[type(event).__name__]
    body = message(**{name: _to_wire(name, getattr(event, name)) for name in names})
    return events_pb2.Event(**{member: body})


def _from_wire(msg: Any, field: FieldDescriptor) -> Any:
    value = getattr(msg, field.name)
    if field.message_type is not None:
        fn = _TO_ENGINE[field.message_type.name]
        if field.is_repeated:
            return tuple(fn(v) for v in value)
        return fn(value)
    if field.is_repeated:
        return cards_in(value, field=field.name) if field.name in _CARDS else tuple(value)
    if field.has_presence and not msg.HasField(field.name):
        return None
    return card_in(value, field=field.name) if field.name in _CARD else value


def event_from_proto(msg: events_pb2.Event) -> Any:
    """The engine event (e.g. for a room owner replaying stored events)."""
    member = msg.WhichOneof("event")
    if member is None:
        raise RuleViolation(Code.INVALID_ARGUMENT, "no event set")
    body = getattr(msg, member)
    cls = _CLASSES[body.DESCRIPTOR.name]
    fields = body.DESCRIPTOR.fields_by_name
    return cls(**{f.name: _from_wire(body, fields[f.name]) for f in dataclasses.fields(cls)})


__all__ = ["event_from_proto", "event_to_proto"]
