"""The room service as the contract states it (proto/hand/v1, docs/contracts.md):
Watch's first message, refusals naming what was wrong, action ids, and what the
shared topics may carry. Real broker, real gRPC server, SQLite."""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import grpc
import pytest
from aiokafka import AIOKafkaConsumer

from hand.v1 import actions_pb2, room_bus_pb2, room_events_pb2, room_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_bot.service import BotService
from hand_table import verify_deals
from hand_wire import from_proto

from .room_support import (
    Watcher, a_move_ready, create_room, join_all, make_topics, name, refusal, seq_of, start_instance, started_room,
    the_mover, topics_for, wait_for,
)

DRAW = actions_pb2.Action(draw_stock=actions_pb2.DrawStock())
AR = (("accept-language", "ar"),)


@pytest.fixture
async def stack(broker, tmp_path: Path, unique: str):
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}")
    channel = grpc.aio.insecure_channel(server.target)
    ns = SimpleNamespace(server=server, stub=pb_grpc.RoomServiceStub(channel), unique=unique, broker=broker,
                         store=server.store, topics=topics_for(unique))
    try:
        yield ns
    finally:
        await channel.close()
        await server.stop(grace=0)


async def test_watch_starts_with_a_snapshot_for_from_seq_0_k_and_the_head_and_refuses_past_the_end(stack):
    stub = stack.stub
    room_id, players = await started_room(stub)
    head = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq
    assert head > 4
    for from_seq in (0, 3, head):
        w = Watcher(stub, room_id, players[0].token, from_seq=from_seq)
        want = head - from_seq + 1  # the snapshot, then every event from from_seq on
        await wait_for(lambda: len(w.messages) >= want)
        first, rest = w.messages[0], w.messages[1:]
        assert first.WhichOneof("message") == "snapshot" and first.snapshot.next_seq == from_seq
        assert first.HasField("room") == (from_seq > 0)
        if from_seq:
            assert first.room.next_seq == from_seq
        assert [m.event.seq for m in rest[:head - from_seq]] == list(range(from_seq, head))
        assert all(m.WhichOneof("message") == "event" for m in rest)
        await w.close()
    now = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq
    code, detail = await refusal(_first(stub.Watch(pb.WatchRequest(room_id=room_id, from_seq=now + 50))))
    assert code == grpc.StatusCode.OUT_OF_RANGE and name(detail) == "SEQ_OUT_OF_RANGE"
    assert detail.params["field"] == "from_seq" and int(detail.params["next_seq"]) >= now


async def _first(call):
    async for msg in call:
        return msg


@pytest.mark.parametrize("request_, code, field", [
    (pb.CreateRoomRequest(rounds=2), "INVALID_OPTIONS", "rounds"),
    (pb.CreateRoomRequest(seat_count=6), "INVALID_OPTIONS", "seat_count"),
    (pb.CreateRoomRequest(turn_seconds=100000), "INVALID_ARGUMENT", "turn_seconds"),
    (pb.CreateRoomRequest(player_name="x" * 65), "LIMIT_EXCEEDED", "player_name"),  # at the door
], ids=["rounds 2", "six seats", "turn_seconds 100000", "long name"])
async def test_create_room_refusals_name_the_option_or_field_and_its_limit(stack, request_, code, field):
    status, detail = await refusal(stack.stub.CreateRoom(request_, metadata=AR))
    assert status == grpc.StatusCode.INVALID_ARGUMENT and name(detail) == code, detail
    assert detail.params["field"] == field
    assert {"allowed", "max", "min", "limit"} & set(detail.params), detail.params
    assert detail.message != "الطلب غير صالح."  # specific, in Arabic
    assert any("\u0600" <= ch <= "\u06ff" for ch in detail.message)


