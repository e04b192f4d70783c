"""Memory follows the rooms in play (issue 24): waiting rooms nobody starts expire,
finished and expired rooms leave the instance's memory (their log stays), and room
creation is limited per player and per peer."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest

from hand.v1 import errors_pb2, room_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_room import owner as owner_module

from .room_support import make_topics, rule_error_of, selection, start_instance, topics_for, wait_for

pytestmark = pytest.mark.timeout(90)


async def _create(stub, name: str, public: bool = True) -> pb.CreateRoomResponse:
    return await stub.CreateRoom(pb.CreateRoomRequest(
        rules=selection("hand"), seat_count=2, player_name=name, player_id=name,
        visibility=room_pb2.ROOM_VISIBILITY_PUBLIC if public else room_pb2.ROOM_VISIBILITY_PRIVATE))


async def test_a_waiting_room_expires_and_leaves_memory(broker, tmp_path: Path, unique: str, monkeypatch) -> None:
    monkeypatch.setattr(owner_module, "SWEEP_S", 0.2)
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}", HAND_ROOM_WAITING_TTL_S="1")
    try:
        await wait_for(lambda: len(server.owner.owned) == 4, 30)
        async with grpc.aio.insecure_channel(server.target) as ch:
            stub = pb_grpc.RoomServiceStub(ch)
            created = await _create(stub, "host")
            room_id = created.room.room_id
            listed = await stub.ListRooms(pb.ListRoomsRequest())
            assert room_id in {r.room_id for r in listed.rooms}
            assert server.repo.cached(room_id) is not None
            await asyncio.sleep(1.1)
            listed = await stub.ListRooms(pb.ListRoomsRequest())
            assert room_id not in {r.room_id for r in listed.rooms}, "an expired room is still listed"
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.JoinRoom(pb.JoinRoomRequest(join_code=created.room.join_code, player_name="late",
                                                       player_id="late"))
            assert refused.value.code() == grpc.StatusCode.NOT_FOUND
            detail = rule_error_of(refused.value)
            assert detail.code == errors_pb2.ERROR_CODE_ROOM_NOT_FOUND and detail.params["reason"] == "expired"
            await wait_for(lambda: server.repo.cached(room_id) is None, 10)  # gone from memory
            info = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room  # its log stays
            assert info.room_id == room_id
    finally:
        await server.stop(0)


async def test_room_creation_is_limited_per_peer_and_per_player(broker, tmp_path: Path, unique: str) -> None:
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}",
                                  HAND_ROOM_CREATE_PER_PLAYER_PER_MIN="3", HAND_ROOM_CREATE_PER_PEER_PER_MIN="5")
    try:
        await wait_for(lambda: len(server.owner.owned) == 4, 30)
        async with grpc.aio.insecure_channel(server.target) as ch:
            stub = pb_grpc.RoomServiceStub(ch)
            for _ in range(3):
                await _create(stub, "same", public=False)
            with pytest.raises(grpc.aio.AioRpcError) as per_player:
                await _create(stub, "same", public=False)
            detail = rule_error_of(per_player.value)
            assert per_player.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert detail.code == errors_pb2.ERROR_CODE_RATE_LIMITED
            assert detail.params["limit"] == "rooms_per_player" and int(detail.params["retry_after_ms"]) > 0
            await _create(stub, "other-1", public=False)
            await _create(stub, "other-2", public=False)  # the 5th room from this address
            with pytest.raises(grpc.aio.AioRpcError) as per_peer:
                await _create(stub, "other-3", public=False)
            assert rule_error_of(per_peer.value).params["limit"] == "rooms_per_peer"
    finally:
        await server.stop(0)
