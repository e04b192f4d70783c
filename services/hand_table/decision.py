"""``decide(room, command, now, rules)``: the events a command produces, or a
refusal (``RoomError`` / ``RuleViolation``; nothing changes). Pure but for the
rules port. Each produced event is folded at once so later checks see its
effect; the caller appends ``Decision.events`` and adopts ``Decision.room``.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from hand_engine import Action, DealSeeds, RoundEnded, RuleViolation, check_seat_seed, next_deal, standings

from .errors import RoomCode, RoomError
from .ports import RulesPort
from .chat import check_phrase
from .commands import (
    Act, BotTurn, Chat, ComeBack, Command, CreateRoom, FillWithBots, JoinRoom, LeaveRoom, Presence, RemovePlayer,
    StartMatch, TurnTimeout,
)
from .events import (
    BOT_LEVELS, ChatSent, MatchEnded, MatchStarted, MoveMade, Recorded, RoomCreated, RoomEvent, RoundDealt,
    RoundScored, SeatAway, SeatBack, SeatConnected, SeatLeft, SeatTaken, TurnTimedOut,
)
from .projection import evolve
from .room import Room

STAND_IN_LEVEL = "middle"  # the bot that plays an away player's seat
FAIR_DEAL_VERSION = 1  # MatchStarted.deal_version of a match started without a fixed seed


def _seat_seed(sent: str | None) -> str:
    """The seat's seed for the deals: the player's (checked), or one drawn for it."""
    return secrets.token_hex(16) if sent is None else check_seat_seed(sent)


@dataclass
class Decision:
    room: Room | None
    room_id: str
    now: float
    events: list[Recorded] = field(default_factory=list)
    rooms: list[Room] = field(default_factory=list)  # the room after each event
    seat: int | None = None  # the seat the command concerned (a join's new seat)
    refusal: Exception | None = None  # refused, but ``events`` still stand (see Act)

    def add(self, event: RoomEvent, after: Any = None) -> None:
        seq = self.room.seq if self.room is not None else 0
        rec = Recorded(self.room_id, seq, self.now, event)
        self.room = evolve(self.room, rec, after)
        self.events.append(rec)
        self.rooms.append(self.room)


def _seat_of(room: Room, cmd: Command) -> int:
    if cmd.seat is None or not 0 <= cmd.seat < room.n or room.seats[cmd.seat].kind != "human":
        raise RoomError(RoomCode.SEAT_TOKEN_INVALID, "this seat token is not valid for this room")
    return cmd.seat


def _host(room: Room, cmd: Command) -> int:
    seat = _seat_of(room, cmd)
    if seat != room.host_seat:
        raise RoomError(RoomCode.NOT_HOST, "only the host can do that", host_seat=room.host_seat, seat=seat)
    return seat


def _waiting(room: Room) -> None:
    if room.status != "waiting":
        raise RoomError(RoomCode.MATCH_STARTED, "the match has started", status=room.status)


def _playing(room: Room) -> None:
    if room.status != "playing" or room.round is None:
        raise RoomError(RoomCode.MATCH_NOT_STARTED, "the match is not being played", status=room.status)


def _current(room: Room, round_no: int, turn_no: int) -> bool:
    r = room.round
    return (room.status == "playing" and r is not None and r.result is None
            and round_no == r.round_no and turn_no == r.turn_no)


async def decide(room: Room | None, cmd: Command, now: float, rules: RulesPort) -> Decision:
    """The events ``cmd`` produces on ``room``: the handler of its kind (``HANDLERS``)."""
    handler = HANDLERS.get(type(cmd.body))
    if handler is None:
        raise RoomError("INVALID_ARGUMENT", "unknown command", field="command")
    if isinstance(cmd.body, CreateRoom):
        if room is not None:
            raise RoomError(RoomCode.ROOM_EXISTS, "room exists")
        d = Decision(None, cmd.room_id, now)
        await handler(d, cmd, rules)
        return d
    if room is None:
        raise RoomError(RoomCode.ROOM_NOT_FOUND, "no such room")
    if room.status == "finished" and not isinstance(cmd.body, Presence):
        if cmd.seat is not None:  # a seat token expires with the match
            raise RoomError(RoomCode.SEAT_TOKEN_EXPIRED, "the match is over", field="seat_token",
                            reason="match_ended")
        raise RoomError(RoomCode.MATCH_OVER, "the match is over")
    if room.expired_at(now) and not isinstance(cmd.body, (Presence, LeaveRoom)):
        raise RoomError(RoomCode.ROOM_NOT_FOUND, "the room expired before its match started", reason="expired")
    d = Decision(room, cmd.room_id, now)
    await handler(d, cmd, rules)
    return d


def _fixed_seed(room: Room, player_id: str, sent: str | None) -> str:
    """A player's seat seed is fixed for the room the first time they sit down (decision 0033):
    joining again reuses it; a different one is refused, so leaving and joining cannot churn it."""
    first = room.seed_of(player_id)
    if first is None:
        return _seat_seed(sent)
    if sent is not None and sent != first:
        raise RoomError(RoomCode.SEAT_SEED_FIXED, "your seat seed for this room is fixed", field="seat_seed")
    return first


async def _create(d: Decision, cmd: Command, rules: RulesPort) -> None:
    body: CreateRoom = cmd.body
    d.add(RoomCreated(code=body.code, public=body.public, preset=body.preset, options=body.options,
                      seats=body.seats, turn_seconds=body.turn_seconds, waiting_ttl_s=body.waiting_ttl_s))
    d.add(SeatTaken(seat=0, kind="human", name=body.player_name, player_id=body.player_id,
                    token_hash=body.token_hash, seat_seed=_seat_seed(body.seat_seed)))
    d.seat = 0


async def _join(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    _waiting(room)
    free = room.free_seats()
    if not free:
        raise RoomError(RoomCode.ROOM_FULL, "no free seat", seats=room.n)
    if body.wanted_seat is not None and body.wanted_seat not in free:
        raise RoomError(RoomCode.SEAT_TAKEN, "that seat is taken", seat=body.wanted_seat)
    seat = free[0] if body.wanted_seat is None else body.wanted_seat
    d.add(SeatTaken(seat=seat, kind="human", name=body.player_name, player_id=body.player_id,
                    token_hash=body.token_hash, seat_seed=_fixed_seed(room, body.player_id, body.seat_seed)))
    d.seat = seat


async def _leave(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room = d.room
    seat = _seat_of(room, cmd)
    if room.status == "waiting":
        d.add(SeatLeft(seat=seat))
    elif not room.seats[seat].away:
        d.add(SeatAway(seat=seat, reason="left", bot_level=STAND_IN_LEVEL))
    d.seat = seat


async def _remove(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    host = _host(room, cmd)
    _waiting(room)
    if body.seat == host:  # the host leaves with LeaveRoom, never by freeing its own seat
        raise RoomError("INVALID_ARGUMENT", "the host cannot remove its own seat", field="seat",
                        seat=body.seat, host_seat=host)
    if not 0 <= body.seat < room.n:
        raise RoomError("INVALID_ARGUMENT", "not a seat of the room", field="seat", min=0, max=room.n - 1)
    if room.seats[body.seat].kind == "empty":
        raise RoomError(RoomCode.SEAT_EMPTY, "that seat is free already", seat=body.seat)
    d.add(SeatLeft(seat=body.seat))
    d.seat = body.seat


async def _fill(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    _host(room, cmd)
    _waiting(room)
    if body.level not in BOT_LEVELS:
        raise RoomError("INVALID_ARGUMENT", "unknown bot level", field="level", allowed=",".join(BOT_LEVELS))
    for seat in room.free_seats():
        d.add(SeatTaken(seat=seat, kind="bot", bot_level=body.level, name=f"bot-{seat}",
                        seat_seed=_seat_seed(None)))


async def _start(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    _host(room, cmd)
    _waiting(room)
    if room.free_seats():
        raise RoomError(RoomCode.NOT_ENOUGH_PLAYERS, "every seat must be filled (add bots?)",
                        free=len(room.free_seats()))
    # a fixed seed (tournaments, tests) deals as before (version 0: nothing to commit to, the
    # seed's holder knows every deck); otherwise every round is provably fair (decision 0022)
    d.add(MatchStarted(seed=secrets.randbits(63) if body.seed is None else body.seed,
                       deal_version=0 if body.seed is not None else FAIR_DEAL_VERSION))
    await _deal(d, rules)


async def _act(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    seat = _seat_of(room, cmd)
    _playing(room)
    if body.expected_seq is not None and body.expected_seq > room.seq:
        raise RoomError(RoomCode.SEQ_OUT_OF_RANGE, "expected_seq is past the room's history",
                        field="expected_seq", expected_seq=body.expected_seq, next_seq=room.seq)
    if body.expected_seq is not None and body.expected_seq < room.game_seq:  # chat since is no change
        raise RoomError(RoomCode.STALE_ACTION, "the room has moved on since that view",
                        seq=room.seq, expected_seq=body.expected_seq)
    if not room.seats[seat].away:
        await _move(d, rules, seat, body.action, "player")
        return
    d.add(SeatBack(seat=seat, connected_at=d.now))  # the seat is the player's again even if the move is refused
    try:
        await _move(d, rules, seat, body.action, "player")
    except RuleViolation as exc:
        d.refusal = exc


async def _timeout(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    if not _current(room, body.round_no, body.turn_no):
        return  # a stale timer: nothing to do
    seat = room.round.turn.seat
    d.add(TurnTimedOut(seat=seat, round_no=body.round_no, turn_no=body.turn_no))
    await _auto(d, rules, seat)
    s = d.room.seats[seat]
    if s.kind == "human" and not s.away and s.timeouts >= body.away_after and d.room.status == "playing":
        d.add(SeatAway(seat=seat, reason="timeouts", bot_level=STAND_IN_LEVEL))


async def _bot(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    seat = body.seat
    if not _current(room, body.round_no, body.turn_no) or not room.bot_controls(seat) \
            or room.round.turn.seat != seat or _answered_before_a_move(room, body):
        return  # answered too late, twice, or the player took the seat back
    await _bot_turn(d, rules, seat, body.actions)


async def _presence(d: Decision, cmd: Command, rules: RulesPort) -> None:
    """A seat's first stream anywhere, or its last one closed (the owner's presence
    tracker debounces the streams: it passes only those two moments on)."""
    room, body = d.room, cmd.body
    seat = _seat_of(room, cmd)
    s = room.seats[seat]
    if room.status == "finished":
        return  # nothing is appended after match_ended
    if body.connected:
        d.add(SeatBack(seat=seat, connected_at=body.at) if s.away
              else SeatConnected(seat=seat, connected_at=body.at))
    elif not s.away and room.status == "playing" and body.at >= s.connected_at:
        d.add(SeatAway(seat=seat, reason="disconnected", bot_level=STAND_IN_LEVEL))


async def _come_back(d: Decision, cmd: Command, rules: RulesPort) -> None:
    """The player of an away seat takes it back (RoomService.ComeBack): the stand-in bot
    plays every turn of an away seat, so the player has no turn to act on; a seat that is
    not away is left as it is (no event: "I'm back" twice is no error; decision 0030)."""
    room = d.room
    seat = _seat_of(room, cmd)
    d.seat = seat
    if room.seats[seat].away and room.status == "playing":
        d.add(SeatBack(seat=seat, connected_at=d.now))


async def _chat(d: Decision, cmd: Command, rules: RulesPort) -> None:
    """A quick-chat phrase from a seat (a player's, away or not: chat brings nobody back)
    or a signed-in spectator; nothing of the game changes (``chat``)."""
    room, body = d.room, cmd.body
    check_phrase(body.phrase)
    if cmd.seat is not None:
        d.add(ChatSent(seat=_seat_of(room, cmd), phrase=body.phrase))
    elif body.spectator:
        d.add(ChatSent(seat=None, phrase=body.phrase, spectator=body.spectator))
    else:
        raise RoomError("UNAUTHENTICATED", "a spectator chats signed in", field="authorization")


Handler = Callable[[Decision, Command, RulesPort], Awaitable[None]]

#: one handler per command kind (cosmicpython's ``handlers.py``)
HANDLERS: dict[type, Handler] = {
    CreateRoom: _create, JoinRoom: _join, LeaveRoom: _leave, RemovePlayer: _remove, FillWithBots: _fill,
    StartMatch: _start, Act: _act, TurnTimeout: _timeout, BotTurn: _bot, Presence: _presence, Chat: _chat,
    ComeBack: _come_back,
}


def _answered_before_a_move(room: Room, body: BotTurn) -> bool:
    """A move came after the ask this answers (its copy, or an older ask's answer)."""
    return body.asked_seq is not None and room.moved_seq >= body.asked_seq


async def _bot_turn(d: Decision, rules: RulesPort, seat: int, actions: tuple[Action, ...]) -> None:
    for action in actions:
        try:
            if not await _move(d, rules, seat, action, "bot"):
                return
        except RuleViolation:
            await _auto(d, rules, seat)  # never leave a bot's seat stuck
            return


async def _auto(d: Decision, rules: RulesPort, seat: int) -> None:
    """The §11 safe automatic turn for ``seat``."""
    for action in await rules.auto_turn(d.room.round):
        if not await _move(d, rules, seat, action, "timer"):
            return


async def _deal(d: Decision, rules: RulesPort) -> None:
    room = d.room
    dealer, round_no = next_deal(room.match)
    fair = None
    if room.deal_version >= FAIR_DEAL_VERSION:  # a fresh secret per round, committed in round_started
        fair = DealSeeds(secrets.token_bytes(32), tuple(s.seat_seed for s in room.seats))
    state, events = await rules.start_round(room.options, room.n, seed=room.match.seed, dealer=dealer,
                                            round_no=round_no, fair=fair)
    d.add(RoundDealt(round_no=state.round_no, dealer=state.dealer, deck=state.deck, events=tuple(events),
                     server_seed=fair.server_seed if fair else b""))


async def _move(d: Decision, rules: RulesPort, seat: int, action: Action, origin: str) -> bool:
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
        d.add(MatchEnded(winners=tuple(match.winners), standings=tuple(standings(match))))
    else:
        await _deal(d, rules)
    return False

