"""docs/rules.md §14 — every worked example, played through ``apply`` on built positions."""

from __future__ import annotations

import pytest

from hand_engine import (
    Code, Discard, DrawStock, LayMelds, MeldSpec, evaluate_staging, resolve, threshold,
)
from hand_engine.events import MeldsLaid, RoundEnded
from hand_sim.positions import build
from tests.moves_support import c, cs, ok, ok_events, refused

KOUT_51 = (MeldSpec(cs("KS QS JS")), MeldSpec(cs("7H 7D 7C")))


# --------------------------------------------------------------- openings
@pytest.mark.parametrize("preset", ["kout-hand", "hand", "kout-partnership"])
def test_kout_ks_qs_js_30_plus_7h_7d_7c_21_is_51_and_opens(preset: str) -> None:
    state = build(
        resolve(preset), ["KS QS JS 7H 7D 7C 2D 5S", "3C 4C", "3D 4D", "3S 4S"], stock="9H#2",
    )
    state = ok(state, 0, DrawStock())
    state, events = ok_events(state, 0, LayMelds(KOUT_51))
    assert [m.value for m in state.melds] == [30, 21]
    assert state.seats[0].opened and state.seats[0].opening_total == 51
    (laid,) = events
    assert isinstance(laid, MeldsLaid)
    assert (laid.opening, laid.opening_total, laid.threshold) == (True, 51, 51)


def test_kout_one_point_short_does_not_open_and_changes_nothing() -> None:
    state = build(resolve("kout-hand"), ["KS QS JS 7H 7D 6C 6H 6D 2D", "3C 4C"], phase="play")
    refused(state, 0, LayMelds((MeldSpec(cs("KS QS JS")), MeldSpec(cs("6H 6D 6C")))), Code.BELOW_THRESHOLD)
    refused(state, 0, LayMelds((MeldSpec(cs("KS QS JS")),)), Code.BELOW_THRESHOLD)


def test_kout_51_sent_as_two_submissions_is_refused_the_opening_is_one_submission() -> None:
    state = build(resolve("kout-hand"), ["KS QS JS 7H 7D 7C 2D 5S", "3C 4C"], phase="play")
    refused(state, 0, LayMelds((KOUT_51[0],)), Code.BELOW_THRESHOLD)
    refused(state, 0, LayMelds((KOUT_51[1],)), Code.BELOW_THRESHOLD)


def test_dananeer_three_kings_30_plus_9_10_j_clubs_29_is_59_and_opens() -> None:
    state = build(resolve("dananeer"), ["KS KH KD 9C 10C JC 4H 5D", "3C 4C"], stock="2S#2")
    state = ok(state, 0, DrawStock())
    state = ok(state, 0, LayMelds((MeldSpec(cs("KS KH KD")), MeldSpec(cs("9C 10C JC")))))
    assert [m.value for m in state.melds] == [30, 29]
    assert state.seats[0].opened and state.seats[0].opening_total == 59


# --------------------------------------------------------------- escalating
@pytest.mark.parametrize("preset", ["kout-saudi", "saudi", "eram-saudi"])
def test_kout_escalating_first_opening_51_second_60_the_third_opener_needs_61(preset: str) -> None:
    options = resolve(preset)
    state = build(
        options,
        [
            "KS QS JS 7H 7D 7C 2D 4D",
            "KH QH JH 10S 10D 10C 2S 4S",
            "JC#2 QC#2 KC#2 10H#2 10S#2 10D#2 QD#2 KD#2 AD#2 2C#2 4C#2",
        ],
        phase="play", stock="5S#2 5H#2",
    )
    assert threshold(state) == 51
    state = ok(state, 0, LayMelds(KOUT_51))
    assert state.seats[0].opening_total == 51
    assert threshold(state) == 52
    state = ok(state, 0, Discard(c("2D")))

    state = ok(state, 1, DrawStock())
    state, events = ok_events(state, 1, LayMelds((MeldSpec(cs("KH QH JH")), MeldSpec(cs("10S 10D 10C")))))
    assert events[0].threshold == 52 and events[0].opening_total == 60
    assert threshold(state) == 61
    state = ok(state, 1, Discard(c("2S")))

    state = ok(state, 2, DrawStock())
    sixty = (MeldSpec(cs("JC#2 QC#2 KC#2")), MeldSpec(cs("10H#2 10S#2 10D#2")))
    err = refused(state, 2, LayMelds(sixty), Code.BELOW_THRESHOLD)
    assert err.params == {"total": 60, "threshold": 61}
    sixty_one = (MeldSpec(cs("JC#2 QC#2 KC#2")), MeldSpec(cs("QD#2 KD#2 AD#2")))
    state, events = ok_events(state, 2, LayMelds(sixty_one))
    assert events[0].threshold == 61 and events[0].opening_total == 61
    assert threshold(state) == 62


def test_fixed_opening_stays_at_51_after_others_open() -> None:
    state = build(resolve("kout-hand"), ["KH QH JH 7S 7D 7C 2S", "3C 4C"], opened={1: 60}, phase="play")
    assert threshold(state) == 51
    ok(state, 0, LayMelds((MeldSpec(cs("KH QH JH")), MeldSpec(cs("7S 7D 7C")))))