async def test_malformed_requests_name_the_field_and_change_nothing(stack):
    stub = stack.stub
    room_id, players = await started_room(stub)
    token = players[0].token
    before = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq
    cases = [
        (stub.GetRoom(pb.GetRoomRequest(room_id="")), "room_id"),
        (stub.JoinRoom(pb.JoinRoomRequest(room_id="r" * 65)), "room_id"),
        (stub.Act(pb.ActRequest(room_id=room_id, seat_token=token, action_id="a")), "action"),
        (stub.Act(pb.ActRequest(room_id=room_id, seat_token=token, action=DRAW)), "action_id"),
        (stub.Act(pb.ActRequest(room_id=room_id, seat_token=token, action_id="x" * 129, action=DRAW)), "action_id"),
        (stub.Act(pb.ActRequest(room_id=room_id, seat_token=token, action_id="b", action=actions_pb2.Action(
            discard=actions_pb2.Discard(card=0)))), "action.discard.card"),
        (stub.ListRooms(pb.ListRoomsRequest(page_token="٣")), "page_token"),
        (stub.ListRooms(pb.ListRoomsRequest(page_token="9" * 5000)), "page_token"),
        (stub.JoinRoom(pb.JoinRoomRequest(join_code="?")), "join_code"),
        (stub.GetRoom(pb.GetRoomRequest(room_id="x" * 600_000)), "room_id"),
    ]
    for call, field in cases:
        code, detail = await refusal(call)
        assert code == grpc.StatusCode.INVALID_ARGUMENT, (field, detail)
        assert detail.params["field"] == field, detail
        assert detail.message != "The request is malformed."
    code, detail = await refusal(stub.Act(pb.ActRequest(room_id=room_id, seat_token=token, action_id="c",
                                                        action=DRAW, expected_seq=before + 10)))
    assert code == grpc.StatusCode.OUT_OF_RANGE and name(detail) == "SEQ_OUT_OF_RANGE"
    assert detail.params["field"] == "expected_seq" and int(detail.params["next_seq"]) >= before
    assert (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq == before


async def test_a_refused_action_id_does_not_poison_a_later_legal_move(stack):
    """Bug: a legal draw sent with the id of a refused discard got the old refusal back."""
    stub = stack.stub
    _, w, mover, watcher = await the_mover(stub)
    hand = list(watcher.latest.view.hand)
    # the starter's opening turn is a discard only: a draw is refused (OPENING_DISCARD_ONLY) ...
    code, detail = await refusal(mover.act(DRAW, action_id="id-1"))
    assert name(detail) == "OPENING_DISCARD_ONLY"
    # ... and the same id then names a legal discard: applied, not the old refusal
    done = await mover.act(actions_pb2.Action(discard=actions_pb2.Discard(card=hand[0])), action_id="id-1")
    assert not done.duplicate and done.last_seq >= done.first_seq
    again = await mover.act(actions_pb2.Action(discard=actions_pb2.Discard(card=hand[0])), action_id="id-1")
    assert again.duplicate and (again.first_seq, again.last_seq) == (done.first_seq, done.last_seq)
    await w.close()
    await watcher.close()


async def test_a_returning_players_act_gives_the_seat_back_before_the_bots_next_move(stack):
    stub = stack.stub
    room_id, players = await started_room(stub)
    w = Watcher(stub, room_id)
    await wait_for(lambda: w.latest is not None and w.latest.HasField("view"))
    idle = next(p for p in players if p.seat != w.latest.view.turn.seat)
    await stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room_id, seat_token=idle.token))
    await wait_for(lambda: w.latest.room.seats[idle.seat].away)
    code, detail = await refusal(idle.act(DRAW))  # not its turn: refused ...
    assert name(detail) == "NOT_YOUR_TURN"
    room = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room
    assert not room.seats[idle.seat].away  # ... but the seat is the player's again
    await wait_for(lambda: any(m.event.WhichOneof("event") == "seat_back" for m in w.messages))
    await w.close()


