"""A seat's perspective: what that seat may know, as JSON, and a position
consistent with it (for bots, which decide from exactly what a human in the
seat could see: RULES.md §11, §13).

``perspective(state, seat)`` holds the seat's own hand, everything public
(pile, melds, hand sizes, who opened, counters) and, on the seat's own turn,
its turn record. ``determinize(p, seed)`` deals the unseen cards at random
to the other hands and the stock, so the engine can referee the seat's own
moves exactly (their legality never depends on hidden cards).
"""

from __future__ import annotations

import random
from dataclasses import asdict, fields
from typing import Any

from .errors import Code, refuse
from .notation import _meld_in, _meld_out, options_from_dict, options_to_dict
from .state import RoundState, Seat, Turn

FORMAT = "hand-perspective/1"


def perspective(state: RoundState, seat: int) -> dict[str, Any]:
    t = state.turn
    own_turn = {f.name: getattr(t, f.name) for f in fields(Turn)} if t.seat == seat else None
    if own_turn is not None:
        own_turn["laid"] = list(t.laid)
    return {
        "format": FORMAT, "seat": seat, "options": options_to_dict(state.options), "n": state.n,
        "round": state.round_no, "dealer": state.dealer,
        "hand": list(state.seats[seat].hand),
        "seats": [
            {"hand_size": len(s.hand), "opened": s.opened, "opening_total": s.opening_total,
             "laid_any": s.laid_any, "draw_turns": s.draw_turns}
            for s in state.seats
        ],
        "pile": list(state.pile), "melds": [_meld_out(m) for m in state.melds],
        "stock_size": len(state.stock), "rebuilds": state.rebuilds,
        "turn_seat": t.seat, "turn": own_turn, "turn_no": state.turn_no,
        "draw_turns": state.draw_turns, "next_meld_id": state.next_meld_id,
        "last_opening_total": state.last_opening_total,
    }


def determinize(p: dict[str, Any], seed: int = 0) -> RoundState:
    """A full position consistent with perspective ``p`` (hidden cards at random)."""
    if p.get("format") != FORMAT:
        raise refuse(Code.INVALID_ARGUMENT, f"not a {FORMAT} document")
    options = options_from_dict(p["options"])
    seat = p["seat"]
    melds = tuple(_meld_in(m) for m in p["melds"])
    known = set(p["hand"]) | set(p["pile"]) | {c for m in melds for c in m.cards}
    unseen = [c for c in range(106) if c not in known]
    random.Random(seed).shuffle(unseen)
    seats = []
    for i, s in enumerate(p["seats"]):
        if i == seat:
            hand = tuple(sorted(p["hand"]))
        else:
            hand, unseen = tuple(sorted(unseen[: s["hand_size"]])), unseen[s["hand_size"]:]
        seats.append(Seat(hand, s["opened"], s["opening_total"], s["laid_any"], s["draw_turns"]))
    stock = tuple(unseen)
    if len(stock) != p["stock_size"]:
        raise refuse(Code.INVALID_ARGUMENT, "perspective does not add up to 106 cards")
    if p["turn"] is not None:
        td = dict(p["turn"])
        td["laid"] = tuple(td["laid"])
        turn = Turn(**td)
    else:
        turn = Turn(seat=p["turn_seat"], phase="draw")
    deck = tuple(c for s in seats for c in s.hand) + tuple(p["pile"]) + tuple(
        c for m in melds for c in m.cards) + stock
    return RoundState(
        options=options, n=p["n"], dealer=p["dealer"], seed=seed, deck=deck, seats=tuple(seats),
        stock=stock, pile=tuple(p["pile"]), melds=melds, turn=turn, round_no=p["round"],
        next_meld_id=p["next_meld_id"], turn_no=p["turn_no"], draw_turns=p["draw_turns"],
        rebuilds=p["rebuilds"], last_opening_total=p["last_opening_total"],
    )
