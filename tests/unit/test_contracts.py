"""The protobuf contracts (proto/hand/v1) carry every part of the engine's domain model.

These tests fail when the engine grows a code, option, action, event or state
field that the wire contract cannot express, so the two never drift apart.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pathlib
import re

import pytest

from hand.v1 import (
    actions_pb2,
    cards_pb2,
    errors_pb2,
    events_pb2,
    options_pb2,
    rules_service_pb2,
    rules_service_pb2_grpc,
    state_pb2,
    views_pb2,
)
from hand_engine import actions, cards, errors, events, options, state


def _dataclasses_of(module: object) -> list[type]:
    return [
        obj
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if dataclasses.is_dataclass(obj) and obj.__module__ == module.__name__
    ]


def _field_names(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def _upper_snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).upper()


PROTO_DIR = pathlib.Path(__file__).resolve().parents[2] / "proto" / "hand" / "v1"
EVENT_CLASSES = sorted(_dataclasses_of(events), key=lambda c: c.__name__)


# --------------------------------------------------------------------- errors
@pytest.mark.parametrize("code", list(errors.Code), ids=lambda c: c.name)
def test_every_engine_error_code_has_an_error_code_value_of_the_same_name(code):
    assert f"ERROR_CODE_{code.name}" in errors_pb2.ErrorCode.keys()


def test_error_code_zero_value_is_unspecified():
    assert errors_pb2.ErrorCode.Name(0) == "ERROR_CODE_UNSPECIFIED"


def test_rule_error_carries_code_message_and_string_params():
    err = errors_pb2.RuleError(
        code=errors_pb2.ERROR_CODE_NOT_YOUR_TURN, message="not your turn", params={"seat": "2"}
    )
    back = errors_pb2.RuleError.FromString(err.SerializeToString())
    assert back == err and back.params["seat"] == "2"


# -------------------------------------------------------------------- options
@pytest.mark.parametrize("name", options.FIELDS)
def test_every_engine_option_has_a_rule_options_field_of_the_same_name(name):
    assert name in options_pb2.RuleOptions.DESCRIPTOR.fields_by_name


@pytest.mark.parametrize("name", options.FIELDS)
def test_every_rule_option_can_be_left_unset(name):
    """Unset means "keep the preset's value": scalars are optional, enums have UNSPECIFIED."""
    field = options_pb2.RuleOptions.DESCRIPTOR.fields_by_name[name]
    if field.enum_type is not None:
        assert field.enum_type.values_by_number[0].name.endswith("_UNSPECIFIED")
    else:
        assert field.has_presence


@pytest.mark.parametrize(
    "name",
    [n for n, allowed in options.CHOICES.items() if isinstance(allowed[0], str)],
)
def test_string_option_choices_map_to_enum_values_prefix_plus_upper_case(name):
    enum = options_pb2.RuleOptions.DESCRIPTOR.fields_by_name[name].enum_type
    assert enum is not None, f"{name} should be an enum"
    prefix = _upper_snake(enum.name)
    expected = {f"{prefix}_{v.upper()}" for v in options.CHOICES[name]}
    actual = {v.name for v in enum.values} - {f"{prefix}_UNSPECIFIED"}
    assert actual == expected


def test_rule_options_has_no_field_the_engine_does_not_know():
    assert set(options_pb2.RuleOptions.DESCRIPTOR.fields_by_name) == set(options.FIELDS)


def test_an_unset_override_is_distinguishable_from_a_zero_or_false_one():
    sel = options_pb2.RuleSelection(
        preset="dananeer", overrides=options_pb2.RuleOptions(partnership=False)
    )
    back = options_pb2.RuleSelection.FromString(sel.SerializeToString())
    assert back.overrides.HasField("partnership")
    assert not back.overrides.HasField("max_reshuffles")


# -------------------------------------------------------------------- actions
@pytest.mark.parametrize("name", sorted(actions.ACTION_TYPES))
def test_every_action_type_has_an_action_oneof_member(name):
    oneof = actions_pb2.Action.DESCRIPTOR.oneofs_by_name["action"]
    members = {f.name: f for f in oneof.fields}
    assert name in members
    cls = actions.ACTION_TYPES[name]
    message = members[name].message_type
    assert message.name == cls.__name__
    assert set(_field_names(cls)) <= set(message.fields_by_name)


def test_meld_spec_mirrors_the_engine_meld_spec():
    assert set(_field_names(actions.MeldSpec)) <= set(
        actions_pb2.MeldSpec.DESCRIPTOR.fields_by_name
    )


# --------------------------------------------------------------------- events
@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda c: c.__name__)
def test_every_event_class_has_an_event_oneof_member_with_its_fields(cls):
    oneof = events_pb2.Event.DESCRIPTOR.oneofs_by_name["event"]
    by_type = {f.message_type.name: f for f in oneof.fields}
    assert cls.__name__ in by_type
    message = by_type[cls.__name__].message_type
    assert set(_field_names(cls)) <= set(message.fields_by_name)


def test_event_classes_were_found():
    assert len(EVENT_CLASSES) >= 11


# ---------------------------------------------------------------------- state
@pytest.mark.parametrize(
    "engine_cls, message",
    [
        (state.Meld, state_pb2.Meld),
        (state.Turn, state_pb2.Turn),
        (state.Seat, state_pb2.SeatState),
        (state.SeatResult, state_pb2.SeatResult),
        (state.RoundResult, state_pb2.RoundResult),
        (state.RoundState, state_pb2.RoundState),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_state_messages_mirror_the_engine_state_field_by_field(engine_cls, message):
    assert set(_field_names(engine_cls)) <= set(message.DESCRIPTOR.fields_by_name)


# ---------------------------------------------------------------------- cards
def test_suit_enum_is_the_engine_suit_plus_one():
    names = {"S": "SPADES", "H": "HEARTS", "D": "DIAMONDS", "C": "CLUBS"}
    for engine_suit, letter in enumerate(cards.SUITS):
        assert cards_pb2.Suit.Value(f"SUIT_{names[letter]}") == engine_suit + 1
    assert cards_pb2.Suit.Name(0) == "SUIT_UNSPECIFIED"


def test_documented_card_id_examples_match_the_engine_plus_one():
    """The wire id is the engine id + 1, so that no card is a proto3 zero value."""
    from hand_wire import card_in, card_out
    text = (PROTO_DIR / "cards.proto").read_text(encoding="utf-8")
    for card, wire_id in (("AS", 1), ("10H", 23), ("KC", 52), ("9H#2", 74)):
        assert card_out(cards.parse_card(card)) == wire_id and card_in(wire_id) == cards.parse_card(card)
        assert f"{card} = {wire_id}" in text


def test_no_card_is_zero_on_the_wire():
    from hand_engine import RuleViolation
    from hand_wire import card_in, cards_out
    assert 0 not in cards_out(range(106)) and sorted(cards_out(range(106))) == list(range(1, 107))
    with pytest.raises(RuleViolation):
        card_in(0)


# -------------------------------------------------------------------- service
def test_rules_service_has_every_rpc_with_its_own_request_and_response():
    service = rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"]
    rpcs = {m.name: m for m in service.methods}
    assert set(rpcs) == {
        "StartRound",
        "ApplyAction",
        "EvaluateStaging",
        "SuggestMelds",
        "GetView",
        "AutoTurn",
        "Echo",
    }
    for name, method in rpcs.items():
        assert method.input_type.name == f"{name}Request"
        assert method.output_type.name == f"{name}Response"
    assert hasattr(rules_service_pb2_grpc, "RulesServiceStub")


def test_start_round_takes_a_seed_or_an_explicit_deck():
    req = rules_service_pb2.StartRoundRequest(seats=4, seed=7)
    assert req.WhichOneof("deal") == "seed"
    req.deck.cards.extend(range(106))
    assert req.WhichOneof("deal") == "deck"


def test_seat_view_has_no_field_for_secrets():
    """A view never carries the stock order, the deal or the seed (docs/rules.md §11)."""
    fields = set(views_pb2.SeatView.DESCRIPTOR.fields_by_name)
    assert not fields & {"stock", "deck", "seed", "rebuild_orders", "seats_hands"}


# ------------------------------------------------- views, staging, suggestions
def _engine_module(name: str):
    return importlib.import_module(f"hand_engine.{name}")


@pytest.mark.parametrize(
    "module, engine_name, message",
    [
        ("views", "PublicSeat", views_pb2.PublicSeat),
        ("views", "TurnView", views_pb2.TurnView),
        ("views", "SeatView", views_pb2.SeatView),
        ("staging", "Verdict", views_pb2.CandidateVerdict),
        ("staging", "Staging", views_pb2.StagingEvaluation),
        ("suggest", "Suggestion", rules_service_pb2.SuggestMeldsResponse),
    ],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_view_staging_and_suggestion_messages_mirror_the_engine(module, engine_name, message):
    engine_cls = getattr(_engine_module(module), engine_name)
    assert set(_field_names(engine_cls)) <= set(message.DESCRIPTOR.fields_by_name)


@pytest.mark.parametrize(
    "enum, values",
    [
        (state_pb2.MeldKind, ("set", "run")),
        (state_pb2.TurnPhase, ("draw", "play")),
        (state_pb2.Finish, ("normal", "hand", "exhausted", "void")),
        (views_pb2.StagingColour, ("green", "neutral", "red")),
        (rules_service_pb2.SuggestionGoal, ("opening", "shed")),
    ],
    ids=lambda x: getattr(getattr(x, "DESCRIPTOR", None), "name", ""),
)
def test_engine_strings_map_to_enum_values_prefix_plus_upper_case(enum, values):
    prefix = _upper_snake(enum.DESCRIPTOR.name)
    assert set(enum.keys()) == {f"{prefix}_UNSPECIFIED"} | {f"{prefix}_{v.upper()}" for v in values}
