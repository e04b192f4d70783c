"""A bot-only match through the whole stack: room service (gRPC gateway, owner,
event store, outbox), Tansu broker, and the bot service consuming its
requests — every move made by a bot, none refused, the events in the store."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import grpc
import pytest

from hand.v1 import room_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_bot.service import BotService
from hand_common.healthcheck import check
from hand_table import MoveMade
from hand_wire import decode

from .room_support import Watcher, create_room, make_topics, start_instance, topics_for, wait_for

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def stack(broker, tmp_path: Path, unique: str):
    async with _stack(broker, tmp_path, unique) as s:
        yield s


@contextlib.asynccontextmanager
async def _stack(broker, tmp_path: Path, unique: str, **env: str):
    topics = topics_for(unique)
    await make_topics(broker, topics)
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}", **env)
    bots = BotService(broker, group_id=f"bots-{unique}", topics=topics)
    await bots.start()
    channel = grpc.aio.insecure_channel(server.target)
    try:
        yield SimpleNamespace(stub=pb_grpc.RoomServiceStub(channel), store=server.store, bots=bots, server=server)
    finally:
        await channel.close()
        await bots.stop()
        await server.stop(grace=0)


@pytest.mark.parametrize("preset,level", [("hand", room_pb2.BOT_LEVEL_STRONG), ("saudi-partnership", room_pb2.BOT_LEVEL_MIDDLE),
                                          ("hand", room_pb2.BOT_LEVEL_EXPERT)])
async def test_a_match_of_bots_only_completes_and_its_events_are_stored(stack, preset: str, level: int) -> None:
    """The host fills the room with bots, starts, and leaves: a bot holds its seat too."""
    stub = stack.stub
    created, players = await create_room(stub, preset, seats=4, rounds=1, turn_seconds=60)
    room_id, token = created.room.room_id, players[0].token
    await stub.FillWithBots(pb.FillWithBotsRequest(room_id=room_id, seat_token=token, level=level))
    await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=token, seed=21))
    await stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room_id, seat_token=token))
    spectator = Watcher(stub, room_id)
    try:
        async def finished() -> bool:
            room = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room
            return room.status == room_pb2.ROOM_STATUS_FINISHED

        await wait_for(finished, timeout=240, interval=0.2)
        stored = await stack.store.load(room_id)
        kinds = [e.kind for e in stored]
        assert [e.seq for e in stored] == list(range(len(stored)))
        assert kinds.count("round_dealt") == kinds.count("round_scored") == 1
        assert kinds[-1] == "match_ended"
        moves = [r.event for r in (decode(e.payload) for e in stored) if isinstance(r.event, MoveMade)]
        assert len(moves) > 20
        # every move came from a bot's answer: no refused action, no expired turn
        # (an expert decides within its 230 ms CPU cap; the turns are 60 s: decision 0017)
        assert {m.origin for m in moves} == {"bot"}, {m.origin for m in moves}
        assert {m.seat for m in moves} == {0, 1, 2, 3}
        assert stack.bots.decided >= len({(m.round_no, m.turn_no) for m in moves})
        final = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room
        assert len(final.winners) >= 1
    finally:
        await spectator.close()



async def _bots_play_to_the_end(stack, preset: str = "hand") -> set[str]:
    """A one-round bots-only match with 60 s turns, played to its end: its moves' origins."""
    stub = stack.stub
    created, players = await create_room(stub, preset, seats=4, rounds=1, turn_seconds=60)
    room_id, token = created.room.room_id, players[0].token
    await stub.FillWithBots(pb.FillWithBotsRequest(room_id=room_id, seat_token=token, level=room_pb2.BOT_LEVEL_MIDDLE))
    await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=token, seed=21))
    await stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room_id, seat_token=token))

    async def finished() -> bool:
        room = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room
        return room.status == room_pb2.ROOM_STATUS_FINISHED

    await wait_for(finished, timeout=120, interval=0.2)  # a turn left to its 60 s timer shows as a "timer" move
    return {r.event.origin for r in (decode(e.payload) for e in await stack.store.load(room_id))
            if isinstance(r.event, MoveMade)}


