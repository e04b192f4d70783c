"""The room service's other Kafka values: replies to commands and bot requests
(``hand.v1.RoomReply``, ``hand.v1.BotRequest``; commands: ``domain.command_codec``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from hand.v1 import room_bus_pb2 as pb
from hand_engine import RoundState, redact, view
from hand_rules.convert import event_to_proto, options_to_proto, view_to_proto

from .domain import level_to_proto
from .status import rule_error


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


def encode_reply(r: Reply) -> bytes:
    msg = pb.RoomReply(command_id=r.command_id, reply_to=r.reply_to)
    if r.ok:
        msg.accepted.CopyFrom(pb.CommandAccepted(
            first_seq=r.seqs[0] if r.seqs else None, last_seq=r.seqs[-1] if r.seqs else None,
            duplicate=r.duplicate, seat=r.seat))
    else:
        msg.refused.CopyFrom(rule_error(r.code, r.params, "en"))
    return msg.SerializeToString()


def decode_reply(data: bytes) -> Reply:
    msg = pb.RoomReply.FromString(data)
    if msg.WhichOneof("outcome") == "accepted":
        a = msg.accepted
        seqs = tuple(range(a.first_seq, a.last_seq + 1)) if a.HasField("first_seq") else ()
        return Reply(msg.command_id, msg.reply_to, True, seqs, a.duplicate,
                     a.seat if a.HasField("seat") else None)
    from hand.v1 import errors_pb2

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
