"""Decision 0033 over gRPC: a player who leaves a waiting room and joins it again with another seat
seed is refused FAILED_PRECONDITION / SEAT_SEED_FIXED (field seat_seed, an English and an Arabic
message); joining again without one seats them with the seed they first sat down with (public in
the room's seat_taken events)."""

from __future__ import annotations

from pathlib import Path

import grpc

from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc

from .room_support import create_room, make_topics, name, refusal, start_instance, topics_for


async def test_a_seat_seed_is_fixed_for_the_room_once_the_player_sat_down(broker, tmp_path: Path, unique: str) -> None:
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}")
    channel = grpc.aio.insecure_channel(server.target)
    try:
        stub = pb_grpc.RoomServiceStub(channel)
        created, _ = await create_room(stub, "hand", seats=3)
        code = created.room.join_code

        def join(seed: str | None = None) -> pb.JoinRoomRequest:
            return pb.JoinRoomRequest(join_code=code, player_name="Ada", player_id="p-ada", seat_seed=seed)

        first = await stub.JoinRoom(join("ada-1"))
        await stub.LeaveRoom(pb.LeaveRoomRequest(room_id=created.room.room_id, seat_token=first.seat_token))
        status, detail = await refusal(stub.JoinRoom(join("ada-2")))
        assert (status, name(detail), detail.params["field"]) == (
            grpc.StatusCode.FAILED_PRECONDITION, "SEAT_SEED_FIXED", "seat_seed")
        assert "seat seed" in detail.message
        _, ar = await refusal(stub.JoinRoom(join("ada-2"), metadata=(("accept-language", "ar"),)))
        assert "بذرة" in ar.message
        again = await stub.JoinRoom(join())
        seeds = []
        async for msg in stub.Watch(pb.WatchRequest(room_id=created.room.room_id, seat_token=again.seat_token)):
            if msg.HasField("event") and msg.event.WhichOneof("event") == "seat_taken":
                seeds.append((msg.event.seat_taken.seat, msg.event.seat_taken.seat_seed))
            if msg.HasField("event") and msg.event.seq >= again.room.next_seq - 1:
                break
        assert [s for seat, s in seeds if seat == again.seat][-1] == "ada-1"
    finally:
        await channel.close()
        await server.stop(grace=0)


async def test_the_hosts_seed_given_with_start_match_is_recorded_publicly(broker, tmp_path: Path, unique: str) -> None:
    """Decision 0035 over gRPC: StartMatchRequest.seat_seed (a bad one INVALID_ARGUMENT, field
    seat_seed) becomes the host's seed, public in match_started, once room_created committed."""
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}")
    channel = grpc.aio.insecure_channel(server.target)
    try:
        stub = pb_grpc.RoomServiceStub(channel)
        created, players = await create_room(stub, "hand", seats=2)  # the host sends no seed at create
        room_id, token = created.room.room_id, players[0].token
        await stub.FillWithBots(pb.FillWithBotsRequest(room_id=room_id, seat_token=token))
        status, detail = await refusal(stub.StartMatch(pb.StartMatchRequest(
            room_id=room_id, seat_token=token, seat_seed="bad\x01")))
        assert (status, detail.params["field"]) == (grpc.StatusCode.INVALID_ARGUMENT, "seat_seed")
        started = await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=token,
                                                             seat_seed="host-after-commit"))
        found = None
        async for msg in stub.Watch(pb.WatchRequest(room_id=room_id, seat_token=token)):
            if msg.HasField("event") and msg.event.WhichOneof("event") == "match_started":
                found = msg.event.match_started
            if msg.HasField("event") and msg.event.seq >= started.room.next_seq - 1 or found is not None:
                break
        assert found is not None and (found.starter_seat, found.starter_seat_seed) == (0, "host-after-commit")
        assert not found.HasField("seed")  # the match seed stays secret
    finally:
        await channel.close()
        await server.stop(grace=0)
