"""A seat's perspective for bots: exactly the seat's view (what a human in the
seat sees, docs/rules.md §11, §13) as JSON, and a full position consistent with it.

``determinize(p, seed)`` deals the unseen cards at random to the other hands
and the stock, so the engine can referee the seat's own moves exactly (their
legality never depends on hidden cards).
"""

from __future__ import annotations

import random
from dataclasses import asdict
from typing import Any

from .errors import Code, refuse
from .notation import _meld_in, _meld_out, options_from_dict, options_to_dict
from .state import RoundState, Seat, Turn
from .views import SeatView, view

FORMAT = "hand-perspective/1"


def view_to_json(v: SeatView) -> dict[str, Any]:
    d = asdict(v)
    d["melds"] = [_meld_out(m) for m in v.melds]
    d.pop("result", None)
    return d


def perspective(state: RoundState, seat: int) -> dict[str, Any]:
    """The seat's view as JSON, with the round's options."""
    return {"format": FORMAT, "options": options_to_dict(state.options), "view": view_to_json(view(state, seat))}


def determinize(p: dict[str, Any], seed: int = 0) -> RoundState:
    """A full position consistent with perspective ``p`` (hidden cards at random)."""
    if p.get("format") != FORMAT:
        raise refuse(Code.INVALID_ARGUMENT, f"not a {FORMAT} document")
    v = p["view"]
    options = options_from_dict(p["options"], len(v["seats"]))
    seat = v["seat"]
    melds = tuple(_meld_in(m) for m in v["melds"])
    known = set(v["hand"]) | set(v["pile"]) | {c for m in melds for c in m.cards}
    unseen = [c for c in range(106) if c not in known]
    random.Random(seed).shuffle(unseen)
    seats = []
    for i, s in enumerate(v["seats"]):
        if i == seat:
            hand = tuple(sorted(v["hand"]))
        else:
            hand, unseen = tuple(sorted(unseen[: s["hand_size"]])), unseen[s["hand_size"]:]
        seats.append(Seat(hand, s["opened"], s["opening_total"], s["laid_any"], s["draw_turns"]))
    stock = tuple(unseen)
    if len(stock) != v["stock_size"]:
        raise refuse(Code.INVALID_ARGUMENT, "perspective does not add up to 106 cards")
    t = v["turn"]
    turn = Turn(
        seat=t["seat"], phase=t["phase"], opening_discard=t["opening_discard"],
        first_turn=t["first_turn"], fresh=t["fresh"], drawn=t["drawn"], taken=t["taken"],
        take_final=t["take_final"], take_met=t["take_met"], took=t["took"], laid=tuple(t["laid"]),
        layoffs=t["layoffs"], foreign=t["foreign"], opened_now=t["opened_now"],
        discard_only=t["discard_only"],
    )
    deck = tuple(c for s in seats for c in s.hand) + tuple(v["pile"]) + tuple(
        c for m in melds for c in m.cards) + stock
    return RoundState(
        options=options, n=v["n"], dealer=v["dealer"], seed=seed, deck=deck, seats=tuple(seats),
        stock=stock, pile=tuple(v["pile"]), melds=melds, turn=turn, round_no=v["round_no"],
        next_meld_id=v["next_meld_id"], turn_no=v["turn_no"], draw_turns=v["draw_turns"],
        rebuilds=v["rebuilds"], last_opening_total=v["last_opening_total"],
    )
