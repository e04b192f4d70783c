"""The room service end to end: real Tansu broker, real gRPC server, SQLite store."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from types import SimpleNamespace

import grpc
import pytest

from hand.v1 import actions_pb2
from hand.v1 import room_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_bot.service import BotService

from .room_support import (
    Watcher, create_room, join_all, make_topics, play_to_end, rule_code, seq_of, start_instance, topics_for,
    wait_for,
)


@pytest.fixture
async def stack(broker, tmp_path: Path, unique: str):
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}")
    channel = grpc.aio.insecure_channel(server.target)
    ns = SimpleNamespace(server=server, stub=pb_grpc.RoomServiceStub(channel), unique=unique,
                         broker=broker, store=server.store)
    try:
        yield ns
    finally:
        await channel.close()
        await server.stop(grace=0)


def kind(msg: pb.WatchResponse) -> str | None:
    return msg.event.WhichOneof("event") if msg.HasField("event") else None


def engine_events(msg: pb.WatchResponse) -> list:
    k = kind(msg)
    return list(getattr(msg.event, k).events) if k in ("round_dealt", "move_made") else []


def hidden_cards_leaked(msg: pb.WatchResponse, seat: int | None) -> bool:
    if kind(msg) == "round_dealt" and len(msg.event.round_dealt.deck):
        return True
    if kind(msg) == "match_started" and msg.event.match_started.HasField("seed"):
        return True
    if kind(msg) == "seat_taken" and (msg.event.seat_taken.token_hash or msg.event.seat_taken.player_id):
        return True
    for e in engine_events(msg):
        which = e.WhichOneof("event")
        if which == "stock_drawn" and e.stock_drawn.seat != seat and e.stock_drawn.HasField("card"):
            return True
        if which == "round_started" and len(e.round_started.deck):
            return True
    if seat is None and len(msg.view.hand):
        return True
    if msg.HasField("view") and seat is not None and msg.view.turn.seat != seat and msg.view.turn.HasField("drawn"):
        return True
    return False


@pytest.mark.parametrize("preset", ["hand", "saudi", "partnership"])
async def test_four_human_seats_play_a_whole_match_to_final_standings(stack, preset: str) -> None:
    """Creation, joining by code, start, every move over gRPC, final standings; no stream leaks."""
    stub = stack.stub
    created, players = await create_room(stub, preset, seats=4, rounds=1)
    await join_all(stub, created, players, 4)
    room_id = created.room.room_id
    watchers = {p.seat: Watcher(stub, room_id, p.token) for p in players}
    spectator = Watcher(stub, room_id)
    await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=players[0].token, seed=11))
    try:
        moves = await play_to_end(players, watchers)
        final = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room
        assert final.status == room_pb2.ROOM_STATUS_FINISHED and len(final.winners) >= 1
        assert len(final.standings) == (2 if preset == "partnership" else 4)
        stored = await stack.store.load(room_id)
        assert [e.seq for e in stored] == list(range(len(stored)))
        assert sum(1 for e in stored if e.kind == "move_made") >= moves
        await wait_for(lambda: all(seq_of(w.latest) == stored[-1].seq for w in [*watchers.values(), spectator]))
        for seat, w in watchers.items():
            seqs = [m.event.seq for m in w.messages if m.HasField("event")]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "gap or duplicate in a stream"
            assert not any(hidden_cards_leaked(m, seat) for m in w.messages)
        assert not any(hidden_cards_leaked(m, None) for m in spectator.messages)
    finally:
        for w in [*watchers.values(), spectator]:
            await w.close()


async def test_bad_requests_get_clear_errors_and_change_nothing(stack) -> None:
    stub = stack.stub
    created, players = await create_room(stub, "hand", seats=2)
    await join_all(stub, created, players, 2)
    room_id = created.room.room_id
    other, _ = await create_room(stub, "hand", seats=2)
    await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=players[0].token, seed=3))
    room = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room
    starter = (room.seats and None) or None
    # find the starter: the seat whose opening discard is due
    w = Watcher(stub, room_id, players[0].token)
    await wait_for(lambda: w.latest is not None and w.latest.HasField("view"))
    # the stream's own presence event lands asynchronously: wait for it before counting
    await wait_for(lambda: any(kind(m) == "seat_connected" for m in w.messages))
    mover = w.latest.view.turn.seat
    idle = 1 - mover
    by_seat = {p.seat: p for p in players}
    before = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq

    async def refused(call, status: grpc.StatusCode, code: str | None = None) -> None:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call
        assert info.value.code() == status
        if code is not None:
            assert rule_code(info.value) == code

    draw = actions_pb2.Action(draw_stock=actions_pb2.DrawStock())
    await refused(by_seat[idle].act(draw), grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    await refused(by_seat[mover].act(draw), grpc.StatusCode.FAILED_PRECONDITION, "OPENING_DISCARD_ONLY")
    await refused(by_seat[mover].act(actions_pb2.Action()), grpc.StatusCode.INVALID_ARGUMENT)
    await refused(by_seat[mover].act(actions_pb2.Action(discard=actions_pb2.Discard(card=999))),
                  grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_CARD")
    await refused(stub.Act(pb.ActRequest(room_id=room_id, seat_token=other.seat_token, action_id="x",
                                         action=draw)), grpc.StatusCode.PERMISSION_DENIED, "SEAT_TOKEN_INVALID")
    await refused(stub.Act(pb.ActRequest(room_id="nope", seat_token="t", action_id="x", action=draw)),
                  grpc.StatusCode.NOT_FOUND, "ROOM_NOT_FOUND")
    await refused(stub.Act(pb.ActRequest(room_id=room_id, seat_token=by_seat[mover].token, action_id="",
                                         action=draw)), grpc.StatusCode.INVALID_ARGUMENT)
    await refused(stub.GetRoom(pb.GetRoomRequest(room_id="missing")), grpc.StatusCode.NOT_FOUND)
    stale = pb.ActRequest(room_id=room_id, seat_token=by_seat[mover].token, action_id="s1",
                          action=actions_pb2.Action(discard=actions_pb2.Discard(card=w.latest.view.hand[0])),
                          expected_seq=before - 1)
    await refused(stub.Act(stale), grpc.StatusCode.FAILED_PRECONDITION, "STALE_ACTION")
    await refused(stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=by_seat[idle].token)),
                  grpc.StatusCode.PERMISSION_DENIED if idle != 0 else grpc.StatusCode.FAILED_PRECONDITION)
    assert (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq == before

    # a retried action id returns the first result and applies once
    discard = actions_pb2.Action(discard=actions_pb2.Discard(card=w.latest.view.hand[0]))
    first = await by_seat[mover].act(discard, action_id="a-1")
    again = await by_seat[mover].act(discard, action_id="a-1")
    assert not first.duplicate and again.duplicate and (again.first_seq, again.last_seq) == (first.first_seq, first.last_seq)
    stored = await stack.store.load(room_id)
    assert sum(1 for e in stored if e.kind == "move_made") == 1
    # the same id for another move is refused
    other_move = actions_pb2.Action(draw_stock=actions_pb2.DrawStock())
    await refused(by_seat[mover].act(other_move, action_id="a-1"), grpc.StatusCode.INVALID_ARGUMENT,
                  "ACTION_ID_REUSED")
    assert (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq == stored[-1].seq + 1
    await w.close()


async def test_expired_turns_are_auto_played_then_a_bot_holds_the_seat_until_the_player_returns(stack) -> None:
    stub = stack.stub
    bots = BotService(stack.broker, group_id=f"bots-{stack.unique}", topics=topics_for(stack.unique))
    await bots.start()
    try:
        created, players = await create_room(stub, "hand", seats=2, turn_seconds=1)
        await join_all(stub, created, players, 2)
        room_id = created.room.room_id
        await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=players[0].token, seed=5))
        spectator = Watcher(stub, room_id)
        kinds = lambda: [kind(m) for m in spectator.messages if m.HasField("event")]
        await wait_for(lambda: kinds().count("turn_timed_out") >= 1, timeout=20)
        timed = [m for m in spectator.messages if kind(m) == "move_made"]
        assert timed and timed[0].event.move_made.origin == room_pb2.MOVE_ORIGIN_TIMER
        await wait_for(lambda: "seat_away" in kinds(), timeout=30)
        await wait_for(lambda: any(m.event.move_made.origin == room_pb2.MOVE_ORIGIN_BOT for m in spectator.messages), timeout=30)
        away = next(m for m in spectator.messages if kind(m) == "seat_away")
        seat = away.event.seat_away.seat
        assert away.room.seats[seat].away
        # the player comes back: its Watch stream gives it the seat back
        returning = Watcher(stub, room_id, next(p.token for p in players if p.seat == seat))
        await wait_for(lambda: "seat_back" in kinds(), timeout=20)
        back = next(m for m in spectator.messages if kind(m) == "seat_back")
        assert back.event.seat_back.seat == seat and not back.room.seats[seat].away
        await returning.close()
        await spectator.close()
    finally:
        await bots.stop()


async def test_a_whole_match_runs_on_postgresql_too(broker, pg_url: str, unique: str) -> None:
    """The same code path with the event store on PostgreSQL instead of SQLite."""
    from hand_infra.postgres import create_database, drop_database

    name = f"rooms_{unique}"
    url = await create_database(pg_url, name)
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, url)
    channel = grpc.aio.insecure_channel(server.target)
    try:
        stub = pb_grpc.RoomServiceStub(channel)
        created, players = await create_room(stub, "saudi", seats=2, rounds=1)
        await join_all(stub, created, players, 2)
        room_id = created.room.room_id
        watchers = {p.seat: Watcher(stub, room_id, p.token) for p in players}
        await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=players[0].token, seed=4))
        await play_to_end(players, watchers)
        stored = await server.store.load(room_id)
        assert stored[-1].kind == "match_ended"
        assert [e.seq for e in stored] == list(range(len(stored)))
        for w in watchers.values():
            await w.close()
    finally:
        await channel.close()
        await server.stop(grace=0)
        await drop_database(pg_url, name)
