"""A hand's potential over the next draws (hand_bot.potential), used by the
expert's discards: it sees only public information, replays exactly, and
ranks hands the way a player would."""

from __future__ import annotations

from hand_bot.potential import DECAY, Potential
from hand_sim.positions import build
from tests.rules_support import c, cs, opts
from tests.bot_support import mid_game, played, reshuffle_hidden, seen_by

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


def test_draws_dealt_from_the_belief_never_hold_a_card_known_to_be_in_another_hand() -> None:
    from hand_bot.belief import Belief
    from hand_bot.history import public_history

    checked = 0
    for seed in range(1, 40):
        state, log = played("dananeer" if seed % 2 else "eram-hand", seed, 90)
        me = state.turn.seat
        history = public_history(seen_by(log, me))
        belief = Belief.of(state, me, history)
        certain = belief.certain()
        if not certain:
            continue
        pot = Potential(state, me, samples=40, horizon=5, belief=belief)
        assert all(not certain & set(d) for d in pot.draws)
        assert all(x in state.stock or any(x in s.hand for i, s in enumerate(state.seats) if i != me)
                   for d in pot.draws for x in d)
        checked += 1
    assert checked >= 3


def test_a_spent_cpu_deadline_still_weighs_two_samples_and_picks_a_legal_discard() -> None:
    from hand_bot.hand_eval import DiscardWeights, discard_scores
    from hand_bot.knowledge import Knowledge
    from hand_bot.potential import PotentialStyle, best_discard

    state = mid_game("hand", seed=8, moves=40)
    while state.turn.phase != "play":
        state = mid_game("hand", seed=8, moves=41)
    me = state.turn.seat
    legal = discard_scores(state, Knowledge.of(state, me), DiscardWeights(outs=True, danger=14.0))
    ps = PotentialStyle()
    card = best_discard(state, me, legal, ps, 0.25, deadline=0.0)
    assert card in [x for _, x, _ in legal[: ps.k]]


def test_weighing_every_discard_at_once_agrees_with_one_at_a_time() -> None:
    """closed_many / open_many find the melds once per draw; they must equal the plain sums."""
    compared = 0
    for preset, seed, moves in [("hand", 3, 30), ("hand", 4, 90), ("saudi", 5, 70), ("hand", 6, 110),
                                ("saudi", 7, 120), ("partnership", 9, 100)]:
        state = mid_game(preset, seed=seed, moves=moves)
        me = state.turn.seat
        hand = state.seats[me].hand
        pot = Potential(state, me, samples=6, horizon=4)
        drops = list(range(len(hand)))
        for d in pot.draws:
            many_c = pot.closed_many(hand, drops, d, progress=0.3)
            many_o = pot.open_many(hand, drops, d)
            for k, i in enumerate(drops):
                rest = hand[:i] + hand[i + 1:]
                assert many_c[k] == pot.closed_one(rest, d, 0.3)
                assert many_o[k] == pot.open_one(rest, d)
                compared += 1
    assert compared > 100
