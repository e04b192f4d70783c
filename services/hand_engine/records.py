"""Game-record notation (docs/notation.md): how a round was dealt, then every accepted move
in order; ``replay_record`` re-runs one through the engine. Like PGN for chess."""

from __future__ import annotations

from typing import Any

from .deal import start_round
from .errors import Code, refuse
from .notation import _cs, _ps, action_from_dict, action_to_dict, options_from_dict, options_to_dict
from .options import Options
from .play import apply

RECORD_FORMAT = "hand-record/1"


def record_to_dict(
    options: Options, n: int, dealer: int, seed: int, deck, moves, round_no: int = 1
) -> dict[str, Any]:
    """A round's record: how it was dealt, then every accepted move in order."""
    return {
        "format": RECORD_FORMAT, "options": options_to_dict(options), "seats": n,
        "round": round_no, "dealer": dealer, "seed": seed, "deck": _cs(deck),
        "moves": [{"seat": s, **action_to_dict(a)} for s, a in moves],
    }


def replay_record(d: dict[str, Any]):
    """Re-run a record through the engine: (final state, all events)."""
    if d.get("format") != RECORD_FORMAT:
        raise refuse(Code.INVALID_ARGUMENT, f"not a {RECORD_FORMAT} document")
    state, events = start_round(
        options_from_dict(d["options"]), int(d["seats"]), seed=int(d["seed"]),
        dealer=int(d["dealer"]), deck=_ps(d["deck"]), round_no=int(d.get("round", 1)),
    )
    out = list(events)
    for move in d["moves"]:
        state, ev = apply(state, int(move["seat"]), action_from_dict(move))
        out.extend(ev)
    return state, tuple(out)
