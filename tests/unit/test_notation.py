"""Position and game-record notation (hand_engine.notation): exact JSON round
trips of positions met in random games, malformed position documents refused
with INVALID_STATE, and game records that replay to the same final state."""

from __future__ import annotations

import json
import random

import pytest

from hand_engine import (
    PRESETS, Code, RuleViolation, dumps, loads, position_from_dict, position_to_dict, random_step,
    record_to_dict, replay_record, resolve, start_round,
)
from hand_engine.notation import action_from_dict, action_to_dict

def _distinct_presets():
    seen, out = [], []
    for preset in sorted(PRESETS):
        if resolve(preset) not in seen:
            seen.append(resolve(preset))
            out.append(preset)
    return out


GAMES = [(preset, 4 if "partnership" in preset else (5 if preset == "r2019" else 3), seed)
         for preset in _distinct_presets() for seed in (1, 2, 3)]


def random_game(preset, n, seed, max_moves=600):
    """A random legal round: (first state, [(seat, action)], [every state], all events)."""
    rng = random.Random(seed)
    state, events = start_round(resolve(preset), n, seed=seed)
    start, moves, states, all_events = state, [], [state], list(events)
    while not state.over and len(moves) < max_moves:
        seat = state.turn.seat
        state, ev, action = random_step(state, rng)
        moves.append((seat, action))
        states.append(state)
        all_events.extend(ev)
    return start, moves, states, tuple(all_events)


@pytest.mark.parametrize("preset, n, seed", GAMES)
def test_positions_round_trip_exactly(preset, n, seed):
    _, _, states, _ = random_game(preset, n, seed, max_moves=300)
    picks = states[:: max(1, len(states) // 25)] + [states[-1]]
    for s in picks:
        text = dumps(s)
        back = loads(text)
        assert back == s
        assert dumps(back) == text
        assert position_from_dict(json.loads(text)) == s


@pytest.mark.parametrize("preset, n, seed", GAMES)
def test_a_game_record_replays_to_the_same_final_state(preset, n, seed):
    start, moves, states, events = random_game(preset, n, seed)
    record = record_to_dict(start.options, n, start.dealer, start.seed, start.deck, moves,
                            start.round_no)
    final, replayed = replay_record(json.loads(json.dumps(record)))
    assert final == states[-1] and replayed == events
    assert dumps(final) == dumps(states[-1])


def test_some_recorded_games_reach_the_end_of_the_round():
    ended = [random_game(*g)[2][-1].over for g in GAMES]
    assert sum(ended) >= len(GAMES) // 2


def test_actions_round_trip_through_their_dict_form():
    for preset, n, seed in GAMES[:6]:
        _, moves, _, _ = random_game(preset, n, seed, max_moves=200)
        for _, action in moves:
            assert action_from_dict(json.loads(json.dumps(action_to_dict(action)))) == action


# ------------------------------------------------------------------ malformed documents
def base_doc():
    _, _, states, _ = random_game("hand", 3, 5, max_moves=40)
    return position_to_dict(states[-1])


def broken(change):
    d = base_doc()
    change(d)
    return d


def _del(key):
    return lambda d: d.pop(key)


def _set(path, value):
    def change(d):
        target = d
        for k in path[:-1]:
            target = target[k]
        target[path[-1]] = value
    return change


MALFORMED = {
    "wrong format": _set(["format"], "hand-position/0"),
    "no format": _del("format"),
    "no stock": _del("stock"),
    "no turn": _del("turn"),
    "unknown turn field": _set(["turn", "clock"], 5),
    "seats not a number": _set(["seats"], "three"),
    "seat count differs from players": _set(["seats"], 2),
    "a card missing": lambda d: d["stock"].pop(),
    "a card twice": lambda d: d["stock"].append(d["pile"][0] if d["pile"] else d["stock"][0]),
    "hand not a list": _set(["players", 0, "hand"], "AS"),
    "card not text": _set(["players", 0, "hand", 0], 12),
    "turn seat out of range": _set(["turn", "seat"], 7),
    "turn seat not a number": _set(["turn", "seat"], "0"),
    "unknown phase": _set(["turn", "phase"], "dance"),
    "turn flag not a boolean": _set(["turn", "fresh"], "yes"),
    "opened not a boolean": _set(["players", 1, "opened"], "false"),
    "opening total not a number": _set(["players", 1, "opening_total"], "51"),
    "last opening total not a number": _set(["last_opening_total"], "60"),
    "players not a list": _set(["players"], 3),
    "meld with a wrong value": lambda d: d["melds"][0].update(value=d["melds"][0]["value"] + 1)
    if d["melds"] else d.update(melds=[{"id": 1}]),
    "meld with a missing field": _set(["melds"], [{"id": 1, "owner": 0, "kind": "run"}]),
    "result malformed": _set(["result"], {"finish": "normal"}),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_position_is_refused_with_invalid_state(name):
    d = broken(MALFORMED[name])
    with pytest.raises(RuleViolation) as info:
        position_from_dict(d)
    assert info.value.code is Code.INVALID_STATE
    with pytest.raises(RuleViolation) as info:
        loads(json.dumps(d))
    assert info.value.code is Code.INVALID_STATE


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", "null", "42", '{"format": "hand-position/1"}'])
def test_a_text_that_is_not_a_position_is_refused_with_invalid_state(text):
    with pytest.raises(RuleViolation) as info:
        loads(text)
    assert info.value.code is Code.INVALID_STATE


def test_unparsable_card_text_is_unknown_card_and_bad_options_are_invalid_options():
    """The contract (proto/hand/v1/errors.proto) names these codes for those two faults."""
    d = broken(_set(["players", 0, "hand", 0], "ZZ"))
    with pytest.raises(RuleViolation) as info:
        position_from_dict(d)
    assert info.value.code is Code.UNKNOWN_CARD
    d = broken(_set(["options", "opening"], "sideways"))
    with pytest.raises(RuleViolation) as info:
        position_from_dict(d)
    assert info.value.code is Code.INVALID_OPTIONS


def test_a_record_of_another_format_is_refused():
    with pytest.raises(RuleViolation) as info:
        replay_record({"format": "hand-position/1"})
    assert info.value.code is Code.INVALID_ARGUMENT