async def test_the_shared_topics_carry_no_hidden_card_and_no_credential(stack):
    """hand.room-events-public: spectator-safe (a round's server seed only once it is over);
    hand.room-events: no seat credential; hand.room-commands: no seat token and no token hash
    used as a credential. The bots' round, dealt provably fair, verifies from the public topic
    alone (decision 0022), version 2: against the match commitment room_created published
    before any seat seed, the match secret on neither topic's public form before match_ended
    (decision 0034)."""
    stub = stack.stub
    bots = BotService(stack.broker, group_id=f"bots-{stack.unique}", topics=stack.topics)
    await bots.start()
    try:
        created, players = await create_room(stub, "hand", seats=4, rounds=1, turn_seconds=60)
        room_id, token = created.room.room_id, players[0].token
        await stub.FillWithBots(pb.FillWithBotsRequest(room_id=room_id, seat_token=token,
                                                       level=room_pb2.BOT_LEVEL_BEGINNER))
        await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=token))  # no seed: fair deals
        await stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room_id, seat_token=token))

        async def finished() -> bool:
            room = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room
            return room.status == room_pb2.ROOM_STATUS_FINISHED

        await wait_for(finished, timeout=180, interval=0.2)
        stored = await stack.store.load(room_id)
        public = await _read(stack.broker, stack.topics["public"], room_id, len(stored))
        private = await _read(stack.broker, stack.topics["events"], room_id, len(stored))
        commands = await _read_raw(stack.broker, stack.topics["commands"], room_id)
    finally:
        await bots.stop()
    assert sorted(public) == sorted(private) == list(range(len(stored)))
    drawn_seen = 0
    for seq, ev in public.items():
        k = ev.WhichOneof("event")
        assert k is not None
        body = getattr(ev, k)
        if k == "room_created":  # the room's commitment, first of all; its secret not before the end
            assert body.join_code == "" and body.match_secret == b"" and len(body.deal_commitment) == 32
            assert seq == 0
        if k == "seat_taken":
            assert body.token_hash == "" and body.player_id == ""
        if k == "match_started":
            assert not body.HasField("seed")
        if k == "round_dealt":
            assert len(body.deck) == 0 and body.server_seed == b""
        if k == "round_scored":  # the reveal: after every move of the round
            assert len(body.server_seed) == 32 and seq > max(s for s, e in public.items()
                                                              if e.WhichOneof("event") == "move_made")
        for e in getattr(body, "events", ()):
            which = e.WhichOneof("event")
            if which == "stock_drawn":
                drawn_seen += 1
                assert not e.stock_drawn.HasField("card")
            if which == "round_started":
                assert not e.round_started.HasField("seed") and len(e.round_started.deck) == 0
                assert e.round_started.deal_version == 2 and len(e.round_started.commitment) == 32
            if which == "stock_rebuilt":
                assert len(e.stock_rebuilt.order) == 0
    assert drawn_seen > 0
    last = max(public)
    assert public[last].WhichOneof("event") == "match_ended"  # the match secret's reveal comes last
    secret = public[last].match_ended.match_secret
    assert hashlib.sha256(secret).digest() == public[0].room_created.deal_commitment
    assert private[0].room_created.match_secret == secret
    checks = verify_deals(from_proto(public[s]) for s in sorted(public))
    assert [c.verdict for c in checks] == ["verified"] and checks[0].moves > 10, checks
    assert checks[0].deal_version == 2 and checks[0].match_secret == secret
    # without the reveal (the record up to the round's end) the round is not yet proven
    assert [c.verdict for c in verify_deals(from_proto(public[s]) for s in sorted(public) if s < last)] == [
        "pending"]
    for ev in private.values():
        if ev.WhichOneof("event") == "seat_taken":
            assert ev.seat_taken.token_hash == ""
    assert private[0].room_created.join_code  # the private topic keeps what the ledger needs
    assert len(private[[s for s, e in private.items() if e.WhichOneof("event") == "round_dealt"][0]]
               .round_dealt.deck) == 106
    for raw in commands:
        assert token.encode() not in raw  # a seat token never travels
        cmd = room_bus_pb2.RoomCommand.FromString(raw)
        if cmd.WhichOneof("command") in ("act", "leave_room", "fill_with_bots", "start_match", "presence"):
            assert cmd.HasField("seat")  # commands name the authenticated seat


async def _read_raw(settings, topic: str, room_id: str, timeout: float = 10.0) -> list[bytes]:
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=settings.bootstrap_servers,
                                auto_offset_reset="earliest", group_id=None)
    await consumer.start()
    out: list[bytes] = []
    try:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            batch = await consumer.getmany(timeout_ms=300)
            if not batch and out:
                break
            for msgs in batch.values():
                out += [m.value for m in msgs if m.key == room_id.encode()]
    finally:
        await consumer.stop()
    return out


async def _read(settings, topic: str, room_id: str, want: int) -> dict[int, room_events_pb2.RoomEvent]:
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=settings.bootstrap_servers,
                                auto_offset_reset="earliest", group_id=None)
    await consumer.start()
    seen: dict[int, room_events_pb2.RoomEvent] = {}
    try:
        end = time.monotonic() + 30
        while len(seen) < want and time.monotonic() < end:
            for msgs in (await consumer.getmany(timeout_ms=300)).values():
                for m in msgs:
                    ev = room_events_pb2.RoomEvent.FromString(m.value)
                    if ev.room_id == room_id:
                        seen[ev.seq] = ev
    finally:
        await consumer.stop()
    return seen


