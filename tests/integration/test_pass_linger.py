"""The pass's linger (``HAND_ROOM_PASS_LINGER_MS``, docs/decisions/0045): an idle owner
waits that long after a command arrives before it starts a pass (while commands come
that often), so the commands that arrive meanwhile share it — one transaction, one
publish, one set of wake-ups. An instance built whole on the in-memory broker and
SQLite, served over gRPC on a port."""

from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager
from pathlib import Path

import grpc
import pytest

from hand.v1 import chat_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_sim.rooms import memory_rooms

from .room_support import started_room, wait_for

pytestmark = pytest.mark.timeout(120)


def _chat(stub, room_id: str, token: str) -> grpc.aio.UnaryUnaryCall:
    return stub.Chat(pb.ChatRequest(room_id=room_id, seat_token=token, phrase=chat_pb2.QUICK_PHRASE_GOOD_LUCK))


@asynccontextmanager
async def _instance(tmp_path: Path, linger_ms: int, store_timeout_s: float = 1.0):
    """One instance on the in-memory broker and SQLite, served on a port: (its command
    path, a stub to it)."""
    env = {"HAND_ROOM_PASS_LINGER_MS": str(linger_ms), "HAND_ROOM_CHAT_PER_MIN": "0",
           "HAND_ROOM_STORE_TIMEOUT_S": str(store_timeout_s)}
    async with memory_rooms(1, f"sqlite:///{tmp_path / f'events-{linger_ms}.db'}", env=env) as rooms:
        async with grpc.aio.insecure_channel(rooms.servers[0].target) as channel:
            yield rooms.servers[0].owner.commands, pb_grpc.RoomServiceStub(channel)


async def _two_chats(linger_ms: int, tmp_path: Path) -> tuple[int, int, float]:
    """Two rooms; a burst of chat, then a quick-chat line in each, the second sent once the
    first waits in the owner's queue. Returns the owner's passes and commands for the two,
    and the first call's time to its answer."""
    async with _instance(tmp_path, linger_ms) as (path, stub):
        (room_a, players_a), (room_b, players_b) = [await started_room(stub) for _ in range(2)]
        await asyncio.sleep(0.3)  # the starts' passes and their timers are behind us
        # commands come often here (a burst): a companion within the linger is likely
        await asyncio.gather(*(_chat(stub, room_a, players_a[1].token) for _ in range(10)))
        passes, commands = path.batches, path.commands
        began = time.monotonic()
        first = asyncio.ensure_future(_chat(stub, room_a, players_a[0].token))
        if linger_ms:  # the first waits for company: the second arrives meanwhile
            await wait_for(lambda: bool(path._waiting), 5)
        else:
            await first
        await _chat(stub, room_b, players_b[0].token)
        await first
        took = time.monotonic() - began
        return path.batches - passes, path.commands - commands, took


async def test_commands_arriving_within_the_linger_share_one_pass(tmp_path: Path) -> None:
    passes, commands, took = await _two_chats(400, tmp_path)
    assert commands == 2
    assert passes == 1  # the second arrived while the first waited for company
    assert took >= 0.35  # the first did wait


async def test_without_a_linger_each_command_has_its_own_pass(tmp_path: Path) -> None:
    passes, commands, _ = await _two_chats(0, tmp_path)
    assert (passes, commands) == (2, 2)


async def test_a_quiet_path_does_not_linger(tmp_path: Path) -> None:
    """Commands further apart than the linger on average: a lone command would wait for
    nothing, so its pass starts at once."""
    async with _instance(tmp_path, 800, store_timeout_s=5) as (path, stub):
        room_id, players = await started_room(stub)
        took = []
        for _ in range(3):  # each a second after the last: the mean gap grows past 0.8 s
            await asyncio.sleep(1.0)
            began = time.monotonic()
            await _chat(stub, room_id, players[0].token)
            took.append(time.monotonic() - began)
        assert path._gap_s >= 0.8
        assert took[-1] < 0.6, took  # a linger would have held it 0.8 s


async def test_a_busy_path_does_not_linger_between_passes(tmp_path: Path) -> None:
    """A command that arrives while a pass runs goes in the next pass at once, with no
    linger of its own: the linger only ever delays an idle path's first pass."""
    async with _instance(tmp_path, 600, store_timeout_s=5) as (path, stub):
        room_id, players = await started_room(stub)
        await asyncio.sleep(0.3)
        store = path.store
        real_append = store.append_batch
        first_in_pass = asyncio.Event()

        async def slow_append(items):  # the first pass holds the path for 0.5 s
            if not first_in_pass.is_set():
                first_in_pass.set()
                await asyncio.sleep(0.5)
            return await real_append(items)

        store.append_batch = slow_append
        try:
            first = asyncio.ensure_future(_chat(stub, room_id, players[0].token))
            await asyncio.wait_for(first_in_pass.wait(), 5)
            second = _chat(stub, room_id, players[0].token)
            await first
            answered_first = time.monotonic()
            await second
            after_first = time.monotonic() - answered_first
        finally:
            store.append_batch = real_append
        assert path.batches >= 2
        # the second's pass followed the first's; a linger would have added 600 ms
        assert after_first < 0.4, after_first
