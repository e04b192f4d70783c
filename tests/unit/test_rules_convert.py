"""The engine ↔ wire adapter (hand_wire.engine) loses nothing and invents nothing.

States, actions and events of random legal games of every preset go to
protobuf bytes and back unchanged; overrides left unset keep the preset's
value; redacted (None) values travel as unset fields.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hand.v1 import actions_pb2, events_pb2, options_pb2, state_pb2
from hand_engine import (
    PRESETS, Code, Discard, DrawStock, LayMelds, LayOff, MeldSpec, Options, RetrieveJoker,
    ReturnTake, RuleViolation, TakeDiscard, evaluate_staging, random_step, redact, resolve,
    start_round, suggest, view,
)
from hand_wire import (
    action_from_proto, action_to_proto, event_from_proto, event_to_proto, options_from_proto, options_to_proto,
    selection_from_proto, staging_to_proto, state_from_proto, state_to_proto, suggestion_to_proto, view_to_proto,
)


def _wire(message):
    """Through bytes, as on the network."""
    return type(message).FromString(message.SerializeToString())


def _seats(options: Options, rng: random.Random) -> int:
    return 4 if options.partnership else rng.randint(2, options.max_players)


# ------------------------------------------------------------ random games
@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64 - 1))
def test_every_state_action_and_event_of_a_random_game_round_trips(preset: str, seed: int) -> None:
    options = resolve(preset)
    rng = random.Random(seed)
    state, events = start_round(options, _seats(options, rng), seed=seed)
    while True:
        assert state_from_proto(_wire(state_to_proto(state))) == state
        for event in events:
            assert event_from_proto(_wire(event_to_proto(event))) == event
            for seat in (None, *range(state.n)):
                hidden = redact(event, seat)
                assert event_from_proto(_wire(event_to_proto(hidden))) == hidden
        if state.result is not None:
            break
        state, events, action = random_step(state, rng)
        assert action_from_proto(_wire(action_to_proto(action))) == action


def test_redacted_values_are_unset_fields_not_zeros() -> None:
    state, events = start_round(resolve("hand"), 3, seed=5, dealer=0)
    started = event_to_proto(redact(events[0], 1)).round_started
    assert not started.HasField("seed") and list(started.deck) == []
    full = event_to_proto(events[0]).round_started
    assert full.HasField("seed") and len(full.deck) == 106
    state, (drawn, *_) = _draw(state)
    assert event_to_proto(redact(drawn, state.turn.seat)).stock_drawn.HasField("card")
    assert not event_to_proto(redact(drawn, None)).stock_drawn.HasField("card")


def _draw(state):
    from hand_engine import apply, auto_turn

    for action in auto_turn(state):  # the starter's opening discard
        state, _ = apply(state, state.turn.seat, action)
    return apply(state, state.turn.seat, DrawStock())


def test_a_state_with_none_values_keeps_them_none() -> None:
    state, _ = start_round(resolve("saudi"), 4, seed=9)
    msg = state_to_proto(state)
    assert not msg.HasField("last_opening_total") and not msg.HasField("result")
    assert not msg.turn.HasField("drawn") and not msg.turn.HasField("taken")
    assert not msg.seats[0].HasField("opening_total")
    back = state_from_proto(_wire(msg))
    assert back.last_opening_total is None and back.result is None and back.turn.drawn is None


# ----------------------------------------------------------------- options
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_state_options_set_every_field_and_round_trip(preset: str) -> None:
    options = resolve(preset)
    msg = _wire(options_to_proto(options))
    for field in options_pb2.RuleOptions.DESCRIPTOR.fields:
        if field.enum_type is not None:
            assert getattr(msg, field.name) != 0, field.name
        else:
            assert msg.HasField(field.name), field.name
    assert options_from_proto(msg) == options


def test_unset_overrides_keep_the_preset_and_set_ones_apply_even_when_false_or_zero() -> None:
    selection = options_pb2.RuleSelection(
        preset="eram-hand",
        overrides=options_pb2.RuleOptions(
            reshuffle_keep_top=False, max_reshuffles=0, going_out=options_pb2.GOING_OUT_DISCARD_REQUIRED
        ),
    )
    got = selection_from_proto(_wire(selection))
    expected = resolve(
        "eram-hand", {"reshuffle_keep_top": False, "max_reshuffles": 0, "going_out": "discard_required"}
    )
    assert got == expected
    assert got.take_return == "never"  # a preset value that no override touched


def test_an_empty_selection_is_the_hand_defaults() -> None:
    assert selection_from_proto(options_pb2.RuleSelection()) == Options()


@pytest.mark.parametrize(
    "selection",
    [
        options_pb2.RuleSelection(preset="no-such-preset"),
        options_pb2.RuleSelection(overrides=options_pb2.RuleOptions(opening_threshold=0)),
        options_pb2.RuleSelection(overrides=options_pb2.RuleOptions(rounds=4)),
        options_pb2.RuleSelection(overrides=options_pb2.RuleOptions(opening=99)),
    ],
    ids=["unknown preset", "threshold 0", "4 rounds", "unknown enum number"],
)
def test_bad_rule_selections_are_invalid_options(selection) -> None:
    with pytest.raises(RuleViolation) as info:
        selection_from_proto(selection)
    assert info.value.code is Code.INVALID_OPTIONS


def test_table_options_put_rounds_inside_the_options_and_name_the_request_field() -> None:
    from hand_wire import options_from_json, options_to_json, table_options

    selection = options_pb2.RuleSelection(preset="eram-hand", overrides=options_pb2.RuleOptions(rounds=4))
    got = table_options(selection, 3, rounds=7)  # the request's rounds take the overrides' place
    assert got == resolve("eram-hand", {"rounds": 7, "seat_count": 3})  # and its seat count is inside
    assert options_from_json(options_to_json(got)) == got  # the ledger's stored form: the wire's JSON
    for rules, seats, rounds, field in [(selection, 3, 0, "rules.overrides.rounds"), (selection, 3, 4, "rounds"),
                                        (options_pb2.RuleSelection(preset="partnership"), 3, 0, "seat_count")]:
        with pytest.raises(RuleViolation) as info:
            table_options(rules, seats, rounds=rounds, seats_field="seat_count")
        assert (info.value.code, info.value.params["field"]) == (Code.INVALID_OPTIONS, field)


@pytest.mark.parametrize(("preset", "overrides", "seats", "field"), [
    ("hand", {}, 5, "seat_count"),  # max_players 4 bounds the table
    ("hand", {}, 1, "seat_count"),
    ("hand", {}, 0, "seat_count"),  # a count given as 0 (the rules service's seats) is refused, not kept
    ("partnership", {"max_players": 5}, 5, "seat_count"),
    ("saudi-partnership", {}, 2, "seat_count"),
    ("hand", {"seat_count": 6}, None, "rules.overrides.seat_count"),
    ("partnership", {"seat_count": 3}, None, "rules.overrides.seat_count"),
])
def test_a_seat_count_the_options_do_not_allow_is_invalid_options_naming_its_field(preset, overrides, seats,
                                                                                  field) -> None:
    from hand_wire import table_options

    rules = options_pb2.RuleSelection(preset=preset, overrides=options_pb2.RuleOptions(**overrides))
    with pytest.raises(RuleViolation) as info:
        table_options(rules, seats)
    assert info.value.code is Code.INVALID_OPTIONS
    assert (info.value.params["option"], info.value.params["field"]) == ("seat_count", field)


@pytest.mark.parametrize(("preset", "overrides", "seats", "expected"), [
    ("hand", {}, None, 4),  # unset: the default
    ("r2019", {}, 5, 5),
    ("hand", {"seat_count": 3}, None, 3),  # an override, like rounds
    ("hand", {"seat_count": 3}, 2, 2),  # the request's own field takes the override's place
    ("partnership", {}, None, 4),
])
def test_the_seat_count_lands_inside_the_options(preset, overrides, seats, expected) -> None:
    from hand_wire import table_options

    rules = options_pb2.RuleSelection(preset=preset, overrides=options_pb2.RuleOptions(**overrides))
    got = table_options(rules, seats)
    assert got.seat_count == expected and got == resolve(preset, {**overrides, "seat_count": expected})


@pytest.mark.parametrize(("preset", "seats"), [("hand", 3), ("r2019", 5), ("partnership", 4), ("dananeer", 2)])
def test_options_stored_before_seat_count_was_an_option_decode_with_the_count_stored_beside(preset, seats) -> None:
    """The ledger's ``ledger_rooms.options`` and a stored ``RoundState``/``RoomCreated`` were written
    without ``seat_count``: the count stored beside them (the ``seat_count`` column, ``n``) fills it."""
    import json

    from hand_wire import options_from_json, options_to_json

    options = resolve(preset, {"seat_count": seats})
    old = options_to_proto(options)
    old.ClearField("seat_count")
    assert options_from_proto(old, seats) == options
    stored = json.loads(options_to_json(options))
    del stored["seat_count"]
    assert options_from_json(json.dumps(stored), seats) == options
    engine_dict = options.to_dict()  # the form before round 3
    del engine_dict["seat_count"]
    assert options_from_json(json.dumps(engine_dict), seats) == options
    with pytest.raises(RuleViolation) as info:  # nothing to fill it with: still an invalid state
        options_from_proto(old)
    assert info.value.code is Code.INVALID_STATE and info.value.params == {"option": "seat_count"}


def test_a_round_state_stored_without_the_options_seat_count_reads_it_from_n() -> None:
    state, _ = start_round(resolve("hand"), 3, seed=2)
    assert state.options.seat_count == 3  # the round's options are the table's
    msg = state_to_proto(state)
    msg.options.ClearField("seat_count")
    assert state_from_proto(_wire(msg)) == state


# ------------------------------------------------------------------- state
def _state_msg() -> state_pb2.RoundState:
    state, _ = start_round(resolve("hand"), 4, seed=3)
    return state_to_proto(state)


def test_state_options_with_a_field_unset_are_an_invalid_state() -> None:
    msg = _state_msg()
    msg.options.ClearField("max_turns")
    with pytest.raises(RuleViolation) as info:
        state_from_proto(msg)
    assert info.value.code is Code.INVALID_STATE and info.value.params == {"option": "max_turns"}


@pytest.mark.parametrize(
    "tamper",
    [
        lambda m: setattr(m.turn, "phase", state_pb2.TURN_PHASE_UNSPECIFIED),
        lambda m: setattr(m.turn, "phase", 7),
        lambda m: m.melds.add(kind=state_pb2.MELD_KIND_SET, cards=[0, 13, 26], suit=9),
        lambda m: m.melds.add(cards=[0, 13, 26]),
    ],
    ids=["phase unset", "unknown phase", "unknown suit", "meld kind unset"],
)
def test_enum_values_a_state_cannot_hold_are_an_invalid_state(tamper) -> None:
    msg = _state_msg()
    tamper(msg)
    with pytest.raises(RuleViolation) as info:
        state_from_proto(msg)
    assert info.value.code is Code.INVALID_STATE


# ----------------------------------------------------------------- actions
@pytest.mark.parametrize(
    "action",
    [
        DrawStock(), TakeDiscard(), ReturnTake(), Discard(105),
        LayMelds((MeldSpec((1, 2, 104), ((104, 4, 0),)), MeldSpec((13, 26, 39)))),
        LayOff(3, (7, 8), ((105, 9, 2),)), LayOff(1, (0,)),
        RetrieveJoker(2, 104, (5, 70)),
    ],
    ids=repr,
)
def test_every_kind_of_action_round_trips(action) -> None:
    assert action_from_proto(_wire(action_to_proto(action))) == action


@pytest.mark.parametrize(
    "msg, code",
    [
        (actions_pb2.Action(discard=actions_pb2.Discard(card=999)), Code.UNKNOWN_CARD),
        (actions_pb2.Action(lay_off=actions_pb2.LayOff(meld_id=1, cards=[3, 107])), Code.UNKNOWN_CARD),
        (actions_pb2.Action(discard=actions_pb2.Discard(card=0)), Code.UNKNOWN_CARD),
        (actions_pb2.Action(lay_melds=actions_pb2.LayMelds(melds=[
            actions_pb2.MeldSpec(cards=[1, 2, 3]), actions_pb2.MeldSpec(cards=[3, 16, 29])
        ])), Code.DUPLICATE_CARD),
        (actions_pb2.Action(retrieve_joker=actions_pb2.RetrieveJoker(meld_id=1, joker=105, cards=[105])),
         Code.DUPLICATE_CARD),
        (actions_pb2.Action(), Code.INVALID_ARGUMENT),
    ],
    ids=["card 999", "card 107", "card 0 (no card)", "a card in two melds", "the joker for itself", "no move"],
)
def test_malformed_actions_are_refused_whatever_the_position(msg, code) -> None:
    with pytest.raises(RuleViolation) as info:
        action_from_proto(msg)
    assert info.value.code is code


# ------------------------------------------------------------------- views
def test_a_seat_view_holds_its_own_hand_only_and_a_spectator_view_none() -> None:
    state, _ = _draw(start_round(resolve("hand"), 3, seed=11, dealer=2)[0])
    mover = state.turn.seat
    mine = _wire(view_to_proto(view(state, mover), state.options))
    assert mine.seat == mover and list(mine.hand) == [c + 1 for c in state.seats[mover].hand]
    assert mine.turn.HasField("drawn")
    other = _wire(view_to_proto(view(state, (mover + 1) % 3), state.options))
    assert not other.turn.HasField("drawn")
    watcher = _wire(view_to_proto(view(state, None), state.options))
    assert not watcher.HasField("seat") and list(watcher.hand) == []
    assert [s.hand_size for s in watcher.seats] == [len(s.hand) for s in state.seats]
    assert options_from_proto(watcher.options) == state.options


def test_staging_and_suggestions_carry_the_engine_figures() -> None:
    state, _ = start_round(resolve("hand"), 2, seed=4)
    seat = state.turn.seat
    hand = state.seats[seat].hand
    staging = evaluate_staging(state, seat, [hand[:3], ()])
    msg = _wire(staging_to_proto(staging))
    assert (msg.total, msg.threshold, msg.missing, msg.show_counter) == (
        staging.total, staging.threshold, staging.missing, staging.show_counter
    )
    assert [tuple(c - 1 for c in v.cards) for v in msg.verdicts] == [hand[:3], ()]
    suggestion = suggest(state, seat, "shed")
    out = _wire(suggestion_to_proto(suggestion))
    assert [tuple(c - 1 for c in m.cards) for m in out.melds] == [m.cards for m in suggestion.melds]
    assert (out.total, out.left_value) == (suggestion.total, suggestion.left_value)


def test_an_event_with_no_member_set_is_refused() -> None:
    with pytest.raises(RuleViolation):
        event_from_proto(events_pb2.Event())


@pytest.mark.parametrize("preset", ["hand", "saudi", "eram-hand", "partnership"])
def test_a_ledger_row_written_before_round_3_still_reads(preset) -> None:
    """Ledgers stored the engine's dict (``Options.to_dict``) before the wire's JSON: both read."""
    import json

    from hand_wire import options_from_json

    options = resolve(preset, {"rounds": 5})
    assert options_from_json(json.dumps(options.to_dict())) == options