async def test_the_owner_can_use_the_rules_service_and_a_rules_outage_is_unavailable_not_internal(
        broker, tmp_path: Path, unique: str):
    """The in-process engine is the default; HAND_RULES_ADDRESS makes the owner call the
    rules service. While that service is down a move fails fast with UNAVAILABLE (and a
    retry hint) and changes nothing; once it is back the same action id goes through."""
    from hand_rules.settings import RulesConfig
    from hand_rules.server import RulesServer

    rules = RulesServer(RulesConfig.from_env({"HAND_RULES_PORT": "0"}).server)
    await rules.start()
    port = rules.port
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}",
                                  HAND_RULES_ADDRESS=rules.target)
    channel = grpc.aio.insecure_channel(server.target)
    try:
        stub = pb_grpc.RoomServiceStub(channel)
        room_id, w, mover, seat_w, discard, before = await a_move_ready(stub)
        await rules.stop(grace=0)
        started = time.monotonic()
        code, detail = await refusal(mover.act(discard, action_id="during-outage"))
        assert code == grpc.StatusCode.UNAVAILABLE and name(detail) == "ROOM_UNAVAILABLE"
        assert "retry_after_ms" in detail.params and time.monotonic() - started < 8
        assert (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq == before
        rules = RulesServer(RulesConfig.from_env({"HAND_RULES_PORT": str(port)}).server)
        await rules.start()
        done = None
        deadline = time.monotonic() + 20
        while done is None and time.monotonic() < deadline:  # a client retries after retry_after_ms
            try:
                done = await mover.act(discard, action_id="during-outage")
            except grpc.aio.AioRpcError as exc:
                assert exc.code() == grpc.StatusCode.UNAVAILABLE
                await asyncio.sleep(0.5)
        assert done is not None and not done.duplicate and done.first_seq == before
        await w.close()
        await seat_w.close()
    finally:
        await channel.close()
        await server.stop(grace=0)
        await rules.stop(grace=0)


async def test_a_sqlite_store_locked_by_another_process_refuses_moves_unavailable_and_changes_nothing(
        broker, tmp_path: Path, unique: str):
    """Another process holds the SQLite store's write lock (an operator's sqlite3 shell, a
    backup): a move waits at most the busy timeout and the command timeout, then fails with
    UNAVAILABLE and a retry hint, never INTERNAL, and writes nothing; once the lock is
    released the same action id goes through once."""
    import sqlite3

    db = tmp_path / "events.db"
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{db}", HAND_ROOM_COMMAND_TIMEOUT_S="3")
    channel = grpc.aio.insecure_channel(server.target)
    locker = None
    try:
        stub = pb_grpc.RoomServiceStub(channel)
        room_id, w, mover, seat_w, discard, before = await a_move_ready(stub)
        # The service writes too (its relay marks events published), so the locker waits for
        # the service's own short transaction to end before it takes the lock; with timeout=0
        # it failed whenever it met one (CI, stop 21).
        locker = sqlite3.connect(db, timeout=10, isolation_level=None)
        locker.execute("BEGIN IMMEDIATE")  # the write lock, as another writer holds it
        started = time.monotonic()
        code, detail = await refusal(mover.act(discard, action_id="while-locked"))
        took = time.monotonic() - started
        assert code == grpc.StatusCode.UNAVAILABLE and name(detail) == "ROOM_UNAVAILABLE", (code, detail)
        assert "retry_after_ms" in detail.params and took < 12, took
        locker.execute("ROLLBACK")
        locker.close()
        locker = None
        done = None
        deadline = time.monotonic() + 20
        while done is None and time.monotonic() < deadline:  # the client retries after retry_after_ms
            try:
                done = await mover.act(discard, action_id="while-locked")
            except grpc.aio.AioRpcError as exc:
                assert exc.code() == grpc.StatusCode.UNAVAILABLE, exc
                await asyncio.sleep(0.5)
        assert done is not None and done.first_seq == before, (done, before)
        await wait_for(lambda: seq_of(seat_w.latest) >= done.last_seq)
        assert (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq == done.last_seq + 1
        await w.close()
        await seat_w.close()
    finally:
        if locker is not None:
            locker.close()
        await channel.close()
        await server.stop(grace=0)


@pytest.mark.parametrize("local", ["on", "off"])
async def test_a_match_plays_whether_the_owner_decides_in_process_or_through_the_command_topic(
        broker, tmp_path: Path, unique: str, local: str):
    from .room_support import play_to_end

    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}",
                                  HAND_ROOM_LOCAL_COMMANDS=local)
    channel = grpc.aio.insecure_channel(server.target)
    try:
        stub = pb_grpc.RoomServiceStub(channel)
        room_id, players = await started_room(stub)
        watchers = {p.seat: Watcher(stub, room_id, p.token) for p in players}
        moves = await play_to_end(players, watchers)
        assert moves > 5
        assert (server.owner.local_commands > moves) == (local == "on")
        assert (server.owner.local_commands == 0) == (local == "off")
        for w in watchers.values():
            await w.close()
    finally:
        await channel.close()
        await server.stop(grace=0)


