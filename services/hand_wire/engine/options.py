"""Rule options: engine ``Options`` ⇔ ``RuleOptions``; ``RuleSelection`` → ``Options``.

The one conversion between the two shapes a room's options take (the wire's
``RuleSelection``/``RuleOptions`` and the engine's ``Options``):
``table_options`` reads a request's rules with its ``rounds`` and ``seat_count``
into the engine's options (both land inside them, where the engine checks
them), naming the request field of a refusal;
``options_to_json`` is the wire message's text form, which the ledger stores.

Driven by the descriptors, so a new option needs no code here (the contract
tests already pin that every engine option has a field of the same name).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from google.protobuf import json_format

from hand.v1 import options_pb2
from hand_engine import Code, Options, RuleViolation, resolve, with_overrides

from ._enums import EnumCodec

_FIELDS = options_pb2.RuleOptions.DESCRIPTOR.fields
_ENUMS = {f.name: EnumCodec(f.enum_type) for f in _FIELDS if f.enum_type is not None}
_SCALARS = tuple(f.name for f in _FIELDS if f.enum_type is None)
_DEFAULT_PRESET = "hand"


_NAMES = tuple(f.name for f in _FIELDS)


@lru_cache(maxsize=256)
def options_message(options: Options) -> options_pb2.RuleOptions:
    """``options_to_proto``, cached: a room's options are the same on every call.

    Shared: only pass it where protobuf copies it (a constructor, ``CopyFrom``).
    """
    values = {name: getattr(options, name) for name in _NAMES}
    for name, codec in _ENUMS.items():
        values[name] = codec.encode(values[name])
    return options_pb2.RuleOptions(**values)


def options_to_proto(options: Options) -> options_pb2.RuleOptions:
    """Every field set (the form of ``RoundState.options``); a fresh message."""
    msg = options_pb2.RuleOptions()
    msg.CopyFrom(options_message(options))
    return msg


def options_to_json(options: Options) -> str:
    """The options as the wire's own text: ``RuleOptions`` in protobuf's JSON mapping (field names
    kept, enums by name), every field set. What the ledger stores."""
    return json_format.MessageToJson(options_message(options), preserving_proto_field_name=True,
                                     indent=None, sort_keys=True)


def options_from_json(text: str, seat_count: int = 0) -> Options:
    """``options_to_json`` read back (``options_from_proto`` of the parsed ``RuleOptions``).

    Older stored forms are still read, so an existing ledger database needs no migration: text
    written before ``seat_count`` was an option lacks it, and ``seat_count`` (the count stored
    beside it, the ledger's ``seat_count`` column) fills it; ledgers written before round 3 stored
    the engine's own dict (``Options.to_dict``, enums as their engine strings, which protobuf's
    JSON cannot parse), also without ``seat_count``."""
    try:
        return options_from_proto(json_format.Parse(text, options_pb2.RuleOptions()), seat_count)
    except json_format.ParseError:
        stored = json.loads(text)
        return with_overrides(Options(), {**({"seat_count": seat_count} if seat_count else {}), **stored})


def _set_fields(msg: options_pb2.RuleOptions, code: Code) -> dict[str, Any]:
    """The fields that are set, as engine values (unset scalars and 0 enums left out)."""
    out: dict[str, Any] = {}
    for name in _SCALARS:
        if msg.HasField(name):
            out[name] = getattr(msg, name)
    for name, codec in _ENUMS.items():
        number = getattr(msg, name)
        if number:
            out[name] = codec.decode(number, code, name)
    return out


def options_from_proto(msg: options_pb2.RuleOptions, seat_count: int = 0) -> Options:
    """The options of a ``RoundState`` or a stored event: every field must be set (else
    ``INVALID_STATE``), but for ``seat_count`` in a message written before it was an option:
    ``seat_count`` (the count carried beside the options: ``RoomCreated.seat_count``,
    ``RoundState.n``) stands in for it when given."""
    if seat_count and not msg.HasField("seat_count"):
        copy = options_pb2.RuleOptions()
        copy.CopyFrom(msg)
        copy.seat_count = seat_count
        msg = copy
    return _decode_full(msg.SerializeToString(deterministic=True))


@lru_cache(maxsize=256)
def _decode_full(data: bytes) -> Options:
    values = _set_fields(options_pb2.RuleOptions.FromString(data), Code.INVALID_STATE)
    missing = sorted((set(_SCALARS) | set(_ENUMS)) - set(values))
    if missing:
        raise RuleViolation(Code.INVALID_STATE, f"options: {missing[0]} not set", option=missing[0])
    try:
        return Options(**values)
    except RuleViolation as exc:
        raise RuleViolation(Code.INVALID_STATE, exc.detail, **exc.params) from None


def selection_from_proto(msg: options_pb2.RuleSelection) -> Options:
    """Effective options: defaults ← preset (empty = "hand") ← the overrides that are set."""
    overrides = _set_fields(msg.overrides, Code.INVALID_OPTIONS)
    return resolve(msg.preset or _DEFAULT_PRESET, overrides)


def table_options(rules: options_pb2.RuleSelection, seat_count: int | None = None, *, rounds: int = 0,
                  prefix: str = "rules", seats_field: str = "seat_count", rounds_field: str = "rounds") -> Options:
    """The one conversion of a request's options: defaults ← preset ← overrides ← the request's own
    ``seat_count`` (``None``: keep) and ``rounds`` (0: keep), which take the overrides' place; the
    engine checks them all (``Options``: the seat count against ``max_players`` and ``partnership``).
    An ``INVALID_OPTIONS`` refusal names its request field (``name_option_field``: ``seats_field`` or
    ``rounds_field`` when it is about the value given beside the selection)."""
    own: dict[str, str] = {}
    if rounds or seat_count is not None:
        rules = options_pb2.RuleSelection(preset=rules.preset, overrides=rules.overrides)
        if rounds:
            rules.overrides.rounds, own["rounds"] = rounds, rounds_field
        if seat_count is not None:
            rules.overrides.seat_count, own["seat_count"] = seat_count, seats_field
    try:
        return selection_from_proto(rules)
    except RuleViolation as exc:
        raise name_option_field(exc, prefix, own) from None


def name_option_field(exc: RuleViolation, prefix: str = "rules", own: dict[str, str] | None = None) -> RuleViolation:
    """Name the request field an ``INVALID_OPTIONS`` refusal is about (``params["field"]``): the
    request's own field for an option it gave beside its selection (``own``: option → field), else
    ``<prefix>.overrides.<option>``, or ``<prefix>.preset``."""
    option = exc.params.get("option")
    if option and own and option in own:
        exc.params["field"] = own[option]
    elif option:
        exc.params["field"] = f"{prefix}.overrides.{option}"
    elif "preset" in exc.params:
        exc.params["field"] = f"{prefix}.preset"
    return exc
