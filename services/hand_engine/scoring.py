"""Round scoring (docs/rules.md §9, §8 for exhausted rounds)."""

from __future__ import annotations

from .cards import hand_total
from .state import RoundResult, RoundState, SeatResult


def _penalty(state: RoundState, seat: int) -> tuple[int, int]:
    """(cards value, penalty) of a non-winning seat."""
    s = state.seats[seat]
    value = hand_total(s.hand, state.options.joker_in_hand)
    return value, (value if s.opened else state.options.unopened_penalty)


def score_round(state: RoundState, winner: int | None, finish: str) -> RoundResult:
    """Score a round that ended by going out (``finish`` normal/hand) or exhaustion."""
    o = state.options
    if finish == "exhausted" and o.exhausted_round == "void":
        finish = "void"
    mult = o.hand_multiplier if finish == "hand" else 1
    lines: list[SeatResult] = []
    for seat in range(state.n):
        s = state.seats[seat]
        value, penalty = _penalty(state, seat)
        if finish == "void":
            score = 0
        elif seat == winner:
            score = o.winner_bonus * mult
        elif o.partnership and winner is not None and seat == (winner + 2) % 4:
            score = 0  # the partner's cards are not counted
        else:
            score = penalty * mult
        lines.append(SeatResult(seat, s.opened, s.opening_total, s.hand, value, score))
    teams: tuple[int, ...] = ()
    if o.partnership:
        teams = (lines[0].score + lines[2].score, lines[1].score + lines[3].score)
    return RoundResult(finish, winner, mult, tuple(lines), teams)
