"""Play now against two room-service processes sharing a broker and a store
(docs/decisions/0028-matchmaking.md): two players of one pool land at the same table, each
ticket is seated once; one open ticket per player, across pools; cancel; and the owner of a pool SIGKILLed while
a ticket waits — the next owner folds the pool back from its log and seats the ticket (with
bots after HAND_MATCH_BOT_FILL_S)."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import time
from pathlib import Path

import grpc
import pytest

from hand.v1 import errors_pb2, room_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_infra.broker import TansuBroker
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ensure_topics, partition_of

from .failover_support import PARTITIONS, Instance
from .room_support import moved_to, rule_error_of, wait_for

BOT_FILL_S = 3.0


async def call(at: dict, first: str, method: str, request, deadline: float):
    """Call ``method`` at ``first``, following ROOM_MOVED to the pool's owner, retrying
    UNAVAILABLE (a dead owner, the pool moving) at the other instances until ``deadline``."""
    order = [first, *(t for t in at if t != first)]
    while True:
        for target in order:
            try:
                return await getattr(at[target], method)(request, timeout=4)
            except grpc.aio.AioRpcError as exc:
                owner = moved_to(exc)
                if owner is not None and owner in at:
                    try:
                        return await getattr(at[owner], method)(request, timeout=4)
                    except grpc.aio.AioRpcError as again:
                        exc = again
                if exc.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) \
                        and moved_to(exc) is None:
                    raise exc from None
        if time.monotonic() > deadline:
            raise AssertionError(f"{method}: no instance answered in time")
        await asyncio.sleep(0.2)


async def seated(at: dict, first: str, found: pb.FindMatchResponse, deadline: float) -> pb.Ticket:
    while True:
        got = await call(at, first, "GetTicket", pb.GetTicketRequest(
            ticket_id=found.ticket.ticket_id, seat_token=found.seat_token), deadline)
        if got.ticket.status == pb.TICKET_STATUS_SEATED:
            return got.ticket
        assert got.ticket.status == pb.TICKET_STATUS_WAITING, got
        assert time.monotonic() < deadline, "the ticket was not seated in time"
        await asyncio.sleep(0.1)


def formed_per_ticket(db: Path) -> dict[str, int]:
    """How many tables each ticket was put at, from the pools' log."""
    import json

    counts: dict[str, int] = {}
    with sqlite3.connect(db) as conn:
        for (payload,) in conn.execute("SELECT payload FROM match_events WHERE kind = 'formed'"):
            for t in json.loads(payload)["tickets"]:
                counts[t] = counts.get(t, 0) + 1
    return counts


