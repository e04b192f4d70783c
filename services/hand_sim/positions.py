"""Positions built from text notation (``"KS QS JS 7H"``), for tests and benchmarks."""

from __future__ import annotations

from typing import Sequence

from hand_engine import Options, RoundState, Seat, Turn, check_state, new_meld, parse_cards


def build(
    options: Options,
    hands: Sequence[str],
    *,
    pile: str = "",
    melds: Sequence[tuple[int, str]] = (),
    opened: dict[int, int] | Sequence[int] = (),
    turn_seat: int = 0,
    phase: str = "draw",
    first_turn: bool = False,
    fresh: bool | None = None,
    stock: str | None = None,
    dealer: int | None = None,
    laid_any: Sequence[int] = (),
    **turn_fields,
) -> RoundState:
    """A consistent position: listed hands, pile (bottom first) and melds; the
    other cards form the stock in id order (or ``stock`` first, then the rest).

    ``opened`` maps seat → opening total (a list means total 51).
    """
    n = len(hands)
    hand_cards = [tuple(sorted(parse_cards(h))) for h in hands]
    pile_cards = parse_cards(pile)
    table = []
    for i, (owner, text) in enumerate(melds, start=1):
        table.append(new_meld(parse_cards(text), options, (), i, owner, 0))
    used = {c for h in hand_cards for c in h} | set(pile_cards) | {c for m in table for c in m.cards}
    first = [c for c in parse_cards(stock or "") if c not in used]
    rest = [c for c in range(106) if c not in used and c not in first]
    stock_cards = tuple(first + rest)
    if isinstance(opened, dict):
        totals = opened
    else:
        totals = {s: 51 for s in opened}
    seats = tuple(
        Seat(
            hand=hand_cards[i], opened=i in totals, opening_total=totals.get(i),
            laid_any=i in totals or i in laid_any or any(m.owner == i for m in table),
            draw_turns=0 if first_turn and i == turn_seat else 3,
        )
        for i in range(n)
    )
    if fresh is None:
        fresh = not seats[turn_seat].laid_any
    turn = Turn(seat=turn_seat, phase=phase, first_turn=first_turn, fresh=fresh, **turn_fields)
    deck = tuple(c for h in hand_cards for c in h) + pile_cards + tuple(
        c for m in table for c in m.cards
    ) + stock_cards
    state = RoundState(
        options=options, n=n, dealer=(turn_seat - 1) % n if dealer is None else dealer, seed=1,
        deck=deck, seats=seats, stock=stock_cards, pile=pile_cards, melds=tuple(table),
        turn=turn, next_meld_id=len(table) + 1, turn_no=1 if turn.opening_discard else 10,
        draw_turns=0 if turn.opening_discard else 9,
        last_opening_total=max(totals.values()) if totals else None,
    )
    check_state(state)
    return state
