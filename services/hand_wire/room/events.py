"""Room events ⇔ ``hand.v1.RoomEvent`` (the store's rows, both event topics,
Watch and GetReplay all carry this one message), and what each event topic
carries of a stored event (``topic_values``; the outbox relay's renderings,
``private_value`` and ``public_value``).

Card ids become wire ids (+1) through ``hand_wire.engine``; optional seat
fields are always set; a redacted secret (``None`` seed, empty deck, a
``StockDrawn`` card of another seat) is an unset or empty field.
"""

from __future__ import annotations

from google.protobuf.message import DecodeError
from google.protobuf.timestamp_pb2 import Timestamp

from hand.v1 import room_events_pb2 as pb
from hand.v1 import room_pb2
from hand_engine import RuleViolation, Standing
from hand_table import (
    for_seat, private, ChatSent, MatchEnded, MatchStarted, MoveMade, Recorded, RoomCreated, RoomEvent, RoundDealt, RoundScored,
    SeatAway, SeatBack, SeatConnected, SeatLeft, SeatTaken, TurnTimedOut, kind_of, phrase_name, phrase_number,
)

from ..engine import (
    action_from_proto, action_to_proto, cards_in, cards_out, event_from_proto, event_to_proto,
    options_from_proto, options_to_proto, result_from_proto, result_to_proto,
)

_KIND = {"human": room_pb2.SEAT_KIND_HUMAN, "bot": room_pb2.SEAT_KIND_BOT}
_LEVEL = {"": 0, "beginner": room_pb2.BOT_LEVEL_BEGINNER, "middle": room_pb2.BOT_LEVEL_MIDDLE,
          "strong": room_pb2.BOT_LEVEL_STRONG, "expert": room_pb2.BOT_LEVEL_EXPERT}
_REASON = {"left": pb.AWAY_REASON_LEFT, "timeouts": pb.AWAY_REASON_TIMEOUTS,
           "disconnected": pb.AWAY_REASON_DISCONNECTED}
_ORIGIN = {"player": room_pb2.MOVE_ORIGIN_PLAYER, "timer": room_pb2.MOVE_ORIGIN_TIMER,
           "bot": room_pb2.MOVE_ORIGIN_BOT}
_VIS = {True: room_pb2.ROOM_VISIBILITY_PUBLIC, False: room_pb2.ROOM_VISIBILITY_PRIVATE}


def _names(table: dict) -> dict:
    return {v: k for k, v in table.items() if k}


LEVEL_NAMES, KIND_NAMES = _names(_LEVEL), _names(_KIND)
_REASON_NAMES, _ORIGIN_NAMES = _names(_REASON), _names(_ORIGIN)


def level_to_proto(level: str) -> int:
    return _LEVEL.get(level, 0)


def _ts(seconds: float) -> Timestamp:
    ts = Timestamp()
    ts.FromNanoseconds(int(round(seconds * 1e9)))
    return ts


def _secs(ts: Timestamp) -> float:
    return ts.ToNanoseconds() / 1e9


def standing_to_proto(s: Standing) -> room_pb2.Standing:
    return room_pb2.Standing(unit=s.unit, total=s.total, outs=s.outs, penalty_points=s.penalty_points)


