"""Commands ⇔ ``hand.v1.RoomCommand`` (the values of hand.room-commands)."""

from __future__ import annotations

from hand.v1 import room_bus_pb2 as pb
from hand.v1 import room_pb2
from hand_table import (
    Act, BotTurn, Chat, ComeBack, Command, CreateRoom, FillWithBots, JoinRoom, LeaveRoom, Presence, RemovePlayer,
    StartMatch, TurnTimeout, phrase_name, phrase_number,
)

from ..engine import action_from_proto, action_to_proto, options_from_proto, options_to_proto
from .events import LEVEL_NAMES, _secs, _ts, level_to_proto

_VIS = {True: room_pb2.ROOM_VISIBILITY_PUBLIC, False: room_pb2.ROOM_VISIBILITY_PRIVATE}


def _body(b) -> tuple[str, object]:
    match b:
        case CreateRoom():
            return "create_room", pb.CreateRoomCommand(
                join_code=b.code, visibility=_VIS[b.public], preset=b.preset,
                options=options_to_proto(b.options), seat_count=b.options.seat_count, turn_seconds=b.turn_seconds,
                player_name=b.player_name, player_id=b.player_id, token_hash=b.token_hash,
                waiting_ttl_s=b.waiting_ttl_s, seat_seed=b.seat_seed)
        case JoinRoom():
            return "join_room", pb.JoinRoomCommand(player_name=b.player_name, player_id=b.player_id,
                                                   wanted_seat=b.wanted_seat, token_hash=b.token_hash,
                                                   seat_seed=b.seat_seed)
        case LeaveRoom():
            return "leave_room", pb.LeaveRoomCommand()
        case FillWithBots():
            return "fill_with_bots", pb.FillWithBotsCommand(level=level_to_proto(b.level))
        case StartMatch():
            return "start_match", pb.StartMatchCommand(seed=b.seed, seat_seed=b.seat_seed)
        case RemovePlayer():
            return "remove_player", pb.RemovePlayerCommand(removed_seat=b.seat)
        case Act():
            return "act", pb.ActCommand(action=action_to_proto(b.action), expected_seq=b.expected_seq)
        case TurnTimeout():
            return "turn_timeout", pb.TurnTimeoutCommand(round_no=b.round_no, turn_no=b.turn_no,
                                                         away_after=b.away_after)
        case BotTurn():
            return "bot_turn", pb.BotTurnCommand(bot_seat=b.seat, round_no=b.round_no, turn_no=b.turn_no,
                                                 actions=[action_to_proto(a) for a in b.actions],
                                                 asked_seq=b.asked_seq)
        case Presence():
            return "presence", pb.PresenceCommand(connected=b.connected, at=_ts(b.at), stream_id=b.stream_id)
        case Chat():
            return "chat", pb.ChatCommand(phrase=phrase_number(b.phrase), spectator=b.spectator)
        case ComeBack():
            return "come_back", pb.ComeBackCommand()
    raise TypeError(f"not a room command: {b!r}")


def command_to_proto(cmd: Command) -> pb.RoomCommand:
    member, body = _body(cmd.body)
    msg = pb.RoomCommand(command_id=cmd.command_id, room_id=cmd.room_id, reply_to=cmd.reply_to,
                         sent_at=_ts(cmd.sent_at), seat=cmd.seat, action_id=cmd.action_id)
    getattr(msg, member).CopyFrom(body)
    return msg


def _opt(msg, name: str):
    return getattr(msg, name) if msg.HasField(name) else None


def _from(member: str, b):
    match member:
        case "create_room":
            return CreateRoom(code=b.join_code, public=b.visibility == room_pb2.ROOM_VISIBILITY_PUBLIC,
                              preset=b.preset, options=options_from_proto(b.options, b.seat_count),
                              turn_seconds=b.turn_seconds, player_name=b.player_name, player_id=b.player_id,
                              token_hash=b.token_hash, waiting_ttl_s=b.waiting_ttl_s,
                              seat_seed=_opt(b, "seat_seed"))
        case "join_room":
            return JoinRoom(player_name=b.player_name, player_id=b.player_id, token_hash=b.token_hash,
                            wanted_seat=_opt(b, "wanted_seat"), seat_seed=_opt(b, "seat_seed"))
        case "leave_room":
            return LeaveRoom()
        case "fill_with_bots":
            return FillWithBots(level=LEVEL_NAMES.get(b.level, "beginner"))
        case "start_match":
            return StartMatch(seed=_opt(b, "seed"), seat_seed=_opt(b, "seat_seed"))
        case "remove_player":
            return RemovePlayer(seat=b.removed_seat)
        case "act":
            return Act(action=action_from_proto(b.action), expected_seq=_opt(b, "expected_seq"))
        case "turn_timeout":
            return TurnTimeout(round_no=b.round_no, turn_no=b.turn_no, away_after=b.away_after)
        case "bot_turn":
            return BotTurn(seat=b.bot_seat, round_no=b.round_no, turn_no=b.turn_no,
                           actions=tuple(action_from_proto(a) for a in b.actions),
                           asked_seq=_opt(b, "asked_seq"))
        case "presence":
            return Presence(connected=b.connected, at=_secs(b.at), stream_id=b.stream_id)
        case "chat":  # an unknown number becomes "": decide refuses it (UNKNOWN_PHRASE)
            return Chat(phrase=phrase_name(b.phrase), spectator=b.spectator)
        case "come_back":
            return ComeBack()
    raise ValueError(f"room command without a body (oneof {member!r})")


def command_from_proto(msg: pb.RoomCommand) -> Command:
    member = msg.WhichOneof("command") or ""
    return Command(room_id=msg.room_id, body=_from(member, getattr(msg, member) if member else None),
                   seat=_opt(msg, "seat"), action_id=msg.action_id, reply_to=msg.reply_to,
                   command_id=msg.command_id, sent_at=_secs(msg.sent_at))


def encode_command(cmd: Command) -> bytes:
    return command_to_proto(cmd).SerializeToString()


def decode_command(data: bytes) -> Command:
    return command_from_proto(pb.RoomCommand.FromString(data))
