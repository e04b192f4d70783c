"""The bots (services/hand_bot): what each level does in chosen positions, that
decisions are deterministic, and that a bot sees only its seat's view."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

import hand_bot
from hand.v1 import room_bus_pb2
from hand_bot.policy import ALL_LEVELS, LEVELS, choose_moves, plan
from hand_bot.service import BotAsk, answer, ask_from_proto, request_seed
from hand_wire import bot_request
from hand_engine import (
    Discard, DrawStock, LayMelds, TakeDiscard, apply, auto_turn, random_step, resolve, start_round,
)
from hand_engine.perspective import determinize, perspective
from hand_engine.state import RoundState
from hand_sim.positions import build
from tests.bot_support import mid_game, reshuffle_hidden
from tests.rules_support import c, cs, opts


def bot_plan(state: RoundState, level: str, seed: int = 1) -> list:
    """The bot's answer to a request for ``state`` (through the perspective, as in production)."""
    return choose_moves(perspective(state, state.turn.seat), level, seed)


def after(state: RoundState, actions: list) -> RoundState:
    for action in actions:
        state, _ = apply(state, state.turn.seat, action)
    return state


def laid_cards(actions: list) -> set[int]:
    return {x for a in actions if isinstance(a, LayMelds) for m in a.melds for x in m.cards}


# ------------------------------------------------------------------ no cheating
@pytest.fixture
def exact_expert(monkeypatch):
    """Expert on a rollout budget only: a CPU cap could end two searches at different samples."""
    from hand_bot import policy
    from hand_bot.expert import Budget

    monkeypatch.setitem(policy.BUDGETS, "expert", Budget(rollouts=12, cpu_ms=None))


@pytest.mark.parametrize("preset", ["hand", "saudi-partnership", "eram-hand", "dananeer"])
def test_states_differing_only_in_hidden_cards_give_identical_requests_and_decisions(
        preset: str, exact_expert) -> None:
    state = mid_game(preset)
    seat = state.turn.seat
    other = reshuffle_hidden(state, seat, 99)
    assert other.seats != state.seats and other.stock != state.stock
    p1, p2 = perspective(state, seat), perspective(other, seat)
    assert json.dumps(p1, sort_keys=True).encode() == json.dumps(p2, sort_keys=True).encode()
    for level in ALL_LEVELS:
        if level not in ("beginner", "middle", "strong", "expert"):
            continue  # the wire carries the service's levels only
        # the Kafka request itself (hand.v1.BotRequest) is byte-identical
        r1, r2 = (bot_request("r", s, seat, level, 5, []) for s in (state, other))
        assert r1 == r2, level
        a1 = answer(ask_from_proto(room_bus_pb2.BotRequest.FromString(r1)))
        a2 = answer(ask_from_proto(room_bus_pb2.BotRequest.FromString(r2)))
        assert a1.body == a2.body, level


def test_a_perspective_holds_no_card_of_another_hand_or_of_the_stock() -> None:
    state = mid_game("hand", seed=8)
    seat = state.turn.seat
    hidden = {x for i, s in enumerate(state.seats) if i != seat for x in s.hand} | set(state.stock)
    p = perspective(state, seat)
    v = p["view"]
    shown = set(v["hand"]) | set(v["pile"]) | {v["turn"]["taken"], v["turn"]["drawn"]} - {None}
    for m in v["melds"]:
        shown |= set(cs(" ".join(m["cards"])))
    assert not shown & hidden
    assert "seed" not in json.dumps(p) and "deck" not in json.dumps(p) and "stock\"" not in json.dumps(p)
    # another seat's perspective of the same position carries its own hand, never this one's
    other = (seat + 1) % state.n
    assert not set(perspective(state, other)["view"]["hand"]) & set(state.seats[seat].hand)


@pytest.mark.parametrize("level", ["beginner", "middle", "strong", "auto"])
def test_planned_levels_ignore_the_hidden_cards_the_bot_samples(level: str) -> None:
    """``determinize`` fills hidden cards from the seed; only ``random`` may vary with it."""
    for seed in (3, 4, 5):
        p = perspective(mid_game(seed=seed), mid_game(seed=seed).turn.seat)
        assert choose_moves(p, level, 1) == choose_moves(p, level, 2) == choose_moves(p, level, 12345)


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_decisions_are_deterministic_for_a_perspective_and_seed(level: str, exact_expert) -> None:
    state = mid_game(seed=5)
    p = perspective(state, state.turn.seat)
    assert choose_moves(p, level, 7) == choose_moves(json.loads(json.dumps(p)), level, 7)


def test_a_request_seed_depends_only_on_the_request_coordinates() -> None:
    req = BotAsk("r1", 0, "strong", round_no=2, turn_no=9, seq=40, perspective={})
    assert request_seed(req) == request_seed(replace(req, perspective={"x": 1}, seat=3)) \
        != request_seed(replace(req, seq=41))


