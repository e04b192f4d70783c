"""The match being played: a player's move, a turn's time-out, a bot's answer, and the
round's flow they share through the rules port (``decision.py``; in-process, a move is the
engine's ``apply``: ``hand_engine/play.py``) — one move and the round's end: scoring, the
next deal, the match's end; the automatic turn of §11; a bot's moves."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from hand_engine import round_seed, Action, DealSeeds, RoundEnded, RuleViolation, next_deal, standings

from .commands import BotTurn, Command
from .errors import RoomCode, RoomError
from .events import (
    STAND_IN_LEVEL, MatchEnded, MoveMade, RoundDealt, RoundScored, SeatAway, SeatBack, TurnTimedOut,
)
from .guards import current, playing, seat_of
from .outcome import Decision
from .room import Room

if TYPE_CHECKING:  # decide's rules port (decision.py imports this module's handlers)
    from .decision import RulesPort

FAIR_DEAL_VERSION = 1  # the first provably fair version: a fresh server seed per round (decision 0022)
COMMITTED_DEAL_VERSION = 2  # server seeds from the room's match secret, committed at creation (0034)


def fair_version(room: Room) -> int:
    """The version a match started without a fixed seed deals: 2 in a room that committed to a
    match secret when it was created, 1 in a room created before that (decision 0034)."""
    return COMMITTED_DEAL_VERSION if room.match_secret else FAIR_DEAL_VERSION


async def on_act(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    seat = seat_of(room, cmd)
    playing(room)
    if body.expected_seq is not None and body.expected_seq > room.seq:
        raise RoomError(RoomCode.SEQ_OUT_OF_RANGE, "expected_seq is past the room's history",
                        field="expected_seq", expected_seq=body.expected_seq, next_seq=room.seq)
    if body.expected_seq is not None and body.expected_seq < room.game_seq:  # chat since is no change
        raise RoomError(RoomCode.STALE_ACTION, "the room has moved on since that view",
                        seq=room.seq, expected_seq=body.expected_seq)
    if not room.seats[seat].away:
        await move(d, rules, seat, body.action, "player")
        return
    d.add(SeatBack(seat=seat, connected_at=d.now))  # the seat is the player's again even if the move is refused
    try:
        await move(d, rules, seat, body.action, "player")
    except RuleViolation as exc:
        d.refusal = exc


async def on_timeout(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    if not current(room, body.round_no, body.turn_no):
        return  # a stale timer: nothing to do
    seat = room.round.turn.seat
    d.add(TurnTimedOut(seat=seat, round_no=body.round_no, turn_no=body.turn_no))
    await auto_turn(d, rules, seat)
    s = d.room.seats[seat]
    if s.kind == "human" and not s.away and s.timeouts >= body.away_after and d.room.status == "playing":
        d.add(SeatAway(seat=seat, reason="timeouts", bot_level=STAND_IN_LEVEL))


async def on_bot(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    seat = body.seat
    if not current(room, body.round_no, body.turn_no) or not room.bot_controls(seat) \
            or room.round.turn.seat != seat or answered_before_a_move(room, body):
        return  # answered too late, twice, or the player took the seat back
    await bot_moves(d, rules, seat, body.actions)


# ------------------------------------------------------------ the round's flow
async def move(d: Decision, rules: RulesPort, seat: int, action: Action, origin: str) -> bool:
    """Apply one move (RuleViolation if refused); handle the round's end.
    True while the same seat's turn goes on."""
    before = d.room.round
    state, events = await rules.apply(before, seat, action)
    d.add(MoveMade(seat=seat, action=action, origin=origin, round_no=state.round_no,
                   turn_no=state.turn_no, events=tuple(events)), after=state)
    if state.result is None:
        return state.turn.seat == seat and state.turn_no == before.turn_no
    result = next(e for e in events if isinstance(e, RoundEnded)).result
    d.add(RoundScored(round_no=state.round_no, result=result, server_seed=d.room.server_seed))  # the reveal
    match = d.room.match
    if match.over:
        reveal = d.room.match_secret if d.room.deal_version >= COMMITTED_DEAL_VERSION else b""
        d.add(MatchEnded(winners=tuple(match.winners), standings=tuple(standings(match)), match_secret=reveal))
    else:
        await deal(d, rules)
    return False


async def deal(d: Decision, rules: RulesPort) -> None:
    room = d.room
    dealer, round_no = next_deal(room.match)
    fair = None
    if room.deal_version >= COMMITTED_DEAL_VERSION:  # fixed at the room's creation, before any seat seed
        fair = DealSeeds(round_seed(room.match_secret, round_no), tuple(s.seat_seed for s in room.seats),
                         COMMITTED_DEAL_VERSION)
    elif room.deal_version >= FAIR_DEAL_VERSION:  # a fresh secret per round, committed in round_started
        fair = DealSeeds(secrets.token_bytes(32), tuple(s.seat_seed for s in room.seats))
    state, events = await rules.start_round(room.options, room.n, seed=room.match.seed, dealer=dealer,
                                            round_no=round_no, fair=fair)
    d.add(RoundDealt(round_no=state.round_no, dealer=state.dealer, deck=state.deck, events=tuple(events),
                     server_seed=fair.server_seed if fair else b""))


async def auto_turn(d: Decision, rules: RulesPort, seat: int) -> None:
    """The §11 safe automatic turn for ``seat``."""
    for action in await rules.auto_turn(d.room.round):
        if not await move(d, rules, seat, action, "timer"):
            return


async def bot_moves(d: Decision, rules: RulesPort, seat: int, actions: tuple[Action, ...]) -> None:
    for action in actions:
        try:
            if not await move(d, rules, seat, action, "bot"):
                return
        except RuleViolation:
            await auto_turn(d, rules, seat)  # never leave a bot's seat stuck
            return


def answered_before_a_move(room: Room, body: BotTurn) -> bool:
    """A move came after the ask this answers (its copy, or an older ask's answer)."""
    return body.asked_seq is not None and room.moved_seq >= body.asked_seq
