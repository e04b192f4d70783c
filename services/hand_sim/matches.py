"""Whole matches played in-process through the room domain (``hand_table``'s
``decide`` with the engine as its rules port, no Kafka), for tests and
benchmarks (the ledger's scenarios: tests/ledger_support.py).

``play_match`` returns the room's events as the room service stores them
(``MatchRun.stored``, typed ``Recorded``) and as it publishes them on
hand.room-events (``MatchRun.events``: the private form, encoded
``hand.v1.RoomEvent`` bytes, as :class:`hand_wire.Delivered`). Seats play
one of two ways:

- ``random``: random legal moves (``hand_engine.random_step``), seeded;
- planned (:class:`Plan`): the round is dealt from a crafted deck giving the
  seat a chosen hand; the seat lays ``first`` at its first chance (its
  opening — a Hand if it leaves one card), then ``then`` at its next chance
  (going out normally), and otherwise draws and discards what it drew. Seats
  without a plan in a planned match just draw and discard: such a round ends
  exhausted.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from hand_engine import (
    Discard, DrawStock, LayMelds, MeldSpec, RuleViolation, hand_value, parse_cards, random_step, resolve,
)
from hand_engine import start_round as engine_start_round
from hand_table import (
    Act, BotTurn, Command, CreateRoom, FillWithBots, JoinRoom, LeaveRoom, LocalRules, Recorded, Room, RoomError,
    StartMatch, decide, private,
)
from hand_wire import Delivered, encode


@dataclass(frozen=True)
class Plan:
    """What one seat does in one round (cards in text notation, e.g. ``"KS QS JS"``)."""

    hand: str  # the seat's 14 dealt cards (the starter gets one more card, discarded first)
    first: tuple[str, ...] = ()  # melds laid at the first chance (the opening)
    then: tuple[str, ...] = ()  # melds laid at the next chance, going out

    def cards(self) -> list[int]:
        return parse_cards(self.hand)


class CraftedRules(LocalRules):
    """The engine, dealing the rounds listed in ``plans`` from crafted decks."""

    def __init__(self, plans: Mapping[int, Mapping[int, Plan]]) -> None:
        self.plans = plans

    async def start_round(self, options, n, *, seed, dealer, round_no, fair=None):
        plans = self.plans.get(round_no)
        if not plans:
            return await super().start_round(options, n, seed=seed, dealer=dealer, round_no=round_no, fair=fair)
        if dealer is None:
            dealer = engine_start_round(options, n, seed=seed, round_no=1)[0].dealer
        deck = crafted_deck(n, dealer, {s: p.cards() for s, p in plans.items()}, seed + round_no)
        return engine_start_round(options, n, seed=seed, dealer=dealer, deck=deck, round_no=round_no)


def crafted_deck(n: int, dealer: int, hands: Mapping[int, Sequence[int]], seed: int) -> list[int]:
    """A deck order dealing ``hands`` (14 cards each) to their seats; the rest shuffled."""
    used = [c for h in hands.values() for c in h]
    assert len(used) == len(set(used)) and all(len(h) == 14 for h in hands.values()), hands
    rest = [c for c in range(106) if c not in set(used)]
    random.Random(seed).shuffle(rest)
    dealt: dict[int, list[int]] = {s: list(hands.get(s, ())) for s in range(n)}
    for s in range(n):
        while len(dealt[s]) < 14:
            dealt[s].append(rest.pop())
    starter = (dealer + 1) % n
    dealt[starter].append(rest.pop())  # the starter's 15th card
    order = [dealt[(starter + k) % n][k // n] for k in range(14 * n + 1)]
    return order + rest


@dataclass
class MatchRun:
    room: Room
    stored: list[Recorded] = field(default_factory=list)  # the room's event store (token hashes too)
    events: list[Delivered] = field(default_factory=list)  # hand.room-events: the private form, encoded


def published(rec: Recorded, partition=None, offset: int = -1) -> Delivered:
    """``rec`` as the ledger receives it from hand.room-events."""
    out = private(rec)
    return Delivered(out, encode(out), partition, offset)


def token(seat: int) -> str:
    return hashlib.sha256(f"token-{seat}".encode()).hexdigest()


def seat_token(seat: int) -> str:
    """The seat token whose hash ``play_match`` registers for ``seat``."""
    return f"token-{seat}"


async def play_match(preset: str, seats: int, *, rounds: int = 1, seed: int = 1, room_id: str = "r1",
                     plans: Mapping[int, Mapping[int, Plan]] | None = None,
                     player_ids: Sequence[str] | None = None, stop_after: int | None = None,
                     fair: bool = False, leave_at: Mapping[int, int] | None = None,
                     back_at: Mapping[int, int] | None = None, bots: int = 0, host_seed: str | None = None,
                     **overrides) -> MatchRun:
    """Create, fill, start and play a match; every stored event in order. ``seed`` fixes the
    deals (version 0) and the moves; with ``fair`` it drives the moves only, and every round is
    dealt provably fair (version 2: server seeds from the room's committed match secret,
    decisions 0022 and 0034). ``bots``: the last ``bots`` seats are the room's bots
    (``FillWithBots``), not players. ``host_seed``: the host's own seat seed, given with
    ``StartMatch`` (decision 0035) rather than with ``CreateRoom``.

    ``leave_at`` / ``back_at``: seat → the number of events after which its player leaves
    the match (``LeaveRoom``: a bot plays the seat) / comes back (its next move is its own)."""
    rules = CraftedRules(plans or {})
    ids = list(player_ids or [f"p{i}" for i in range(seats)])
    run = MatchRun(room=None)  # type: ignore[arg-type]
    now = 1_000.0

    async def do(body, seat: int | None = None) -> bool:
        nonlocal now
        now += 1
        try:
            d = await decide(run.room, Command(room_id, body, seat=seat), now, rules)
        except (RoomError, RuleViolation):
            return False
        if d.refusal is not None:
            return False
        run.stored.extend(d.events)
        run.events.extend(published(rec) for rec in d.events)
        run.room = d.room
        return True

    options = resolve(preset, {**overrides, "rounds": rounds, "seat_count": seats})
    assert await do(CreateRoom(code="ABCDEF", public=False, preset=preset, options=options,
                               turn_seconds=30, player_name="n0", player_id=ids[0], token_hash=token(0)))
    for s in range(1, seats - bots):
        assert await do(JoinRoom(player_name=f"n{s}", player_id=ids[s], token_hash=token(s)))
    if bots:
        assert await do(FillWithBots(level="beginner"), seat=0)
    assert await do(StartMatch(seed=None if fair else seed, seat_seed=host_seed), seat=0)
    rng = random.Random(seed)
    done: dict[tuple[int, int, str], int] = {}  # (round, seat, "first"/"then") -> turn laid
    while run.room.status == "playing":
        if stop_after is not None and len(run.events) >= stop_after:
            break
        for s, at in (leave_at or {}).items():
            if len(run.events) >= at and not run.room.seats[s].away and (back_at or {}).get(s, 1 << 60) > len(
                    run.events):
                assert await do(LeaveRoom(), seat=s)
        state = run.room.round
        seat = state.turn.seat
        plan = (plans or {}).get(state.round_no, {}).get(seat)
        by_bot = (run.room.seats[seat].away or run.room.seats[seat].kind == "bot") and (back_at or {}).get(seat, 1 << 60) > len(run.events)
        for action in _turn(state, seat, plan, rng, plans is not None, done):
            body = BotTurn(seat, state.round_no, state.turn_no, (action,)) if by_bot else Act(action)
            if await do(body, seat=None if by_bot else seat) and (not by_bot or run.room.round is not state):
                break
        else:
            raise AssertionError(f"no move accepted for seat {seat}")
    return run


def _turn(state, seat, plan, rng, planned, done):
    """Candidate moves for the seat to move, first accepted wins (refusals are skipped)."""
    t = state.turn
    if not planned:
        yield random_step(state, rng)[2]
        return
    hand = state.seats[seat].hand
    if t.phase == "draw" and not t.opening_discard:
        yield DrawStock()
        return
    key = state.round_no, seat
    if plan is not None and not t.opening_discard:
        for stage, melds in (("first", plan.first), ("then", plan.then)):
            if not melds or (*key, stage) in done:
                continue
            if stage == "then" and done.get((*key, "first"), state.turn_no) >= state.turn_no:
                break  # going out waits for a later turn than the opening (else it is a Hand)
            if all(c in hand for m in melds for c in parse_cards(m)):
                done[(*key, stage)] = state.turn_no  # kept if the lay is accepted
                yield LayMelds(tuple(MeldSpec(tuple(parse_cards(m))) for m in melds))
                del done[(*key, stage)]
            break
    mine = set(plan.cards()) if plan is not None else set()
    spare = [c for c in hand if c not in mine] or list(hand)
    drawn = t.drawn if t.drawn in hand else None
    j = state.options.joker_in_hand
    yield Discard(drawn if drawn is not None else max(spare, key=lambda c: (hand_value(c, j), c)))
