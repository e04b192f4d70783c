"""Room aggregate → protobuf (RoomInfo, RoomEvent, WatchResponse)."""

from __future__ import annotations

from typing import Any

from hand.v1 import room_service_pb2 as pb
from hand_engine import apply, redact, view
from hand_engine.match import standings
from hand_rules.convert import action_to_proto, event_to_proto, options_to_proto, view_to_proto
from hand_rules.convert.state import result_to_proto

from .codec import action_from_json
from .fold import evolve
from .model import Room

_KIND = {"empty": pb.SEAT_KIND_EMPTY, "human": pb.SEAT_KIND_HUMAN, "bot": pb.SEAT_KIND_BOT}
_LEVEL = {"": pb.BOT_LEVEL_UNSPECIFIED, "beginner": pb.BOT_LEVEL_BEGINNER,
          "middle": pb.BOT_LEVEL_MIDDLE, "strong": pb.BOT_LEVEL_STRONG}
LEVEL_NAMES = {v: k for k, v in _LEVEL.items() if k}
_STATUS = {"waiting": pb.ROOM_STATUS_WAITING, "playing": pb.ROOM_STATUS_PLAYING,
           "finished": pb.ROOM_STATUS_FINISHED}
_ORIGIN = {"player": pb.MOVE_ORIGIN_PLAYER, "timer": pb.MOVE_ORIGIN_TIMER, "bot": pb.MOVE_ORIGIN_BOT}


def room_info(room: Room) -> pb.RoomInfo:
    info = pb.RoomInfo(
        room_id=room.room_id, join_code=room.code,
        visibility=pb.ROOM_VISIBILITY_PUBLIC if room.public else pb.ROOM_VISIBILITY_PRIVATE,
        preset=room.preset, options=options_to_proto(room.options), seat_count=room.n,
        host_seat=room.host_seat, status=_STATUS[room.status],
        round_no=room.round.round_no if room.round is not None else 0,
        next_seq=room.seq, turn_seconds=int(room.turn_seconds),
    )
    for i, s in enumerate(room.seats):
        info.seats.add(seat=i, kind=_KIND[s.kind], name=s.name, bot_level=_LEVEL.get(s.bot_level, 0),
                       away=s.away)
    if room.match is not None:
        for st in standings(room.match):
            info.standings.add(unit=st.unit, total=st.total, outs=st.outs, penalty_points=st.penalty_points)
        info.winners.extend(room.match.winners)
    return info


def step(room: Room | None, kind: str, payload: dict[str, Any], seq: int, at: float,
         seat: int | None) -> tuple[Room, pb.RoomEvent]:
    """Fold one stored event and render it for ``seat`` (None = spectator)."""
    ev = pb.RoomEvent(kind=kind)
    if "seat" in payload and isinstance(payload["seat"], int):
        ev.seat = payload["seat"]
    if kind == "moved":
        action = action_from_json(payload["action"])
        state, events = apply(room.round, payload["seat"], action)
        room = evolve(room, kind, payload, seq, at, round_hint=state)
        ev.action.CopyFrom(action_to_proto(action))
        ev.origin = _ORIGIN.get(payload.get("by", ""), 0)
        for e in events:
            ev.events.append(event_to_proto(redact(e, seat)))
        return room, ev
    room = evolve(room, kind, payload, seq, at)
    if kind == "round_scored":
        ev.result.CopyFrom(result_to_proto(room.match.results[-1]))
        ev.round_no = payload["round_no"]
    elif kind == "round_started":
        ev.round_no = payload["round_no"]
    elif kind == "seat_away":
        ev.reason = payload.get("reason", "")
    return room, ev


def watch_message(room: Room, seq: int, event: pb.RoomEvent | None, seat: int | None) -> pb.WatchResponse:
    msg = pb.WatchResponse(seq=seq, room=room_info(room))
    if event is not None:
        msg.event.CopyFrom(event)
    if room.round is not None:
        msg.view.CopyFrom(view_to_proto(view(room.round, seat), room.options))
    return msg
