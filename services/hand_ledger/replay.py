"""Replays rebuilt from the archive, and the replay check (pure but for the engine).

A room is the fold of its events (``hand_table.evolve``); every move
is re-applied through the engine from the recorded deck orders. :func:`check`
re-runs the archive and compares, on the typed events, each move's
recomputed engine events and round/turn with the recorded ``MoveMade``, each
deal with the dealer rotation (and its engine events), each round result and
the match result with the recorded ones: any difference means the archive
cannot be replayed exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import singledispatch
from typing import Any

from hand_engine import apply, next_deal, standings, start_round
from hand_table import MatchEnded, MoveMade, Recorded, Room, RoomEvent, RoundDealt, RoundScored, dealt_seeds, evolve


@dataclass(frozen=True)
class Step:
    """One archived event and the room after it."""

    recorded: Recorded
    room: Room

    @property
    def seq(self) -> int:
        return self.recorded.seq


def fold(archived: Iterable[Recorded], room: Room | None = None) -> list[Step]:
    """Every step of ``archived`` (continuing from ``room``)."""
    steps = []
    for rec in archived:
        room = evolve(room, rec)
        steps.append(Step(rec, room))
    return steps


@dataclass(frozen=True)
class Check:
    ok: bool
    events: int
    moves: int
    results: int
    mismatch_seq: int | None = None
    mismatch: str = ""


def _first_difference(fresh: Sequence[Any], recorded: Sequence[Any]) -> str:
    for i, (a, b) in enumerate(zip(fresh, recorded)):
        if a != b:
            return (f"engine event {i}: recomputed {type(a).__name__} differs from recorded "
                    f"{type(b).__name__}")
    return f"{len(fresh)} engine events recomputed, {len(recorded)} recorded"


def _expected_deal(room: Room, ev: RoundDealt) -> tuple[int, int]:
    """The dealer and number the next round must have (round 1's dealer: the seed's, or in a
    version-1 deal the one its seeds derive)."""
    dealer, round_no = next_deal(room.match)
    if dealer is None:
        dealer = start_round(room.options, room.n, seed=room.match.seed, round_no=round_no,
                             fair=dealt_seeds(ev))[0].dealer
    return dealer, round_no


@singledispatch
def _verify(ev: RoomEvent, before: Room | None, rec: Recorded) -> tuple[Room, str]:
    """The room after ``rec``, and what differs from its recomputation ("" if nothing)."""
    return evolve(before, rec), ""


@_verify.register
def _(ev: MoveMade, before: Room, rec: Recorded) -> tuple[Room, str]:
    state, fresh = apply(before.round, ev.seat, ev.action)
    after = evolve(before, rec, after=state)
    if tuple(fresh) != ev.events:
        return after, _first_difference(fresh, ev.events)
    if (state.round_no, state.turn_no) != (ev.round_no, ev.turn_no):
        return after, f"round/turn recomputed as {state.round_no}/{state.turn_no}"
    return after, ""


@_verify.register
def _(ev: RoundDealt, before: Room, rec: Recorded) -> tuple[Room, str]:
    if (ev.dealer, ev.round_no) != _expected_deal(before, ev):
        return before, "dealer or round number out of rotation"
    _, fresh = start_round(before.options, before.n, seed=before.match.seed, dealer=ev.dealer,
                           deck=ev.deck, round_no=ev.round_no, fair=dealt_seeds(ev))
    after = evolve(before, rec)
    if tuple(fresh) != ev.events:
        return after, _first_difference(fresh, ev.events)
    return after, ""


@_verify.register
def _(ev: RoundScored, before: Room, rec: Recorded) -> tuple[Room, str]:
    after = evolve(before, rec)
    if ev.round_no != before.round.round_no or ev.result != after.match.results[-1]:
        return after, "round result differs from the recomputed one"
    return after, ""


@_verify.register
def _(ev: MatchEnded, before: Room, rec: Recorded) -> tuple[Room, str]:
    after = evolve(before, rec)
    match = after.match
    if not match.over or ev.winners != tuple(match.winners) or ev.standings != tuple(standings(match)):
        return after, "match result differs from the recomputed one"
    return after, ""


def check(archived: Sequence[Recorded]) -> Check:
    """Re-run the archive through the engine and compare (see the module doc)."""
    room: Room | None = None
    moves = results = 0
    for i, rec in enumerate(archived):
        if rec.seq != i:
            return Check(False, i, moves, results, rec.seq, f"seq {rec.seq} where {i} was expected")
        try:
            room, problem = _verify(rec.event, room, rec)
        except Exception as exc:  # the engine refused a recorded move, or the event cannot be folded
            return Check(False, i, moves, results, rec.seq,
                         f"{rec.kind} cannot be re-applied: {type(exc).__name__}: {exc}")
        if problem:
            return Check(False, i, moves, results, rec.seq, f"{rec.kind}: {problem}")
        moves += isinstance(rec.event, MoveMade)
        results += isinstance(rec.event, (RoundScored, MatchEnded))
    return Check(True, len(archived), moves, results)