# --------------------------------------------------------------- scoring
SCORING_HANDS = ["5C 6C 7C 9D", "KS 4D JK", "AS AH", "2S 3D 5H 8C 10D QS KH"]


def test_kout_scoring_a_out_minus_30_b_plus_29_c_plus_22_d_plus_100() -> None:
    """A goes out; B opened holds K♠ 4♦ JK = +29; C opened holds two aces = +22; D never opened = +100."""
    state = build(resolve("kout-hand"), SCORING_HANDS, opened=[0, 1, 2], phase="play")
    state = ok(state, 0, LayMelds((MeldSpec(cs("5C 6C 7C")),)))
    state, events = ok_events(state, 0, Discard(c("9D")))
    result = state.result
    assert isinstance(events[-1], RoundEnded) and events[-1].result == result
    assert result.finish == "normal" and result.winner == 0 and result.multiplier == 1
    assert [s.score for s in result.seats] == [-30, 29, 22, 100]
    assert [s.cards_value for s in result.seats] == [0, 29, 22, 2 + 3 + 5 + 8 + 10 + 10 + 10]


def test_kout_scoring_with_a_hand_minus_60_plus_58_plus_44_plus_200() -> None:
    """A goes out in one turn having laid nothing before (a Hand): every score ×2."""
    state = build(
        resolve("kout-hand"), ["KS QS JS 7H 7D 7C", "KS#2 4D JK", "AS AH", "2S 3D 5H 8C 10D QD#2 KH"],
        opened=[1, 2], stock="9D",
    )
    state = ok(state, 0, DrawStock())
    state = ok(state, 0, LayMelds(KOUT_51))
    state = ok(state, 0, Discard(c("9D")))
    result = state.result
    assert result.finish == "hand" and result.winner == 0 and result.multiplier == 2
    assert [s.score for s in result.seats] == [-60, 58, 44, 200]


def test_hand_multiplier_1_a_hand_scores_like_a_normal_finish() -> None:
    state = build(
        resolve("kout-hand", {"hand_multiplier": 1}), ["KS QS JS 7H 7D 7C", "KS#2 4D JK", "AS AH", "2S 3D"],
        opened=[1, 2], stock="9D",
    )
    state = ok(state, 0, DrawStock())
    state = ok(state, 0, LayMelds(KOUT_51))
    state = ok(state, 0, Discard(c("9D")))
    assert state.result.finish == "hand" and state.result.multiplier == 1
    assert [s.score for s in state.result.seats] == [-30, 29, 22, 100]


def test_kout_partnership_a_hand_against_a_team_that_never_opened_costs_it_400() -> None:
    state = build(
        resolve("kout-partnership"),
        ["KS QS JS 7H 7D 7C", "KS#2 4D JK", "AS AH 2C", "2S 3D 5H 8C 10D QD#2 KH"],
        stock="9D",
    )
    state = ok(state, 0, DrawStock())
    state = ok(state, 0, LayMelds(KOUT_51))
    state = ok(state, 0, Discard(c("9D")))
    result = state.result
    assert result.finish == "hand" and result.winner == 0
    assert [s.score for s in result.seats] == [-60, 200, 0, 200]  # the partner's own line records 0
    assert result.team_scores == (-60, 400)


# --------------------------------------------------------------- ERAM staging counters
def test_eram_staging_counter_47_of_51_four_more_needed() -> None:
    state = build(resolve("eram-hand"), ["9C 10C JC 6H 6D 6S 2H 3H KD", "3C 4C"], phase="play")
    staging = evaluate_staging(state, 0, [cs("9C 10C JC"), cs("6H 6D 6S"), cs("2H 3H")])
    assert [v.colour for v in staging.verdicts] == ["green", "green", "neutral"]
    assert [v.value for v in staging.verdicts[:2]] == [29, 18]
    assert staging.show_counter
    assert (staging.total, staging.threshold, staging.missing) == (47, 51, 4)


def test_eram_escalating_staging_counter_61_of_65() -> None:
    state = build(resolve("eram-saudi"), ["KS QS JS QH KH AH 2D", "3C 4C"], opened={1: 64}, phase="play")
    assert threshold(state) == 65
    staging = evaluate_staging(state, 0, [cs("KS QS JS"), cs("QH KH AH")])
    assert (staging.total, staging.threshold, staging.missing) == (61, 65, 4)
    assert staging.show_counter


def test_eram_staging_counter_shows_nothing_missing_once_the_threshold_is_reached() -> None:
    state = build(resolve("eram-hand"), ["KS QS JS 7H 7D 7C 2D", "3C 4C"], phase="play")
    staging = evaluate_staging(state, 0, [cs("KS QS JS"), cs("7H 7D 7C")])
    assert (staging.total, staging.threshold, staging.missing) == (51, 51, 0)
    ok(state, 0, LayMelds(KOUT_51))
