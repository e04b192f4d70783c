"""docs/rules.md §8 — stock exhaustion: rebuilding the stock from the pile
(reshuffle_keep_top), the rebuild limit (max_reshuffles, 0 = unlimited), the
turn limit (max_turns) and how an exhausted round is scored
(exhausted_round = score_as_is / void, team sums in partnership).

Positions with a tiny stock are built by dealing every other card into the
players' hands, then played through ``apply``.
"""

from __future__ import annotations

import pytest

from hand_engine import (
    Discard, DrawStock, ReturnTake, TakeDiscard, apply, format_cards, start_round,
)
from hand_engine.cards import hand_total
from hand_engine.events import RoundEnded, StockRebuilt, TurnStarted
from hand_engine.rng import shuffled
from hand_sim.positions import build
from tests.rules_support import cs, opts


def tiny_stock(o, stock="4C", pile="", n=2, opened=()):
    """Every card not in ``stock`` or ``pile`` is dealt round-robin into the n hands."""
    used = set(cs(stock)) | set(cs(pile))
    rest = [x for x in range(106) if x not in used]
    hands = [format_cards(rest[i::n]) for i in range(n)]
    s = build(o, hands, pile=pile, stock=stock, opened=opened)
    assert s.stock == cs(stock)
    return s


def draw_and_discard(s):
    """The player to move draws from the stock and discards the card drawn."""
    seat = s.turn.seat
    s, ev1 = apply(s, seat, DrawStock())
    s, ev2 = apply(s, seat, Discard(s.turn.drawn))
    if not s.over:
        assert s.stock, "the stock is never empty at the start of a turn"
    return s, ev1 + ev2


# ------------------------------------------------------------------ rebuilding the stock
def test_when_the_stock_runs_out_the_whole_pile_is_shuffled_into_it_by_default():
    s = tiny_stock(opts(), stock="4C", pile="5D 6D")
    s, events = draw_and_discard(s)  # 4C drawn and discarded: the stock is empty
    assert s.rebuilds == 1 and s.pile == ()
    assert sorted(s.stock) == sorted(cs("5D 6D 4C"))
    assert s.rebuild_orders == (s.stock,)
    rebuilt = [e for e in events if isinstance(e, StockRebuilt)]
    assert rebuilt == [StockRebuilt(1, 3, s.stock)]
    assert isinstance(events[-1], TurnStarted) and s.turn.seat == 1 and s.turn.phase == "draw"


def test_the_rebuild_order_comes_from_the_seeded_rng_and_is_reproducible():
    s = tiny_stock(opts(), stock="4C", pile="5D 6D 7D 8D 9D 10D")
    a, _ = draw_and_discard(s)
    b, _ = draw_and_discard(s)
    assert a.stock == b.stock
    assert a.stock == shuffled(s.seed, tuple(sorted(cs("4C 5D 6D 7D 8D 9D 10D"))), "rebuild",
                               s.round_no, 1)


def test_reshuffle_keep_top_true_leaves_the_top_card_as_the_pile():
    s = tiny_stock(opts(reshuffle_keep_top=True), stock="4C", pile="5D 6D")
    s, _ = draw_and_discard(s)
    assert s.pile == cs("4C") and sorted(s.stock) == sorted(cs("5D 6D")) and s.rebuilds == 1


def test_reshuffle_keep_top_true_with_nothing_to_shuffle_ends_the_round_exhausted():
    s = tiny_stock(opts(reshuffle_keep_top=True), stock="4C", pile="")
    s, events = draw_and_discard(s)
    assert s.over and s.result.finish == "exhausted" and s.rebuilds == 0
    assert isinstance(events[-1], RoundEnded)


@pytest.mark.parametrize("limit", [1, 3])
def test_max_reshuffles_the_round_ends_exhausted_when_the_stock_runs_out_after_the_limit(limit):
    s = tiny_stock(opts(max_reshuffles=limit), stock="4C", pile="")
    for k in range(1, limit + 1):
        s, _ = draw_and_discard(s)
        assert not s.over and s.rebuilds == k
    s, events = draw_and_discard(s)  # the stock runs out once more than the limit
    assert s.over and s.result.finish == "exhausted" and s.rebuilds == limit
    assert not any(isinstance(e, StockRebuilt) for e in events)


