"""Play now, one in-process room instance: a table formed but half built when its pool's owner
died (the room created, the second player not yet seated) is finished in that same room by the
next owner once it folds the pool from its log — never a second room; and bad requests are
refused at the door with their fields."""

from __future__ import annotations

import time
from pathlib import Path

import grpc

from hand.v1 import errors_pb2, options_pb2, room_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_table import token_hash, Command, CreateRoom
from hand_room.matchmaking.pool import Formed, Group, Opened, Pool, Ticket
from hand_wire import selection_from_proto

from .room_support import make_topics, rule_error_of, start_instance, topics_for, wait_for


async def test_a_half_built_table_is_finished_in_its_own_room(broker, tmp_path: Path, unique: str) -> None:
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}", HAND_MATCH_TICK_MS="50")
    try:
        await wait_for(lambda: server.owner.in_group, 30)
        mm, router = server.instance.matchmaker, server.instance.router
        key = "mm:hand:2"
        now = time.time()
        t1 = Ticket(f"{key}:a", "guest:a", "Ann", 0.0, token_hash("tok-a"), now)
        t2 = Ticket(f"{key}:b", "guest:b", "Bob", 0.0, token_hash("tok-b"), now)
        room_id = router.new_room_id()
        # what a dead owner left: the table recorded, its room created with the host, nothing more
        await mm.log.append(Pool(key, "hand", 2), [Opened(t1), Opened(t2), Formed(Group("g1", room_id, (t1.ticket_id, t2.ticket_id), 0, "beginner", now))])
        options = selection_from_proto(options_pb2.RuleSelection(preset="hand"))
        reply = await router.send(Command(room_id, CreateRoom("ABCDEF", False, "hand", options.seated(2), 30, "Ann", "guest:a",
                                                              t1.token_hash)))
        assert reply.ok
        server.owner.version += 1  # an ownership change: the instance folds the pools it owns

        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = pb_grpc.RoomServiceStub(channel)

            async def seated() -> bool:
                got = await stub.GetTicket(pb.GetTicketRequest(ticket_id=t2.ticket_id, seat_token="tok-b"))
                return got.ticket.status == pb.TICKET_STATUS_SEATED

            await wait_for(seated, 20)
            ticket = (await stub.GetTicket(pb.GetTicketRequest(ticket_id=t2.ticket_id, seat_token="tok-b"))).ticket
            assert ticket.room_id == room_id and ticket.seat == 1
            room = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room
            assert room.status == room_pb2.ROOM_STATUS_PLAYING and [s.name for s in room.seats] == ["Ann", "Bob"]
            assert len(await server.instance.gateway.index.active()) == 1  # no second room

            # at the door
            async def refused(call) -> tuple[grpc.StatusCode, errors_pb2.RuleError]:
                try:
                    await call
                except grpc.aio.AioRpcError as exc:
                    return exc.code(), rule_error_of(exc)
                raise AssertionError("not refused")

            code, detail = await refused(stub.FindMatch(pb.FindMatchRequest(preset="nope", seat_count=2)))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and detail.params["field"] == "preset"
            code, detail = await refused(stub.FindMatch(pb.FindMatchRequest(preset="partnership", seat_count=3)))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and detail.params["field"] == "seat_count"
            code, detail = await refused(stub.GetTicket(pb.GetTicketRequest(ticket_id="x", seat_token="t")))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and detail.params["field"] == "ticket_id"
            code, detail = await refused(stub.CancelTicket(pb.CancelTicketRequest(ticket_id=t1.ticket_id,
                                                                                  seat_token="tok-a")))
            assert detail.code == errors_pb2.ERROR_CODE_TICKET_SEATED and detail.params["room_id"] == room_id
            code, detail = await refused(stub.GetTicket(pb.GetTicketRequest(ticket_id=t1.ticket_id, seat_token="x"),
                                                        metadata=(("accept-language", "ar"),)))
            assert code == grpc.StatusCode.NOT_FOUND and "تذكرة" in detail.message
    finally:
        await server.stop()