@pytest.mark.timeout(180)
async def test_play_now_across_two_instances_and_a_killed_pool_owner(tmp_path: Path) -> None:
    async with TansuBroker() as broker:
        await ensure_topics(KafkaSettings(bootstrap_servers=broker.bootstrap_servers, partitions=PARTITIONS))
        db = tmp_path / "events.db"
        env = {"HAND_MATCH_BOT_FILL_S": str(BOT_FILL_S), "HAND_MATCH_TICK_MS": "100"}
        a = Instance("a", broker.bootstrap_servers, f"sqlite:///{db}", tmp_path, **env)
        b = Instance("b", broker.bootstrap_servers, f"sqlite:///{db}", tmp_path, **env)
        channels = []
        try:
            await asyncio.gather(a.ready(), b.ready())
            await wait_for(lambda: len(a.owned() | b.owned()) == PARTITIONS and not (a.owned() & b.owned()), 60)
            channels = [grpc.aio.insecure_channel(i.target) for i in (a, b)]
            at = {i.target: pb_grpc.RoomServiceStub(ch) for i, ch in zip((a, b), channels, strict=True)}
            deadline = time.monotonic() + 60

            # two players, each asking a different instance: one table, one seat each, the match started
            began = time.monotonic()
            found = [await call(at, i.target, "FindMatch", pb.FindMatchRequest(
                preset="hand", seat_count=2, player_name=n, player_id=n), deadline)
                for i, n in ((a, "ann"), (b, "bob"))]
            tickets = [await seated(at, a.target, f, deadline) for f in found]
            matched_s = time.monotonic() - began
            assert tickets[0].room_id == tickets[1].room_id and {t.seat for t in tickets} == {0, 1}
            room = (await call(at, a.target, "GetRoom", pb.GetRoomRequest(room_id=tickets[0].room_id),
                               deadline)).room
            assert room.status == room_pb2.ROOM_STATUS_PLAYING
            assert sorted(s.name for s in room.seats) == ["ann", "bob"]
            assert matched_s < BOT_FILL_S, matched_s  # no bots: matched on the owner's next tick

            # a seated player may ask again at once (seated closes the ticket): cancelled here
            again = await call(at, b.target, "FindMatch", pb.FindMatchRequest(
                seat_count=3, player_name="ann", player_id="ann"), deadline)
            await call(at, a.target, "CancelTicket", pb.CancelTicketRequest(
                ticket_id=again.ticket.ticket_id, seat_token=again.seat_token), deadline)

            # one ticket per player; cancel
            first = await call(at, a.target, "FindMatch", pb.FindMatchRequest(
                seat_count=4, player_name="cy", player_id="cy"), deadline)
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await call(at, b.target, "FindMatch", pb.FindMatchRequest(
                    seat_count=4, player_name="cy", player_id="cy"), deadline)
            detail = rule_error_of(info.value)
            assert info.value.code() == grpc.StatusCode.ALREADY_EXISTS
            assert detail.code == errors_pb2.ERROR_CODE_TICKET_EXISTS
            assert detail.params["ticket_id"] == first.ticket.ticket_id
            with pytest.raises(grpc.aio.AioRpcError) as info:  # another pool (maybe another owner): the same
                await call(at, b.target, "FindMatch", pb.FindMatchRequest(
                    seat_count=2, player_name="cy", player_id="cy"), deadline)
            assert rule_error_of(info.value).params["ticket_id"] == first.ticket.ticket_id, rule_error_of(info.value)
            gone = await call(at, b.target, "CancelTicket", pb.CancelTicketRequest(
                ticket_id=first.ticket.ticket_id, seat_token=first.seat_token), deadline)
            assert gone.ticket.status == pb.TICKET_STATUS_CANCELLED
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await call(at, a.target, "GetTicket", pb.GetTicketRequest(
                    ticket_id=first.ticket.ticket_id, seat_token="not-the-token"), deadline)
            assert rule_error_of(info.value).code == errors_pb2.ERROR_CODE_TICKET_NOT_FOUND

            # the pool's owner killed while a ticket waits: the next owner seats it (bots after the limit)
            owner, survivor = (a, b) if partition_of("mm:hand:3", PARTITIONS) in a.owned() else (b, a)
            alone = await call(at, owner.target, "FindMatch", pb.FindMatchRequest(
                seat_count=3, player_name="dee", player_id="dee"), deadline)
            owner.proc.send_signal(signal.SIGKILL)
            owner.proc.wait()
            killed = time.monotonic()
            del at[owner.target]
            ticket = await seated(at, survivor.target, alone, time.monotonic() + 30)
            room = (await call(at, survivor.target, "GetRoom", pb.GetRoomRequest(room_id=ticket.room_id),
                               time.monotonic() + 10)).room
            assert room.status == room_pb2.ROOM_STATUS_PLAYING
            assert [s.kind for s in room.seats] == [room_pb2.SEAT_KIND_HUMAN] + [room_pb2.SEAT_KIND_BOT] * 2
            print(f"matched in {matched_s:.2f} s; seated {time.monotonic() - killed:.2f} s after the kill")

            counts = formed_per_ticket(db)
            assert counts == {found[0].ticket.ticket_id: 1, found[1].ticket.ticket_id: 1,
                              alone.ticket.ticket_id: 1}, counts
        finally:
            for ch in channels:
                await ch.close()
            a.stop()
            b.stop()
