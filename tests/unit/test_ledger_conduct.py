"""Quitters and bots in ratings (decision 0027): who played each seat, folded from the room's
events, and what a seat's player keeps of the rating model's update."""

from __future__ import annotations

import pytest

from hand_engine import DrawStock
from hand_ledger import ratings
from hand_ledger.conduct import RECENT, SeatPlay, recent_after, seat_play
from hand_table import MatchStarted, MoveMade, SeatAway, SeatBack

R = ratings.Rating


def move(seat: int, origin: str) -> MoveMade:
    return MoveMade(seat=seat, action=DrawStock(), origin=origin, round_no=1, turn_no=1)


def test_a_seat_counts_its_player_moves_and_is_left_when_away_at_the_end() -> None:
    events = [move(0, "player"), MatchStarted(seed=1),  # a new match starts afresh
              move(0, "player"), move(0, "timer"), move(1, "player"), SeatAway(seat=1, reason="left"),
              move(1, "bot"), move(1, "bot"), move(1, "bot"), SeatAway(seat=2, reason="disconnected"),
              move(2, "bot"), SeatBack(seat=2, connected_at=0.0), move(2, "player")]
    play = seat_play(events, 3)
    assert play[0] == SeatPlay(own_moves=2, bot_moves=0, away=False) and play[0].share == 1
    assert play[1].left and play[1].share == pytest.approx(0.25)
    assert not play[2].left and play[2].share == pytest.approx(0.5)
    assert SeatPlay().share == 0


def test_a_player_who_left_takes_the_seat_result_but_never_gains_from_the_bot() -> None:
    old = R(25.0, 8.0)
    worse, better = R(23.0, 7.5), R(28.0, 7.5)
    assert ratings.take(old, worse, share=0.1, left=True) == worse  # the loss counts in full
    assert ratings.take(old, better, share=0.9, left=True) == old  # the bot's win earns nothing


def test_bot_played_moves_earn_nothing_and_a_seat_never_moved_by_its_player_is_not_rated() -> None:
    old, rated = R(25.0, 8.0), R(29.0, 7.0)
    assert ratings.take(old, rated, share=1.0, left=False) == rated
    assert ratings.take(old, rated, share=0.5, left=False) == R(27.0, 7.5)
    assert ratings.take(old, rated, share=0.0, left=False) is None


def test_recent_matches_keep_the_latest_ten() -> None:
    recent = ""
    for left in [True] * 3 + [False] * (RECENT - 1):
        recent = recent_after(recent, left)
    assert len(recent) == RECENT and recent.count("1") == 1
