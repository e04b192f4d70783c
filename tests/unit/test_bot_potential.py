"""A hand's potential over the next draws (hand_bot.potential), used by the
expert's discards: it sees only public information, replays exactly, and
ranks hands the way a player would."""

from __future__ import annotations

from hand_bot.potential import DECAY, Potential
from hand_sim.positions import build
from tests.rule_helpers import c, cs, opts
from tests.unit.test_bots import mid_game, reshuffle_hidden

OPENABLE = "KS QS JS 7H 7D 7C AD AH AS 4C 2S 9D 5H"  # 30 + 21 + 33 melds: opens at once


def test_a_hand_that_already_opens_scores_one_whatever_it_draws() -> None:
    s = build(opts(), [OPENABLE, "2H 3C 8H 9H KD"], phase="play", drawn=c("5H"))
    assert Potential(s, 0, samples=8, horizon=3).closed(cs(OPENABLE)) == 1.0


def test_a_hand_that_cannot_open_in_one_draw_scores_nothing() -> None:
    junk = "2S 4H 6C 8D TS 3H 5C 7D 9S JH 2D 4S 6H"
    s = build(opts(), [junk, "2H 3C 8H 9H KD"], phase="play")
    assert Potential(s, 0, samples=16, horizon=1).closed(cs(junk)) == 0.0


def test_breaking_a_meld_costs_more_than_throwing_a_loose_card() -> None:
    hand = "KS QS JS 7H 7D 7C AD AH 9C 4C 2S 9D 5H"  # 51 needs one more ace or a third 9
    s = build(opts(), [hand, "2H 3C 8H 9H KD"], phase="play")
    pot = Potential(s, 0, samples=64, horizon=4)
    keep_all = pot.closed([x for x in cs(hand) if x != c("5H")])
    broken = pot.closed([x for x in cs(hand) if x != c("QS")])
    assert keep_all > broken


def test_going_out_when_all_but_one_card_melds_or_fits_the_table() -> None:
    s = build(opts(), ["KS QS JS 7H 7D", "2H 3C 8H 9H KD"], phase="play", opened=[0],
              melds=[(0, "7S 7C 7H#2")])
    p_out, held = Potential(s, 0, samples=8, horizon=2).open(cs("KS QS JS 7D"))
    assert p_out == DECAY ** 0 and held == 0.0


def test_only_public_information_and_exact_replay() -> None:
    """Positions differing only in hidden cards draw the same samples, again and again."""
    state = mid_game("hand", seed=5, moves=60)
    seat = state.turn.seat
    other = reshuffle_hidden(state, seat, seed=99)
    a = Potential(state, seat, samples=12, horizon=4)
    b = Potential(other, seat, samples=12, horizon=4)
    assert a.draws == b.draws == Potential(state, seat, samples=12, horizon=4).draws
    hidden = {x for i, st in enumerate(state.seats) if i != seat for x in st.hand} | set(state.stock)
    assert all(x in hidden for d in a.draws for x in d)