# ------------------------------------------------------------------ what the levels do
def test_every_level_answers_a_draw_request_with_a_stock_draw_or_a_whole_turn() -> None:
    state = mid_game(seed=6)
    while state.turn.phase != "draw":
        state, _, _ = random_step(state, random.Random(0))
    for level in ALL_LEVELS:
        actions = bot_plan(state, level)
        end = after(state, actions)
        if actions[-1] == DrawStock():  # the drawn card is unknown until the next request
            assert end.turn.seat == state.turn.seat and end.turn.phase == "play", level
        else:
            assert end.result is not None or end.turn.seat != state.turn.seat, level


def test_auto_level_is_the_safe_automatic_turn_of_the_engine() -> None:
    s = build(opts(), ["KS QS JS 7H 7D 7C 4C 2S", "2H 3C 8H 9H KD"], phase="play", drawn=c("4C"))
    assert plan(s, "auto", random.Random(0)) == auto_turn(s) == hand_bot.auto_turn(s)
    d = build(opts(), ["KS QS JS 7H 7D 7C 4C", "2H 3C 8H 9H KD"])
    assert bot_plan(d, "auto") == [DrawStock()]


@pytest.mark.parametrize("level", ["middle", "strong"])
def test_opens_with_the_best_partition_jokers_included(level: str) -> None:
    s = build(opts(), ["KS QS JK 7H 7D 7C 4C 2S 9D", "2H 3C 8H 9H KD"], phase="play", drawn=c("9D"))
    actions = bot_plan(s, level)
    assert laid_cards(actions) == set(cs("KS QS JK 7H 7D 7C"))
    assert after(s, actions).seats[0].opened


@pytest.mark.parametrize("level", ["middle", "strong"])
def test_takes_the_pile_top_that_completes_an_opening(level: str) -> None:
    s = build(opts(), ["KS QS 7H 7D 7C 4C 2S 9D 5H 3C", "2H 3C#2 8H 9H KD"], pile="JS")
    actions = bot_plan(s, level)
    assert actions[0] == TakeDiscard() and c("JS") in laid_cards(actions)
    assert after(s, actions).seats[0].opened


def test_beginner_never_takes_the_pile_top() -> None:
    s = build(opts(), ["KS QS 7H 7D 7C 4C 2S 9D 5H 3C", "2H 3C#2 8H 9H KD"], pile="JS")
    assert bot_plan(s, "beginner") == [DrawStock()]


@pytest.mark.parametrize("level", ["middle", "strong"])
def test_under_take_return_never_a_take_that_cannot_be_met_is_not_tried(level: str) -> None:
    """ERAM: a closed seat must open after a take; 40 points cannot, so it draws."""
    s = build(opts("eram-hand"), ["KS QS 7H 7D 7C 4C 2S 9D 5H 3C", "2H 3C#2 8H 9H KD"], pile="9S")
    assert bot_plan(s, level) == [DrawStock()]


@pytest.mark.parametrize("level", ["middle", "strong"])
def test_goes_out_with_a_hand_when_the_whole_hand_melds(level: str) -> None:
    s = build(opts(), ["KS QS JS 7H 7D 7C 2C 3C 4C 9D", "2H 3C#2 8H 9H KD"], phase="play",
              drawn=c("9D"))
    end = after(s, bot_plan(s, level))
    assert end.result is not None and end.result.finish == "hand" and end.result.winner == 0


HOLDING = "KS KH KD QS QH QD 5H 6H 7H 8H 9H 9C 9D 2C 3S"  # 13 meld; one draw from a Hand


def test_strong_keeps_its_melds_while_a_hand_finish_is_one_draw_away() -> None:
    s = build(opts(), [HOLDING, "2H 3C#2 8H#2 9H#2 KD#2"], phase="play", drawn=c("3S"))
    actions = bot_plan(s, "strong")
    assert len(actions) == 1 and isinstance(actions[0], Discard)
    assert bot_plan(s, "middle")[0].__class__ is LayMelds  # middle opens at once


def test_strong_stops_holding_when_an_opponent_is_about_to_go_out() -> None:
    s = build(opts(), [HOLDING, "2H 3C#2 8H#2"], melds=[(1, "4D 5D 6D")], opened=[1],
              phase="play", drawn=c("3S"))
    assert isinstance(bot_plan(s, "strong")[0], LayMelds)