def _body(ev: RoomEvent):
    """The oneof member's message for ``ev``."""
    match ev:
        case RoomCreated():
            return pb.RoomCreated(join_code=ev.code, visibility=_VIS[ev.public], preset=ev.preset,
                                  options=options_to_proto(ev.options), seat_count=ev.options.seat_count,
                                  turn_seconds=ev.turn_seconds, host_seat=ev.host_seat,
                                  waiting_ttl_s=ev.waiting_ttl_s, deal_commitment=ev.deal_commitment,
                                  match_secret=ev.match_secret)
        case SeatTaken():
            return pb.SeatTaken(seat=ev.seat, kind=_KIND[ev.kind], name=ev.name,
                                bot_level=_LEVEL.get(ev.bot_level, 0), player_id=ev.player_id,
                                token_hash=ev.token_hash, seat_seed=ev.seat_seed)
        case SeatLeft():
            return pb.SeatLeft(seat=ev.seat)
        case SeatAway():
            return pb.SeatAway(seat=ev.seat, reason=_REASON[ev.reason], bot_level=_LEVEL.get(ev.bot_level, 0))
        case SeatBack():
            return pb.SeatBack(seat=ev.seat, connected_at=_ts(ev.connected_at))
        case SeatConnected():
            return pb.SeatConnected(seat=ev.seat, connected_at=_ts(ev.connected_at))
        case MatchStarted():
            return pb.MatchStarted(seed=ev.seed, deal_version=ev.deal_version, starter_seat=ev.starter_seat,
                                   starter_seat_seed=ev.starter_seat_seed)
        case RoundDealt():
            return pb.RoundDealt(round_no=ev.round_no, dealer=ev.dealer, deck=cards_out(ev.deck),
                                 events=[event_to_proto(e) for e in ev.events], server_seed=ev.server_seed)
        case MoveMade():
            return pb.MoveMade(seat=ev.seat, action=action_to_proto(ev.action), origin=_ORIGIN[ev.origin],
                               round_no=ev.round_no, turn_no=ev.turn_no,
                               events=[event_to_proto(e) for e in ev.events])
        case TurnTimedOut():
            return pb.TurnTimedOut(seat=ev.seat, round_no=ev.round_no, turn_no=ev.turn_no)
        case RoundScored():
            return pb.RoundScored(round_no=ev.round_no, result=result_to_proto(ev.result), server_seed=ev.server_seed)
        case MatchEnded():
            return pb.MatchEnded(winners=ev.winners, standings=[standing_to_proto(s) for s in ev.standings],
                                 match_secret=ev.match_secret)
        case ChatSent():
            return pb.ChatSent(seat=ev.seat, spectator=ev.spectator, phrase=phrase_number(ev.phrase))
    raise TypeError(f"not a room event: {ev!r}")


def to_proto(rec: Recorded) -> pb.RoomEvent:
    msg = pb.RoomEvent(room_id=rec.room_id, seq=rec.seq, at=_ts(rec.at))
    getattr(msg, kind_of(rec.event)).CopyFrom(_body(rec.event))
    return msg


def encode(rec: Recorded) -> bytes:
    return to_proto(rec).SerializeToString()


def _event(member: str, b) -> RoomEvent:
    match member:
        case "room_created":
            return RoomCreated(code=b.join_code, public=b.visibility == room_pb2.ROOM_VISIBILITY_PUBLIC,
                               preset=b.preset, options=options_from_proto(b.options, b.seat_count),
                               turn_seconds=b.turn_seconds, host_seat=b.host_seat,
                               waiting_ttl_s=b.waiting_ttl_s, deal_commitment=b.deal_commitment,
                               match_secret=b.match_secret)
        case "seat_taken":
            return SeatTaken(seat=b.seat, kind=KIND_NAMES[b.kind], name=b.name,
                             bot_level=LEVEL_NAMES.get(b.bot_level, ""), player_id=b.player_id,
                             token_hash=b.token_hash, seat_seed=b.seat_seed)
        case "seat_left":
            return SeatLeft(seat=b.seat)
        case "seat_away":
            return SeatAway(seat=b.seat, reason=_REASON_NAMES[b.reason],
                            bot_level=LEVEL_NAMES.get(b.bot_level, "middle"))
        case "seat_back":
            return SeatBack(seat=b.seat, connected_at=_secs(b.connected_at))
        case "seat_connected":
            return SeatConnected(seat=b.seat, connected_at=_secs(b.connected_at))
        case "match_started":
            return MatchStarted(seed=b.seed if b.HasField("seed") else None, deal_version=b.deal_version,
                                starter_seat=b.starter_seat if b.HasField("starter_seat") else None,
                                starter_seat_seed=b.starter_seat_seed)
        case "round_dealt":
            return RoundDealt(round_no=b.round_no, dealer=b.dealer, deck=cards_in(b.deck, field="deck"),
                              events=tuple(event_from_proto(e) for e in b.events), server_seed=b.server_seed)
        case "move_made":
            return MoveMade(seat=b.seat, action=action_from_proto(b.action), origin=_ORIGIN_NAMES[b.origin],
                            round_no=b.round_no, turn_no=b.turn_no,
                            events=tuple(event_from_proto(e) for e in b.events))
        case "turn_timed_out":
            return TurnTimedOut(seat=b.seat, round_no=b.round_no, turn_no=b.turn_no)
        case "round_scored":
            return RoundScored(round_no=b.round_no, result=result_from_proto(b.result), server_seed=b.server_seed)
        case "match_ended":
            return MatchEnded(winners=tuple(b.winners), standings=tuple(
                Standing(s.unit, s.total, s.outs, s.penalty_points) for s in b.standings), match_secret=b.match_secret)
        case "chat_sent":
            phrase = phrase_name(b.phrase)
            if not phrase:
                raise ValueError(f"chat_sent with phrase {b.phrase}, not in the set")
            return ChatSent(seat=b.seat if b.HasField("seat") else None, phrase=phrase, spectator=b.spectator)
    raise ValueError(f"room event without a payload (oneof {member!r})")


