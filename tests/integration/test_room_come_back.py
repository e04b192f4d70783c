"""Seating and coming back through the real services (Tansu, the room service over gRPC,
SQLite; docs/decisions/0030-seating-and-coming-back.md): a partnership room's RoomInfo
names every seat's team, partner and the seat after it, the round's dealer and first
player; the first player leaves mid-match (away: a bot's turn now), comes back with
``ComeBack`` and plays the turn itself; coming back again is a no-op; a token of no seat
is refused."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from hand.v1 import actions_pb2, errors_pb2, room_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc

from .room_support import Watcher, create_room, join_all, make_topics, rule_error_of, start_instance, topics_for, wait_for


def kinds(w: Watcher) -> list[str]:
    return [m.event.WhichOneof("event") for m in w.messages if m.HasField("event")]


async def test_the_first_player_leaves_comes_back_and_plays_its_turn(broker, tmp_path: Path, unique: str) -> None:
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}")
    watchers: list[Watcher] = []
    try:
        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = pb_grpc.RoomServiceStub(channel)
            created, players = await create_room(stub, "partnership", seats=4, turn_seconds=120)
            await join_all(stub, created, players, humans=4)
            room_id = created.room.room_id
            assert [(s.team, s.partner, s.next_seat) for s in created.room.seats] == [
                (0, 2, 1), (1, 3, 2), (0, 0, 3), (1, 1, 0)]
            assert not created.room.HasField("dealer") and not created.room.HasField("first_player")
            started = await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=players[0].token,
                                                                 seed=11))
            info = started.room
            assert info.HasField("dealer") and info.first_player == (info.dealer + 1) % 4
            mover = players[info.first_player]
            w = Watcher(stub, room_id, mover.token)
            watchers.append(w)
            await wait_for(lambda: w.latest is not None and w.latest.HasField("view"))
            assert w.latest.view.turn.seat == mover.seat and w.latest.room.first_player == mover.seat

            await stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room_id, seat_token=mover.token))
            await wait_for(lambda: w.latest.room.seats[mover.seat].away)  # its own stream says so

            back = await stub.ComeBack(pb.ComeBackRequest(room_id=room_id, seat_token=mover.token))
            assert back.came_back and not back.room.seats[mover.seat].away
            again = await stub.ComeBack(pb.ComeBackRequest(room_id=room_id, seat_token=mover.token))
            assert not again.came_back and again.room.next_seq == back.room.next_seq  # nothing written

            hand = w.latest.view.hand
            await mover.act(actions_pb2.Action(discard=actions_pb2.Discard(card=hand[0])))  # 15 cards: a discard
            await wait_for(lambda: kinds(w)[-1:] == ["move_made"])
            assert [k for k in kinds(w) if k in ("seat_away", "seat_back")] == ["seat_away", "seat_back"]
            moved = w.messages[-1].event.move_made
            assert moved.seat == mover.seat and moved.origin == room_pb2.MOVE_ORIGIN_PLAYER

            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.ComeBack(pb.ComeBackRequest(room_id=room_id, seat_token="not-a-seat-token"))
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert rule_error_of(refused.value).code == errors_pb2.ERROR_CODE_SEAT_TOKEN_INVALID
    finally:
        for watcher in watchers:
            await watcher.close()
        await server.stop(grace=0)