async def test_a_private_room_is_joined_by_its_code_only_and_card_params_are_card_text(stack):
    stub = stack.stub
    created, players = await create_room(stub, "hand", seats=3, rounds=1)
    code, detail = await refusal(stub.JoinRoom(pb.JoinRoomRequest(room_id=created.room.room_id, player_name="x")))
    assert code == grpc.StatusCode.PERMISSION_DENIED and name(detail) == "JOIN_CODE_REQUIRED"
    assert detail.params["field"] == "join_code"
    joined = await stub.JoinRoom(pb.JoinRoomRequest(join_code=created.room.join_code.lower(), player_name="x"))
    assert joined.seat == 1 and joined.room.join_code == created.room.join_code  # the seated see the code
    spectator_view = (await stub.GetRoom(pb.GetRoomRequest(room_id=created.room.room_id))).room
    assert spectator_view.join_code == ""
    # a refusal naming a card names it in card text, whatever path it took (in-process owner here)
    _, w, mover, mine = await the_mover(stub)
    missing = next(c for c in range(1, 105) if c not in set(mine.latest.view.hand))
    code, detail = await refusal(mover.act(actions_pb2.Action(discard=actions_pb2.Discard(card=missing))))
    assert name(detail) == "CARD_NOT_IN_HAND"
    from hand_engine import format_card
    assert detail.params["card"] == format_card(missing - 1) and format_card(missing - 1) in detail.message
    await w.close()
    await mine.close()


async def test_the_host_can_free_a_players_seat_before_the_match_and_only_the_host(stack):
    stub = stack.stub
    created, players = await create_room(stub, "hand", seats=3, rounds=1)
    await join_all(stub, created, players, 3)
    room_id, host, guest = created.room.room_id, players[0], players[1]
    code, detail = await refusal(stub.RemovePlayer(pb.RemovePlayerRequest(room_id=room_id, seat_token=guest.token,
                                                                         seat=2)))
    assert code == grpc.StatusCode.PERMISSION_DENIED and name(detail) == "NOT_HOST"
    code, detail = await refusal(stub.RemovePlayer(pb.RemovePlayerRequest(room_id=room_id, seat_token=host.token,
                                                                         seat=0)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and detail.params["field"] == "seat"
    freed = await stub.RemovePlayer(pb.RemovePlayerRequest(room_id=room_id, seat_token=host.token,
                                                         seat=guest.seat))
    assert freed.room.seats[guest.seat].kind == room_pb2.SEAT_KIND_EMPTY
    # the removed player's token is worth nothing now: it expired with the seat (decision 0011)
    code, detail = await refusal(stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room_id, seat_token=guest.token)))
    assert name(detail) == "SEAT_TOKEN_EXPIRED" and detail.params["reason"] == "seat_left"
    code, detail = await refusal(stub.RemovePlayer(pb.RemovePlayerRequest(room_id=room_id, seat_token=host.token,
                                                                         seat=guest.seat)))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and name(detail) == "SEAT_EMPTY"
    await stub.FillWithBots(pb.FillWithBotsRequest(room_id=room_id, seat_token=host.token))
    await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=host.token, seed=1))
    code, detail = await refusal(stub.RemovePlayer(pb.RemovePlayerRequest(room_id=room_id, seat_token=host.token,
                                                                         seat=2)))
    assert name(detail) == "MATCH_STARTED"


async def test_list_rooms_playing_lists_the_public_matches_being_played_to_watch(stack):
    """The lobby's running tables (issue 26, item 10): ``ListRooms(playing=true)`` lists a public room
    once its match runs, and the default listing (waiting rooms with a free seat) no longer does."""
    stub = stack.stub
    created, players = await create_room(stub, "hand", seats=2, rounds=1, public=True)
    room_id, host = created.room.room_id, players[0]
    listed = lambda playing: stub.ListRooms(pb.ListRoomsRequest(playing=playing))  # noqa: E731
    assert room_id in {r.room_id for r in (await listed(False)).rooms}
    assert room_id not in {r.room_id for r in (await listed(True)).rooms}
    await stub.FillWithBots(pb.FillWithBotsRequest(room_id=room_id, seat_token=host.token))
    await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=host.token, seed=1))

    async def playing() -> bool:
        return room_id in {r.room_id for r in (await listed(True)).rooms}
    deadline = time.monotonic() + 20
    while not await playing():
        assert time.monotonic() < deadline, "a running public match is not listed with playing=true"
        await asyncio.sleep(0.1)
    running = next(r for r in (await listed(True)).rooms if r.room_id == room_id)
    assert running.preset == "hand" and running.seat_count == 2 and running.free_seats == 0
    assert room_id not in {r.room_id for r in (await listed(False)).rooms}
