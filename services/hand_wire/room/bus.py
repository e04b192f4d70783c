"""The room service's other Kafka values: replies to commands and bot requests
(``hand.v1.RoomReply``, ``hand.v1.BotRequest``; commands: ``.commands``), and
``Delivered``, one ``hand.room-events`` message as a reader receives it."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from hand.v1 import errors_pb2
from hand.v1 import room_bus_pb2 as pb
from hand_engine import RoundState, redact, view
from hand_table import Recorded

from ..engine import event_to_proto, options_to_proto, view_to_proto
from .events import encode, level_to_proto

#: (code, params) → the ``hand.v1.RuleError`` of a refusal (the room service's status map, in English)
RuleErrorOf = Callable[[str, dict], errors_pb2.RuleError]


@dataclass(frozen=True)
class Reply:
    """What the owner answers a command: accepted (seqs) or refused (code, params)."""

    command_id: str
    reply_to: str
    ok: bool
    seqs: tuple[int, ...] = ()
    duplicate: bool = False
    seat: int | None = None
    code: str = ""
    params: dict[str, str] = field(default_factory=dict)


def encode_reply(r: Reply, rule_error: RuleErrorOf) -> bytes:
    """``r`` as ``hand.v1.RoomReply`` bytes; a refusal's detail is ``rule_error(code, params)``."""
    msg = pb.RoomReply(command_id=r.command_id, reply_to=r.reply_to)
    if r.ok:
        msg.accepted.CopyFrom(pb.CommandAccepted(
            first_seq=r.seqs[0] if r.seqs else None, last_seq=r.seqs[-1] if r.seqs else None,
            duplicate=r.duplicate, seat=r.seat))
    else:
        msg.refused.CopyFrom(rule_error(r.code, r.params))
    return msg.SerializeToString()


def decode_reply(data: bytes) -> Reply:
    msg = pb.RoomReply.FromString(data)
    if msg.WhichOneof("outcome") == "accepted":
        a = msg.accepted
        seqs = tuple(range(a.first_seq, a.last_seq + 1)) if a.HasField("first_seq") else ()
        return Reply(msg.command_id, msg.reply_to, True, seqs, a.duplicate,
                     a.seat if a.HasField("seat") else None)
    err = msg.refused
    code = errors_pb2.ErrorCode.Name(err.code).removeprefix("ERROR_CODE_") if err.code else "INTERNAL"
    return Reply(msg.command_id, msg.reply_to, False, code=code, params=dict(err.params))


def bot_request(room_id: str, state: RoundState, seat: int, level: str, seq: int,
                history: list) -> bytes:
    """What a bot in ``seat`` is given: exactly the seat's view and its redacted history."""
    return pb.BotRequest(
        room_id=room_id, seat=seat, level=level_to_proto(level), round_no=state.round_no,
        turn_no=state.turn_no, seq=seq, options=options_to_proto(state.options),
        view=view_to_proto(view(state, seat), state.options),
        history=[event_to_proto(redact(e, seat)) for e in history],
    ).SerializeToString()


@dataclass(frozen=True)
class Delivered:
    """One ``hand.room-events`` message: the typed event, its bytes and where it was read."""

    recorded: Recorded
    raw: bytes = b""  # the message value as published ("": encode ``recorded``)
    partition: Hashable = None  # a TopicPartition (None in tests without Kafka)
    offset: int = -1

    @property
    def room_id(self) -> str:
        return self.recorded.room_id

    @property
    def seq(self) -> int:
        return self.recorded.seq

    @property
    def kind(self) -> str:
        return self.recorded.kind

    @property
    def payload(self) -> bytes:
        """What the archive stores: the ``hand.v1.RoomEvent`` bytes as published."""
        return self.raw or encode(self.recorded)
