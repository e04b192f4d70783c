"""Replays rebuilt from the archive, and the replay check (pure but for the engine).

A room is the fold of its events (``hand_room.fold.evolve``); every move is
re-applied through the engine from the recorded deck order, so the steps
carry the engine's own events again. :func:`check` compares each recomputed
move's events with the ``events`` recorded in its ``moved`` payload, each
round result and the match result with the recorded ones, and the dealer
rotation: any difference means the archive cannot be replayed exactly.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hand_engine import apply, start_round
from hand_engine.events import RoundEnded, RoundStarted, TurnStarted
from hand_engine.match import standings
from hand_room.codec import action_from_json, event_to_json
from hand_room.fold import evolve
from hand_room.model import Room

from .reads import Archived


@dataclass(frozen=True)
class Step:
    """The room after one archived event, and the engine events that event produced."""

    seq: int
    kind: str
    payload: dict[str, Any]
    room: Room
    engine_events: tuple[Any, ...] = ()


def advance(room: Room | None, ev: Archived) -> Step:
    """Fold one archived event (re-applying a move through the engine)."""
    p = ev.payload
    if ev.kind == "moved":
        state, events = apply(room.round, p["seat"], action_from_json(p["action"]))
        return Step(ev.seq, ev.kind, p, evolve(room, ev.kind, p, ev.seq, 0.0, round_hint=state),
                    tuple(events))
    room = evolve(room, ev.kind, p, ev.seq, 0.0)
    events: tuple[Any, ...] = ()
    if ev.kind == "round_started":
        s = room.round
        events = (RoundStarted(s.round_no, s.dealer, s.starter, s.n, s.seed, s.deck),
                  TurnStarted(s.starter, 1, False, True))
    return Step(ev.seq, ev.kind, p, room, events)


def fold(archived: Iterable[Archived], room: Room | None = None) -> list[Step]:
    """Every step of ``archived`` (continuing from ``room``)."""
    steps = []
    for ev in archived:
        step = advance(room, ev)
        steps.append(step)
        room = step.room
    return steps


@dataclass(frozen=True)
class Check:
    ok: bool
    events: int
    moves: int
    results: int
    mismatch_seq: int | None = None
    mismatch: str = ""


def _plain(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(value))


def _first_difference(fresh: list[Any], recorded: list[Any]) -> str:
    for i, (a, b) in enumerate(zip(fresh, recorded)):
        if a != b:
            return f"engine event {i}: recomputed {a.get('type')} differs from recorded {b.get('type')}"
    return f"{len(fresh)} engine events recomputed, {len(recorded)} recorded"


def _expected_dealer(room: Room) -> int:
    match = room.match
    if match.dealers:
        return (match.dealers[-1] + 1) % room.n
    return start_round(room.options, room.n, seed=match.seed, round_no=1)[0].dealer


def _compare(room: Room | None, ev: Archived, step: Step) -> str:
    """What differs between the recorded event and its recomputation ("" if nothing)."""
    p = ev.payload
    if ev.kind == "moved":
        fresh = _plain([event_to_json(e) for e in step.engine_events])
        if fresh != p.get("events"):
            return _first_difference(fresh, p.get("events") or [])
        s = step.room.round
        if (s.round_no, s.turn_no) != (p.get("round_no"), p.get("turn_no")):
            return f"round/turn recomputed as {s.round_no}/{s.turn_no}"
    elif ev.kind == "round_started":
        if p["dealer"] != _expected_dealer(room) or p["round_no"] != len(room.match.results) + 1:
            return "dealer or round number out of rotation"
    elif ev.kind == "round_scored":
        fresh = _plain(event_to_json(RoundEnded(step.room.match.results[-1]))["result"])
        if fresh != p.get("result"):
            return "round result differs from the recomputed one"
    elif ev.kind == "match_ended":
        match = step.room.match
        table = [{"unit": s.unit, "total": s.total, "outs": s.outs, "penalty_points": s.penalty_points}
                 for s in standings(match)]
        if not match.over or list(match.winners) != p.get("winners") or table != p.get("standings"):
            return "match result differs from the recomputed one"
    return ""


def check(archived: Sequence[Archived]) -> Check:
    """Re-run the archive through the engine and compare (see the module doc)."""
    room: Room | None = None
    moves = results = 0
    for i, ev in enumerate(archived):
        if ev.seq != i:
            return Check(False, i, moves, results, ev.seq, f"seq {ev.seq} where {i} was expected")
        try:
            step = advance(room, ev)
            problem = _compare(room, ev, step)
        except Exception as exc:  # the engine refused a recorded move, or the payload is broken
            return Check(False, i, moves, results, ev.seq,
                         f"{ev.kind} cannot be re-applied: {type(exc).__name__}: {exc}")
        if problem:
            return Check(False, i, moves, results, ev.seq, f"{ev.kind}: {problem}")
        moves += ev.kind == "moved"
        results += ev.kind in ("round_scored", "match_ended")
        room = step.room
    return Check(True, len(archived), moves, results)
