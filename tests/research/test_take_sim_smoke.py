"""research/botlab/take_sim.py: the hands it plays for the next seat hold only cards the seat cannot
see (and those publicly known to be there), could not open, depend on no hidden card, and
one deal yields rows (figures are never asserted: docs/decisions/0014)."""

from __future__ import annotations

import random

from hand_bot.belief import visible
from hand_bot.hand_eval import Partition
from hand_bot.history import public_history
from hand_engine import resolve, threshold
from research.botlab import take_sim as ts
from tests.bot_support import played, reshuffle_hidden, seen_by


def test_a_closed_player_throws_the_lone_high_card_and_never_a_joker() -> None:
    j = resolve("hand").joker_in_hand
    fives = [4, 17, 30]  # the 5 of three suits
    assert ts.throw([12, *fives], set(), j) == 12  # the lone king
    assert ts.throw([104, 12, *fives], set(), j) == 12
    assert ts.throw([12, *fives], {12}, j) in fives  # a card known to be held is kept


def test_played_hands_hold_unseen_cards_could_not_open_and_ignore_hidden_cards() -> None:
    checked = 0
    for seed in range(1, 9):
        state, log = played("hand", seed, 40)
        seat = state.turn.seat
        nxt = (seat + 1) % state.n
        if state.seats[nxt].opened:
            continue
        history = public_history(seen_by(log, seat))
        hands = ts.played_hands(state, nxt, history, 8, random.Random(seed))
        assert hands
        seen = visible(state, seat)
        for hand, weight in hands:
            assert len(hand) == len(state.seats[nxt].hand) and not seen & set(hand) and weight > 0
            assert history.known_in(nxt) - seen <= set(hand)
            assert Partition.of(hand, state.options).value() < threshold(state)
        other = reshuffle_hidden(state, seat, 99)
        assert ts.played_hands(other, nxt, history, 8, random.Random(seed)) == hands
        checked += 1
    assert checked >= 3


def test_two_deals_yield_rows_with_both_estimates() -> None:
    out = ts.main(["--deals", "2", "--workers", "0", "--samples", "4"])  # one held out, one to fit
    assert out["rows"] > 0 and 0.0 <= out["auc_simulated"] <= 1.0 and 0.0 <= out["auc_model"] <= 1.0
