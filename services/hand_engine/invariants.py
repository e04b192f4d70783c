"""The invariants of docs/rules.md §13, checkable on any state.

``check_state`` raises ``RuleViolation(INVALID_STATE)``: the rules service
uses it to refuse a client-supplied state that could not arise in play.
"""

from __future__ import annotations

from collections import Counter

from .cards import N_CARDS, is_joker, rank_of, suit_of
from .errors import Code, refuse
from .melds import joker_limit_ok
from .runs import pos_rank, pos_value, run_positions
from .options import Options
from .state import Meld, RoundState


def _bad(msg: str) -> Exception:
    return refuse(Code.INVALID_STATE, msg)


def check_meld(meld: Meld, options: Options) -> None:
    """Structural legality of a meld on the table (§4, §6)."""
    jokers = [c for c in meld.cards if is_joker(c)]
    naturals = [c for c in meld.cards if not is_joker(c)]
    if sorted(s[0] for s in meld.stand_ins) != sorted(jokers):
        raise _bad(f"meld {meld.id}: stand-ins do not match its jokers")
    if not joker_limit_ok(meld.kind, len(jokers), len(meld.cards), options, new=False):
        raise _bad(f"meld {meld.id}: too many jokers")
    if meld.kind == "set":
        suits = [suit_of(c) for c in naturals]
        if not 3 <= len(meld.cards) <= 4 or len(set(suits)) != len(suits):
            raise _bad(f"meld {meld.id}: not a legal set")
        if any(rank_of(c) != meld.rank for c in naturals) or len(jokers) > 1:
            raise _bad(f"meld {meld.id}: not a legal set")
        for _, rank, suit in meld.stand_ins:
            if rank != meld.rank or suit in suits:
                raise _bad(f"meld {meld.id}: bad joker stand-in")
        value = min(meld.rank, 10) if meld.rank != 1 else 11
        if meld.value != value * len(meld.cards):
            raise _bad(f"meld {meld.id}: wrong value")
        return
    if meld.kind != "run":
        raise _bad(f"meld {meld.id}: unknown kind")
    lo, hi = meld.low, meld.low + len(meld.cards) - 1
    if not (3 <= len(meld.cards) <= 13 and lo >= 1 and hi <= 14 and not (hi == 14 and lo <= 2)):
        raise _bad(f"meld {meld.id}: not a legal run")
    stand = {s[0]: s for s in meld.stand_ins}
    for pos, card in run_positions(meld).items():
        if is_joker(card):
            if stand[card][1:] != (pos_rank(pos), meld.suit):
                raise _bad(f"meld {meld.id}: bad joker stand-in")
        elif suit_of(card) != meld.suit or rank_of(card) != pos_rank(pos):
            raise _bad(f"meld {meld.id}: card out of place")
    if meld.value != sum(pos_value(p, options) for p in run_positions(meld)):
        raise _bad(f"meld {meld.id}: wrong value")


def check_state(state: RoundState) -> None:
    """Card accounting, meld legality and turn sanity."""
    n = state.n
    state.options.check_players(n)
    if len(state.seats) != n or not 0 <= state.turn.seat < n or not 0 <= state.dealer < n:
        raise _bad("seat numbers out of range")
    if sorted(state.deck) != list(range(N_CARDS)):
        raise _bad("the deck order is not a permutation of the 106 cards")
    held = [c for s in state.seats for c in s.hand]
    laid = [c for m in state.melds for c in m.cards]
    every = Counter([*held, *laid, *state.stock, *state.pile])
    if sorted(every) != list(range(N_CARDS)) or any(v != 1 for v in every.values()):
        raise _bad("the 106 cards are not each accounted for exactly once")
    ids = [m.id for m in state.melds]
    if len(set(ids)) != len(ids) or any(i >= state.next_meld_id or i < 1 for i in ids):
        raise _bad("meld ids are not unique")
    for m in state.melds:
        if not 0 <= m.owner < n:
            raise _bad(f"meld {m.id}: owner out of range")
        check_meld(m, state.options)
    t = state.turn
    if t.phase not in ("draw", "play"):
        raise _bad("unknown turn phase")
    hand = state.seats[t.seat].hand
    if t.phase == "play" and t.taken is not None and t.taken not in hand and t.taken not in laid:
        raise _bad("the taken card is neither in hand nor on the table")
    if state.result is None and t.phase == "draw" and not state.stock:
        raise _bad("the stock is empty at the start of a turn")
    if state.result is None and not hand:
        raise _bad("the player to move has no cards")
    _check_turn(state, hand, laid)


def _check_turn(state: RoundState, hand: tuple[int, ...], laid: list[int]) -> None:
    """The turn record agrees with itself (a state a client could tamper with)."""
    t = state.turn
    if state.result is not None:
        return
    if t.phase == "draw" and (t.drawn is not None or t.taken is not None or t.discard_only
                              or t.opening_discard):
        raise _bad("a turn at its draw step has drawn or taken nothing yet")
    if t.taken is not None and not t.took:
        raise _bad("a card taken from the pile without a take")
    if t.drawn is not None and t.drawn not in hand and t.drawn not in laid:
        raise _bad("the drawn card is neither in hand nor on the table")
    if t.discard_only and len(hand) != 1:
        raise _bad("only-discard turns hold exactly one card")
    if t.opening_discard and (t.seat != state.starter or state.turn_no != 1):
        raise _bad("only the starter's first turn is a discard-only turn")
    if any(state.meld(m) is None for m in t.laid):
        raise _bad("the turn names a meld that is not on the table")
    if t.taken is not None and t.take_met is False and state.options.take_return == "never":
        from .feasibility import can_meet
        from .rules import has_obligation

        if has_obligation(state, t.seat) and not can_meet(state):
            raise _bad("the take in force can no longer be met")
