"""The handlers of a match being played: a player's move, a turn's time-out, a bot's answer,
presence, coming back, quick chat."""

from __future__ import annotations

from hand_engine import RuleViolation

from .chat import check_phrase
from .commands import Command
from .errors import RoomCode, RoomError
from .events import STAND_IN_LEVEL, ChatSent, SeatAway, SeatBack, SeatConnected, TurnTimedOut
from .guards import current, playing, seat_of
from .outcome import Decision
from .ports import RulesPort
from .round_flow import answered_before_a_move, auto_turn, bot_moves, move


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


async def on_presence(d: Decision, cmd: Command, rules: RulesPort) -> None:
    """A seat's first stream anywhere, or its last one closed (the owner's presence
    tracker debounces the streams: it passes only those two moments on)."""
    room, body = d.room, cmd.body
    seat = seat_of(room, cmd)
    s = room.seats[seat]
    if room.status == "finished":
        return  # nothing is appended after match_ended
    if body.connected:
        d.add(SeatBack(seat=seat, connected_at=body.at) if s.away
              else SeatConnected(seat=seat, connected_at=body.at))
    elif not s.away and room.status == "playing" and body.at >= s.connected_at:
        d.add(SeatAway(seat=seat, reason="disconnected", bot_level=STAND_IN_LEVEL))


async def on_come_back(d: Decision, cmd: Command, rules: RulesPort) -> None:
    """The player of an away seat takes it back (RoomService.ComeBack): the stand-in bot
    plays every turn of an away seat, so the player has no turn to act on; a seat that is
    not away is left as it is (no event: "I'm back" twice is no error; decision 0030)."""
    room = d.room
    seat = seat_of(room, cmd)
    d.seat = seat
    if room.seats[seat].away and room.status == "playing":
        d.add(SeatBack(seat=seat, connected_at=d.now))


async def on_chat(d: Decision, cmd: Command, rules: RulesPort) -> None:
    """A quick-chat phrase from a seat (a player's, away or not: chat brings nobody back)
    or a signed-in spectator; nothing of the game changes (``chat``)."""
    room, body = d.room, cmd.body
    check_phrase(body.phrase)
    if cmd.seat is not None:
        d.add(ChatSent(seat=seat_of(room, cmd), phrase=body.phrase))
    elif body.spectator:
        d.add(ChatSent(seat=None, phrase=body.phrase, spectator=body.spectator))
    else:
        raise RoomError("UNAUTHENTICATED", "a spectator chats signed in", field="authorization")
