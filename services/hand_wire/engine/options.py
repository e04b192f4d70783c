"""Rule options: engine ``Options`` ⇔ ``RuleOptions``; ``RuleSelection`` → ``Options``.

The one conversion between the two shapes a room's options take (the wire's
``RuleSelection``/``RuleOptions`` and the engine's ``Options``):
``table_options`` reads a request's rules with its ``rounds`` and seat count
into the engine's options (``rounds`` lands inside them; the seat count is
checked against them), naming the request field of a refusal;
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


def options_from_json(text: str) -> Options:
    """``options_to_json`` read back (``options_from_proto`` of the parsed ``RuleOptions``).

    Ledgers written before round 3 stored the engine's own dict (``Options.to_dict``, enums as
    their engine strings, which protobuf's JSON cannot parse): that form is still read, so an
    existing ledger database needs no migration."""
    try:
        return options_from_proto(json_format.Parse(text, options_pb2.RuleOptions()))
    except json_format.ParseError:
        return with_overrides(Options(), json.loads(text))


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


def options_from_proto(msg: options_pb2.RuleOptions) -> Options:
    """The options of a ``RoundState``: every field must be set (else ``INVALID_STATE``)."""
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


def table_options(rules: options_pb2.RuleSelection, seats: int, *, rounds: int = 0, prefix: str = "rules",
                  seats_field: str = "seats", rounds_field: str = "rounds") -> Options:
    """A table's effective options: defaults ← preset ← overrides ← ``rounds`` (0: keep), checked for
    ``seats`` players. An ``INVALID_OPTIONS`` refusal names its request field (``name_option_field``;
    ``rounds_field`` when it is about the ``rounds`` given here)."""
    if rounds:
        rules = options_pb2.RuleSelection(preset=rules.preset, overrides=rules.overrides)
        rules.overrides.rounds = rounds
    try:
        options = selection_from_proto(rules)
        options.check_players(seats)
    except RuleViolation as exc:
        name_option_field(exc, prefix, seats_field)
        if rounds and exc.params.get("option") == "rounds":
            exc.params["field"] = rounds_field
        raise
    return options


def name_option_field(exc: RuleViolation, prefix: str = "rules", players_field: str = "seats") -> RuleViolation:
    """Name the request field an ``INVALID_OPTIONS`` refusal is about (``params["field"]``):
    ``<prefix>.overrides.<option>``, ``<prefix>.preset``, or the player count's field."""
    option = exc.params.get("option")
    if option == "players":
        exc.params["field"] = players_field
    elif option:
        exc.params["field"] = f"{prefix}.overrides.{option}"
    elif "preset" in exc.params:
        exc.params["field"] = f"{prefix}.preset"
    return exc