def test_max_reshuffles_default_is_three():
    s = tiny_stock(opts(), stock="4C", pile="")
    assert s.options.max_reshuffles == 3
    for _ in range(3):
        s, _ = draw_and_discard(s)
    assert not s.over
    s, _ = draw_and_discard(s)
    assert s.over


def test_max_reshuffles_zero_means_unlimited():
    s = tiny_stock(opts(max_reshuffles=0), stock="4C", pile="")
    for k in range(1, 26):
        s, _ = draw_and_discard(s)
        assert not s.over and s.rebuilds == k


# ------------------------------------------------------------------ max_turns
def test_max_turns_ends_the_round_after_that_many_turns_in_which_a_player_drew():
    s, _ = start_round(opts(max_turns=3), 2, seed=11, dealer=1)
    s, _ = apply(s, 0, Discard(s.seats[0].hand[0]))  # the starter's opening discard: not counted
    assert s.draw_turns == 0
    for k in (1, 2):
        s, _ = draw_and_discard(s)
        assert s.draw_turns == k and not s.over
    s, events = draw_and_discard(s)
    assert s.draw_turns == 3 and s.over and s.result.finish == "exhausted"
    assert isinstance(events[-1], RoundEnded)


def test_max_turns_a_turn_with_a_returned_take_counts_once():
    s, _ = start_round(opts(max_turns=3), 2, seed=11, dealer=1)
    s, _ = apply(s, 0, Discard(s.seats[0].hand[0]))
    s, _ = apply(s, 1, TakeDiscard())
    s, _ = apply(s, 1, ReturnTake())
    assert s.draw_turns == 1 and s.seats[1].draw_turns == 1
    s, _ = apply(s, 1, DrawStock())
    assert s.draw_turns == 1 and s.seats[1].draw_turns == 1
    s, _ = apply(s, 1, Discard(s.turn.drawn))
    s, _ = draw_and_discard(s)
    assert not s.over and s.draw_turns == 2


# ------------------------------------------------------------------ scoring an exhausted round
def exhausted(o, n=2, opened=()):
    o = o.replace(reshuffle_keep_top=True)
    s = tiny_stock(o, stock="4C", pile="", n=n, opened=opened)
    s, _ = draw_and_discard(s)
    assert s.over
    return s


def test_exhausted_round_score_as_is_everyone_scores_as_a_non_winner():
    s = exhausted(opts(exhausted_round="score_as_is"), n=3, opened=[0, 2])
    r = s.result
    assert r.finish == "exhausted" and r.winner is None and r.multiplier == 1
    for seat, line in enumerate(r.seats):
        value = hand_total(s.seats[seat].hand)
        assert line.cards_value == value and line.cards_left == s.seats[seat].hand
        assert line.score == (value if seat in (0, 2) else 100)
        assert line.opened is (seat in (0, 2))


def test_exhausted_round_void_every_score_is_zero():
    s = exhausted(opts(exhausted_round="void"), n=3, opened=[0])
    r = s.result
    assert r.finish == "void" and r.winner is None and r.multiplier == 1
    assert [line.score for line in r.seats] == [0, 0, 0]


@pytest.mark.parametrize("rule", ["score_as_is", "void"])
def test_exhausted_round_in_partnership_each_team_scores_its_two_players_sum(rule):
    s = exhausted(opts("partnership", exhausted_round=rule), n=4, opened=[0, 3])
    r = s.result
    scores = [line.score for line in r.seats]
    if rule == "void":
        assert scores == [0, 0, 0, 0]
    else:
        assert scores[1] == scores[2] == 100
        assert scores[0] == hand_total(s.seats[0].hand) and scores[3] == hand_total(s.seats[3].hand)
    assert r.team_scores == (scores[0] + scores[2], scores[1] + scores[3])


def test_an_exhausted_round_is_never_multiplied_even_for_a_fresh_table():
    s = exhausted(opts(hand_multiplier=2))
    assert s.result.multiplier == 1 and [line.score for line in s.result.seats] == [100, 100]
