"""Seat tokens bound to the player and expiring with the match (issue 11, docs/decisions/0011):
real broker, real room server on a real port, SQLite store."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import grpc
import pytest
from grpc_status import rpc_status

from hand.v1 import actions_pb2, room_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_auth.tokens import Signer
from hand_common.config import IdentityConfig
from hand_common.sessionkeys import private_key
from hand_common.status import from_status

from .room_support import (
    Watcher, create_room, join_all, make_topics, play_to_end, rule_code, selection, start_instance, topics_for,
)


@pytest.fixture
async def stack(broker, tmp_path: Path, unique: str):
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}")
    channel = grpc.aio.insecure_channel(server.target)
    try:
        yield SimpleNamespace(server=server, stub=pb_grpc.RoomServiceStub(channel))
    finally:
        await channel.close()
        await server.stop(grace=0)


def session(player_id: str, ttl_s: float = 600, now: float | None = None) -> tuple[tuple[str, str], ...]:
    token, _ = Signer(private_key(IdentityConfig()), "hand-auth", ttl_s).sign(player_id, now=now)
    return (("authorization", f"Bearer {token}"),)


async def refused(call, status: grpc.StatusCode, code: str, **params: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    assert (info.value.code(), rule_code(info.value)) == (status, code), info.value.details()
    if params:
        got = dict(from_status(rpc_status.from_call(info.value)).params)
        assert {k: got.get(k) for k in params} == params


async def first_message(stub, room_id: str, token: str, metadata=(), from_seq: int = 0) -> pb.WatchResponse:
    request = pb.WatchRequest(room_id=room_id, seat_token=token, from_seq=from_seq)
    async for msg in stub.Watch(request, metadata=metadata):
        return msg
    raise AssertionError("no snapshot")


DENIED = grpc.StatusCode.PERMISSION_DENIED


async def test_a_signed_in_players_seat_opens_only_with_that_players_session(stack) -> None:
    stub, ada, bob = stack.stub, session("player-ada"), session("player-bob")
    created = await stub.CreateRoom(pb.CreateRoomRequest(
        rules=selection("hand"), rounds=1, seat_count=3, player_name="ada"), metadata=ada)
    room_id, host = created.room.room_id, created.seat_token
    guest = await stub.JoinRoom(pb.JoinRoomRequest(join_code=created.room.join_code, player_name="g",
                                                   player_id="g"))
    # the token alone, or with someone else's session, does not act for ada
    for metadata in ((), bob):
        await refused(stub.FillWithBots(pb.FillWithBotsRequest(room_id=room_id, seat_token=host),
                                        metadata=metadata), DENIED, "SEAT_PLAYER_MISMATCH", field="authorization")
        await refused(first_message(stub, room_id, host, metadata), DENIED, "SEAT_PLAYER_MISMATCH")
        await refused(stub.RemovePlayer(pb.RemovePlayerRequest(room_id=room_id, seat_token=host, seat=1),
                                        metadata=metadata), DENIED, "SEAT_PLAYER_MISMATCH")
    # an expired session is told apart (refresh it), and changes nothing
    await refused(stub.FillWithBots(pb.FillWithBotsRequest(room_id=room_id, seat_token=host),
                                    metadata=session("player-ada", ttl_s=1, now=1.0)),
                  grpc.StatusCode.UNAUTHENTICATED, "SESSION_EXPIRED")
    room = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room
    assert [s.kind for s in room.seats] == [room_pb2.SEAT_KIND_HUMAN, room_pb2.SEAT_KIND_HUMAN,
                                           room_pb2.SEAT_KIND_EMPTY]
    # a guest's seat stays a bearer token, with or without anybody's session
    assert (await first_message(stub, room_id, guest.seat_token)).HasField("snapshot")
    await first_message(stub, room_id, guest.seat_token, bob)
    # ada, signed in, is the host again
    filled = await stub.FillWithBots(pb.FillWithBotsRequest(room_id=room_id, seat_token=host), metadata=ada)
    assert filled.room.seats[2].kind == room_pb2.SEAT_KIND_BOT


async def test_a_token_expires_with_its_seat_when_left_or_freed(stack) -> None:
    stub = stack.stub
    created, players = await create_room(stub, "hand", seats=3)
    await join_all(stub, created, players, 3)
    room_id, host, leaver, freed = created.room.room_id, players[0], players[1], players[2]
    await stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room_id, seat_token=leaver.token))
    await stub.RemovePlayer(pb.RemovePlayerRequest(room_id=room_id, seat_token=host.token, seat=freed.seat))
    for p in (leaver, freed):
        await refused(stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room_id, seat_token=p.token)),
                      DENIED, "SEAT_TOKEN_EXPIRED", field="seat_token", reason="seat_left")
        await refused(first_message(stub, room_id, p.token), DENIED, "SEAT_TOKEN_EXPIRED")
    await refused(stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room_id, seat_token="never-issued-token")),
                  DENIED, "SEAT_TOKEN_INVALID")
    # the seat is free for someone new, whose token works; the old one still does not
    again = await stub.JoinRoom(pb.JoinRoomRequest(join_code=created.room.join_code, player_name="new"))
    assert again.seat == leaver.seat
    await stub.FillWithBots(pb.FillWithBotsRequest(room_id=room_id, seat_token=host.token))
    await refused(stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=leaver.token)),
                  DENIED, "SEAT_TOKEN_EXPIRED")
    await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=host.token, seed=3))


async def test_after_match_ended_every_write_is_refused_but_the_seat_can_still_watch(stack) -> None:
    stub = stack.stub
    created, players = await create_room(stub, "hand", seats=2, rounds=1)
    await join_all(stub, created, players, 2)
    room_id = created.room.room_id
    watchers = {p.seat: Watcher(stub, room_id, p.token) for p in players}
    await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=players[0].token, seed=4))
    await play_to_end(players, watchers)
    for w in watchers.values():
        await w.close()
    host = players[0].token
    draw = actions_pb2.Action(draw_stock=actions_pb2.DrawStock())
    writes = [
        stub.Act(pb.ActRequest(room_id=room_id, seat_token=host, action_id="after-end", action=draw)),
        stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room_id, seat_token=players[1].token)),
        stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=host)),
        stub.FillWithBots(pb.FillWithBotsRequest(room_id=room_id, seat_token=host)),
        stub.RemovePlayer(pb.RemovePlayerRequest(room_id=room_id, seat_token=host, seat=1)),
    ]
    head = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq
    for call in writes:
        await refused(call, DENIED, "SEAT_TOKEN_EXPIRED", field="seat_token", reason="match_ended")
    # a read: the seat's own view of the finished match, and no presence event is written
    snap = await first_message(stub, room_id, host, from_seq=head)
    assert snap.room.status == room_pb2.ROOM_STATUS_FINISHED and snap.view.seat == 0
    assert (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq == head