@pytest.mark.parametrize("level", ["middle", "strong"])
def test_escalating_threshold_is_respected(level: str) -> None:
    hand = "KS QS JS 10H 10D 10C 4C 2S 9D"  # 60 points of melds
    short = build(opts("saudi"), [hand, "2H 3C 8H 9H KD"], opened={1: 60}, phase="play", drawn=c("9D"),
                  melds=[(1, "AH#2 AD#2 AC#2"), (1, "KH#2 KD#2 KC#2")])
    assert not laid_cards(bot_plan(short, level))
    enough = build(opts("saudi"), [hand, "2H 3C 8H 9H KD"], opened={1: 59}, phase="play", drawn=c("9D"),
                   melds=[(1, "AH#2 AD#2 AC#2"), (1, "KH#2 KD#2 KC#2")])
    assert laid_cards(bot_plan(enough, level)) == set(cs("KS QS JS 10H 10D 10C"))


@pytest.mark.parametrize("level", ["middle", "strong"])
def test_a_seat_of_an_open_team_lays_melds_below_any_threshold(level: str) -> None:
    s = build(opts("eram-partnership"), ["2C 3C 4C 9D KH 5S", "2H 3H 8H", "6D 7D", "KD QD"],
              opened={0: 55, 2: 55}, melds=[(2, "8S 9S 10S")], laid_any=[2], phase="play", drawn=c("5S"))
    assert set(cs("2C 3C 4C")) <= laid_cards(bot_plan(s, level))


@pytest.mark.parametrize("level", ["middle", "strong"])
def test_a_hand_below_the_threshold_when_the_option_allows_it(level: str) -> None:
    s = build(opts(hand_needs_threshold=False), ["2H 3H 4H 5C 5D 5S 8C", "2S 3C 8H 9H KD"],
              phase="play", drawn=c("8C"))
    end = after(s, bot_plan(s, level))
    assert end.result is not None and end.result.finish == "hand"


@pytest.mark.parametrize("level", ["middle", "strong"])
def test_lays_off_and_goes_out_once_open(level: str) -> None:
    s = build(opts(), ["8S JD 2C", "2H 3C 8H 9H KD"], melds=[(0, "5S 6S 7S"), (1, "JS JH JC")],
              opened=[0, 1], phase="play", drawn=c("2C"))
    end = after(s, bot_plan(s, level))
    assert end.result is not None and end.result.winner == 0


def test_strong_retrieves_a_joker_when_it_can_lay_it_again() -> None:
    s = build(opts(), ["9S 4C 5C KD", "2H 3C 8H 9H KD#2"], melds=[(1, "8S JK 10S")],
              opened=[0, 1], phase="play", drawn=c("KD"))
    actions = bot_plan(s, "strong")
    assert any(type(a).__name__ == "RetrieveJoker" for a in actions)
    assert c("4C") in laid_cards(actions) and c("5C") in laid_cards(actions)


def test_strong_avoids_feeding_an_open_next_seat_that_may_take_freely() -> None:
    """ERAM: an open player takes with no obligation, so 8S (it fits 5-6-7S) is fed to seat 1."""
    s = build(opts("eram-hand"), ["KS KH KD 2C 3C 8S 7D AH#2", "2H 3C#2 8H 9H KD#2 QC"],
              melds=[(1, "5S 6S 7S")], opened=[1], phase="play", drawn=c("AH#2"))
    strong = bot_plan(s, "strong")
    assert strong[-1] != Discard(c("8S"))


@pytest.mark.parametrize("level", LEVELS)
def test_the_starters_opening_discard(level: str) -> None:
    state, _ = start_round(resolve("hand"), 3, seed=4)
    actions = bot_plan(state, level)
    assert len(actions) == 1 and isinstance(actions[0], Discard)
    after(state, actions)


def test_an_unknown_level_plays_as_a_beginner() -> None:
    state = mid_game(seed=9)
    p = perspective(state, state.turn.seat)
    assert choose_moves(p, "grandmaster", 3) == choose_moves(p, "beginner", 3)


def test_determinize_keeps_the_public_position() -> None:
    state = mid_game(seed=10)
    seat = state.turn.seat
    sample = determinize(perspective(state, seat), 77)
    assert perspective(sample, seat) == perspective(state, seat)


def test_bot_config_reads_its_registered_variables() -> None:
    from hand_bot.settings import BotConfig
    from hand_common.env import ConfigError
    from hand_common.settings_index import all_env_vars

    default = BotConfig.from_env({})
    assert (default.server.port, default.group_id) == (50054, "hand-bots")
    custom = BotConfig.from_env({"HAND_BOT_PORT": "0", "HAND_BOT_GROUP": "g1", "HAND_BOT_HOST": "0.0.0.0"})
    assert (custom.server.port, custom.group_id, custom.server.host) == (0, "g1", "0.0.0.0")
    assert {"HAND_BOT_HOST", "HAND_BOT_PORT", "HAND_BOT_GROUP"} <= set(all_env_vars())
    with pytest.raises(ConfigError, match="HAND_BOT_PORT"):
        BotConfig.from_env({"HAND_BOT_PORT": "70000"})