class MalformedEvent(ValueError):
    """Bytes or a message that are not a room event this codec can read."""


def from_proto(msg: pb.RoomEvent) -> Recorded:
    member = msg.WhichOneof("event")
    try:
        return Recorded(msg.room_id, msg.seq, _secs(msg.at), _event(member or "", getattr(msg, member) if member else None))
    except (KeyError, ValueError, RuleViolation) as exc:
        raise MalformedEvent(f"room event {msg.room_id!r} seq {msg.seq}: {type(exc).__name__}: {exc}") from None


def decode(data: bytes) -> Recorded:
    """One room event from its wire bytes; anything else raises ``MalformedEvent``."""
    try:
        msg = pb.RoomEvent.FromString(data)
    except DecodeError as exc:
        raise MalformedEvent(f"not a hand.v1.RoomEvent: {exc}") from None
    return from_proto(msg)


# ------------------------------------------------------------ per event topic
_last: tuple[object, Recorded | None] = (None, None)


def private_bytes(rec: Recorded) -> bytes:
    """hand.room-events: complete but for seat credentials."""
    return encode(private(rec))


def public_bytes(rec: Recorded) -> bytes:
    """hand.room-events-public: as a spectator sees it."""
    return encode(for_seat(rec, None))


def topic_values(rec: Recorded, stored: bytes | None = None) -> tuple[bytes, bytes]:
    """A committed event rendered for the outbox relay's routes, in their order (the room
    service's bootstrap): hand.room-events, then hand.room-events-public
    (``OutboxRelay.publish_direct``). ``stored``: ``encode(rec)``, as appended, used again
    for a route that leaves nothing of ``rec`` out."""
    private_rec, public_rec = private(rec), for_seat(rec, None)
    private_b = stored if stored is not None and private_rec is rec else encode(private_rec)
    return private_b, private_b if public_rec is private_rec else encode(public_rec)


def _stored(entry) -> Recorded:
    """A stored event (anything with ``payload``: the outbox relay's ``OutboxEntry``),
    decoded once for all of its routes: the relay renders one entry for each route in
    turn, so the last entry's event is kept."""
    global _last
    seen, rec = _last
    if seen is not entry or rec is None:
        rec = decode(entry.payload)
        _last = (entry, rec)
    return rec


def private_value(entry) -> bytes:
    """The relay's route to hand.room-events."""
    return private_bytes(_stored(entry))


def public_value(entry) -> bytes:
    """The relay's route to hand.room-events-public."""
    return public_bytes(_stored(entry))
