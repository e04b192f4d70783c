"""Starting a round: dealer, deck order and the deal (docs/rules.md §2)."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import N_CARDS
from .errors import Code, refuse
from .events import Event, RoundStarted, TurnStarted
from . import fair as fairdeal
from .fair import DealSeeds
from .options import Options
from .rng import derive
from .state import RoundState, Seat, Turn

HAND_SIZE = 14


def check_deck(deck: Sequence[int]) -> tuple[int, ...]:
    d = tuple(deck)
    if any(type(c) is not int for c in d) or len(d) != N_CARDS or sorted(d) != list(range(N_CARDS)):
        raise refuse(Code.INVALID_ARGUMENT, "a deck order lists each of the 106 card ids once", field="deck.cards")
    return d


def start_round(
    options: Options,
    n_seats: int,
    *,
    seed: int = 0,
    dealer: int | None = None,
    deck: Sequence[int] | None = None,
    round_no: int = 1,
    fair: DealSeeds | None = None,
) -> tuple[RoundState, tuple[Event, ...]]:
    """Deal a round from ``seed`` (version 0), or from ``fair``'s seeds (version 1,
    ``fair.py``); an explicit ``deck`` order is taken as given (a replay's fold). The state's
    options are ``options`` for ``n_seats`` seats (``Options.seated``: their ``seat_count`` is the
    round's)."""
    if type(n_seats) is not int:
        raise refuse(Code.INVALID_ARGUMENT, "the number of seats must be an integer", field="seats")
    options = options.seated(n_seats)
    if type(seed) is not int or not 0 <= seed < 2**64:
        raise refuse(Code.INVALID_ARGUMENT, "seed must be an integer in [0, 2^64)", field="seed")
    rng = derive(seed, "round", round_no)
    key = fairdeal.deal_key(fair, round_no, n_seats) if fair is not None else b""
    if dealer is None:
        dealer = fairdeal.dealer(key, n_seats) if key else rng.randrange(n_seats)
    elif type(dealer) is not int or not 0 <= dealer < n_seats:
        raise refuse(Code.INVALID_ARGUMENT, f"dealer must be a seat 0..{n_seats - 1}", field="dealer", min=0,
                     max=n_seats - 1)
    if deck is None and key:
        d = fairdeal.deck(key, N_CARDS)
    elif deck is None:
        order = list(range(N_CARDS))
        rng.shuffle(order)
        d = tuple(order)
    else:
        d = check_deck(deck)
    starter = (dealer + 1) % n_seats
    hands: list[list[int]] = [[] for _ in range(n_seats)]
    dealt = HAND_SIZE * n_seats + 1
    for k in range(dealt):
        hands[(starter + k) % n_seats].append(d[k])
    seats = tuple(Seat(hand=tuple(sorted(h))) for h in hands)
    turn = Turn(seat=starter, phase="play", opening_discard=True)
    state = RoundState(
        options=options, n=n_seats, dealer=dealer, seed=seed, deck=d, seats=seats,
        stock=d[dealt:], pile=(), melds=(), turn=turn, round_no=round_no, turn_no=1, deal_key=key,
    )
    committed = (fair.version, fairdeal.commitment(fair.server_seed), fair.seat_seeds) if fair else (0, b"", ())
    events: tuple[Event, ...] = (
        RoundStarted(round_no, dealer, starter, n_seats, seed, d, *committed),
        TurnStarted(starter, 1, False, True),
    )
    return state, events