async def test_a_bot_answer_the_store_failed_to_save_is_asked_for_again(stack) -> None:
    """The store fails the batch holding a bot's answer (the answer is refused, and no
    client retries a bot's command): the owner asks the bot again instead of leaving the
    turn to its 60 s timer."""
    async def fail(items, real):
        raise OSError("disk I/O error")

    failed = _misbehave_once_after_five_moves(stack.store, fail)
    origins = await _bots_play_to_the_end(stack)
    assert failed and origins == {"bot"}, origins


def _misbehave_once_after_five_moves(store, misbehave) -> list:
    """Wrap the store's ``append_batch``: the first batch holding a move after five moves
    were saved goes to ``misbehave(items, real_append)``. Returns the batches it got."""
    real, moves_saved, got = store.append_batch, [0], []

    async def append_batch(items):
        moves = sum(kind == "move_made" for _, _, evs, _ in items for kind, _ in evs)
        if moves and moves_saved[0] >= 5 and not got:
            got.append(items)
            return await misbehave(items, real)
        out = await real(items)
        moves_saved[0] += moves
        return out

    store.append_batch = append_batch
    return got


async def test_a_bot_request_that_could_not_be_sent_is_sent_again(stack) -> None:
    """The ask itself fails (reading the round's history from the store): asked again."""
    timers, failed = stack.server.owner.timers, []
    real = timers._round_history

    async def flaky(room):
        if room.round.turn_no >= 3 and not failed:
            failed.append(room.seq)
            raise OSError("database is locked")
        return await real(room)

    timers._round_history = flaky
    origins = await _bots_play_to_the_end(stack)
    assert failed and origins == {"bot"}, origins


@pytest.mark.parametrize("landed", [False, True], ids=["hangs-before-writing", "hangs-after-writing"])
async def test_a_bot_answer_the_store_hung_on_does_not_leave_the_turns_to_their_timers(
        broker, tmp_path: Path, unique: str, landed: bool) -> None:
    """The store hangs on the batch holding a bot's answer past HAND_ROOM_STORE_TIMEOUT_S:
    the owner refuses it and forgets the room (the append may have landed). It reads the
    room back from the store and arms its turn again, so the bots go on at once (before,
    the turn was left to its 60 s timer). The timeout is the default's, 1 s, well short of
    the 30 s hang: at 0.3 s a set-up call (CreateRoom) was refused once under the full
    suite's contention, a pass taking 380 ms."""
    async with _stack(broker, tmp_path, unique, HAND_ROOM_STORE_TIMEOUT_S="1") as s:
        async def hang(items, real):
            if landed:
                await real(items)
            await asyncio.sleep(30)

        hung = _misbehave_once_after_five_moves(s.store, hang)
        origins = await _bots_play_to_the_end(s)
        assert hung and origins == {"bot"}, origins


def test_python_m_hand_bot_serves_health_while_consuming_and_stops_on_sigterm(broker, tmp_path: Path,
                                                                            unique: str) -> None:
    """The entry point: config from the environment, SERVING once in the group, exit 0 on SIGTERM."""
    out = tmp_path / "bot.out"
    env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": broker.bootstrap_servers, "HAND_BOT_PORT": "0",
           "HAND_BOT_GROUP": f"bots-{unique}", "HAND_LOG_FORMAT": "json"}
    with out.open("w") as stdout:
        proc = subprocess.Popen([sys.executable, "-m", "hand_bot"], env=env, cwd=ROOT, stdout=stdout,
                                stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        target = None
        while time.monotonic() < deadline:
            assert proc.poll() is None, out.read_text()
            lines = [ln for ln in out.read_text().splitlines() if "health on " in ln]
            if lines:
                target = lines[0].rsplit("health on ", 1)[1]
                if check(target) == "SERVING":
                    break
            time.sleep(0.1)
        assert target is not None and check(target) == "SERVING"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_entry_point_refuses_to_start_without_a_broker() -> None:
    env = {k: v for k, v in os.environ.items() if k != "KAFKA_BOOTSTRAP_SERVERS"}
    done = subprocess.run([sys.executable, "-m", "hand_bot"], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0 and "KAFKA_BOOTSTRAP_SERVERS" in done.stderr
