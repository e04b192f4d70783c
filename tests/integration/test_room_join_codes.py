"""Join codes repeat over a service's life (~10^9 of them, drawn at random): a player who
joins by a code reaches the room that holds it now, never an earlier room that held it.
One instance built whole on the in-memory broker and SQLite, served over gRPC."""

from __future__ import annotations

import secrets
from pathlib import Path

import grpc
from sqlalchemy import insert

from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_room.index import rooms
from hand_sim.rooms import memory_rooms

from .room_support import create_room


async def test_joining_by_a_code_an_old_finished_room_held_reaches_the_new_room(tmp_path: Path, monkeypatch) -> None:
    async with memory_rooms(1, f"sqlite:///{tmp_path / 'events.db'}") as fleet:
        server = fleet.servers[0]
        # a room of long ago drew "AAAAAA" and finished; the next room draws it again
        async with server.store.engine.begin() as conn:
            await conn.execute(insert(rooms).values(room_id="an-old-room", code="AAAAAA", public=False,
                                                    status="finished", preset="hand", seats=2, free_seats=0,
                                                    created_at=1.0))
        monkeypatch.setattr(secrets, "choice", lambda alphabet: alphabet[0])  # every draw: "AAAAAA"
        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = pb_grpc.RoomServiceStub(channel)
            created, _ = await create_room(stub, "hand", seats=2)
            assert created.room.join_code == "AAAAAA"
            joined = await stub.JoinRoom(pb.JoinRoomRequest(join_code="aaaaaa", player_name="guest", player_id="p1"))
            assert (joined.room.room_id, joined.seat) == (created.room.room_id, 1)


async def test_a_room_is_created_when_the_index_cannot_check_its_code(tmp_path: Path, monkeypatch) -> None:
    """The code's check reads the index, a projection: a read that fails (or hangs past the
    store timeout) costs the check, not the room — the code is drawn unchecked."""
    from hand_room.index import RoomIndex

    async def broken(self, tries: int = 5) -> str:
        raise OSError("disk I/O error")

    async with memory_rooms(1, f"sqlite:///{tmp_path / 'events.db'}") as fleet:
        monkeypatch.setattr(RoomIndex, "free_code", broken)
        async with grpc.aio.insecure_channel(fleet.servers[0].target) as channel:
            stub = pb_grpc.RoomServiceStub(channel)
            created, _ = await create_room(stub, "hand", seats=2)
            assert len(created.room.join_code) == 6
            joined = await stub.JoinRoom(pb.JoinRoomRequest(join_code=created.room.join_code, player_name="g",
                                                            player_id="p1"))
            assert joined.room.room_id == created.room.room_id
