"""A room instance stopped gracefully (SIGTERM: a rolling deploy, a scale-in) hands its
rooms over while it drains, instead of holding them until the others find it gone.

Two instances as processes share Tansu and a SQLite store, with a long group session
(6 s): a member that stops without leaving its group is found gone only after that (and
Tansu's join then waits about half of it more).
Instance a owns a started room whose seats watch through a. On SIGTERM (grace 2 s):

- a's Watch streams end within the grace (ended one after another over half of it), so
  their clients resume elsewhere before the grace runs out;
- a leaves the owners' group at once: b holds every partition well before the session
  timeout (until 2026-12-07, on Tansu, whose first group generation is 0, aiokafka sent
  no LeaveGroup: b waited the whole session timeout, and the moves with it);
- the seat to move plays through b, and both seats' streams resumed on b see the move
  once, with no gap.

The browsers' streams of an instance that serves them itself (``HAND_WEB_ENABLED=on``) end
the same way, one after another, not all at once when the web server stops.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import time
from pathlib import Path

import grpc
import pytest

from connectrpc.client import ConnectClient
from connectrpc.compat import google_protobuf_binary_codec

from hand.v1 import actions_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_infra.broker import TansuBroker
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ensure_topics
from hand_room.partitions import partition_of
from hand_room.server import DRAIN_SHARE
from hand_web.adapter import method_info

from .failover_support import PARTITIONS, Instance, act_retrying
from .room_support import Watcher, started_room, seq_of, wait_for

SESSION_TIMEOUT_S = 6.0
GRACE_S = 2.0
pytestmark = pytest.mark.timeout(120)


async def test_a_stopped_instance_hands_its_rooms_over_before_its_session_would_time_out(tmp_path: Path) -> None:
    async with TansuBroker() as broker:
        settings = KafkaSettings(bootstrap_servers=broker.bootstrap_servers, partitions=PARTITIONS)
        await ensure_topics(settings)
        env = {"HAND_ROOM_SESSION_TIMEOUT_MS": str(int(SESSION_TIMEOUT_S * 1000)),
               "HAND_SHUTDOWN_GRACE_S": str(GRACE_S)}
        store_url = f"sqlite:///{tmp_path / 'events.db'}"
        a = Instance("a", broker.bootstrap_servers, store_url, tmp_path, **env)
        b = Instance("b", broker.bootstrap_servers, store_url, tmp_path, **env)
        channels: list = []
        watchers: list[Watcher] = []
        try:
            await asyncio.gather(a.ready(), b.ready())
            await wait_for(lambda: len(a.owned() | b.owned()) == PARTITIONS and a.owned() and b.owned(), 60)
            ch_a, ch_b = grpc.aio.insecure_channel(a.target), grpc.aio.insecure_channel(b.target)
            channels = [ch_a, ch_b]
            stub_a, stub_b = pb_grpc.RoomServiceStub(ch_a), pb_grpc.RoomServiceStub(ch_b)
            room_id, players = await started_room(stub_a)  # created on a: a partition a owns
            assert partition_of(room_id, PARTITIONS) in a.owned()
            watchers = [Watcher(stub_a, room_id, p.token) for p in players]
            await wait_for(lambda: all(w.latest is not None and w.latest.HasField("view") for w in watchers))
            mover = next(p for p in players if p.seat == watchers[0].latest.view.turn.seat)
            card = watchers[mover.seat].latest.view.hand[0]
            before = seq_of(watchers[0].latest)

            a.proc.send_signal(signal.SIGTERM)
            stopped_at = time.monotonic()
            await wait_for(lambda: all(w._task.done() for w in watchers), GRACE_S + 1, 0.01)
            ended_s = time.monotonic() - stopped_at
            await wait_for(lambda: b.owned() == set(range(PARTITIONS)), SESSION_TIMEOUT_S, 0.02)
            handed_s = time.monotonic() - stopped_at

            resumed = [Watcher(stub_b, room_id, p.token, from_seq=seq_of(w.latest) + 1)
                       for p, w in zip(players, watchers, strict=True)]
            watchers += resumed
            discard = actions_pb2.Action(discard=actions_pb2.Discard(card=card))
            done = await act_retrying(mover, [stub_b], discard, "after-stop", time.monotonic() + 20)
            moved_s = time.monotonic() - stopped_at
            assert done.first_seq > before
            await wait_for(lambda: all(r.latest is not None and seq_of(r.latest) >= done.first_seq for r in resumed))
            for old, new in zip(watchers, resumed, strict=False):
                seqs = [seq_of(m) for m in old.messages + new.messages[1:]]  # the resumed snapshot aside
                assert seqs == sorted(set(seqs)), "a seq repeated or out of order across the resume"
                assert seqs[-1] - seqs[0] + 1 == len(seqs), "a gap across the resume"
            print(f"\nstreams ended {ended_s:.2f} s after SIGTERM, partitions handed over {handed_s:.2f} s, "
                  f"next move {moved_s:.2f} s")
            assert ended_s < GRACE_S, ended_s
            # left the group (the drain, then Tansu's join: ~4 s), not found gone (~10 s)
            assert handed_s < SESSION_TIMEOUT_S, handed_s
            assert a.proc.wait(timeout=20) == 0
            assert any('"group_left"' in line or "LeaveGroup request succeeded" in line for line in a.lines())
        finally:
            for w in watchers:
                await w.close()
            for ch in channels:
                await ch.close()
            a.stop()
            b.stop()


async def _browser_watch(url: str, room_id: str, token: str, first: asyncio.Event, ended: list[float]) -> None:
    """A browser's Watch over Connect until the server ends it; when it ended goes to ``ended``."""
    method = method_info(pb.DESCRIPTOR.services_by_name["RoomService"], "Watch")
    async with ConnectClient(url, codec=google_protobuf_binary_codec(), send_compression=None) as client:
        try:
            async for _ in client.execute_server_stream(request=pb.WatchRequest(room_id=room_id, seat_token=token),
                                                        method=method):
                first.set()
        except Exception:  # noqa: BLE001 — cut, not ended: still when it stopped
            pass
    ended.append(time.monotonic())


async def test_browser_streams_of_a_stopped_instance_end_one_after_another_within_the_grace(tmp_path: Path) -> None:
    """Until 2026-12-07 the web server beside a room instance stopped first and gave its
    streams 1 s, then cut them all in one instant (their browsers reconnecting at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        web_port = s.getsockname()[1]
    async with TansuBroker() as broker:
        settings = KafkaSettings(bootstrap_servers=broker.bootstrap_servers, partitions=PARTITIONS)
        await ensure_topics(settings)
        a = Instance("a", broker.bootstrap_servers, f"sqlite:///{tmp_path / 'events.db'}", tmp_path,
                     HAND_SHUTDOWN_GRACE_S=str(GRACE_S), HAND_WEB_ENABLED="on", HAND_WEB_HOST="127.0.0.1",
                     HAND_WEB_PORT=str(web_port))
        streams: list[asyncio.Task] = []
        try:
            await a.ready()
            await wait_for(lambda: len(a.owned()) == PARTITIONS, 60)
            async with grpc.aio.insecure_channel(a.target) as channel:
                room_id, players = await started_room(pb_grpc.RoomServiceStub(channel))
            firsts = [asyncio.Event() for _ in range(8)]
            ended: list[float] = []
            streams = [asyncio.ensure_future(_browser_watch(f"http://127.0.0.1:{web_port}", room_id,
                                                            players[i % 2].token, first, ended))
                       for i, first in enumerate(firsts)]
            await asyncio.wait_for(asyncio.gather(*(f.wait() for f in firsts)), 20)

            a.proc.send_signal(signal.SIGTERM)
            stopped_at = time.monotonic()
            await asyncio.wait_for(asyncio.gather(*streams), GRACE_S + 3)
            ends = sorted(t - stopped_at for t in ended)
            print(f"\nbrowser streams ended {ends[0]:.2f}–{ends[-1]:.2f} s after SIGTERM")
            assert len(ends) == 8
            assert ends[-1] < GRACE_S, ends  # within the grace: ended, not cut when it ran out
            # one after another over the drain (GRACE_S * DRAIN_SHARE), not in one instant
            assert ends[-1] - ends[0] >= 0.4 * GRACE_S * DRAIN_SHARE, ends
            assert a.proc.wait(timeout=20) == 0
        finally:
            for task in streams:
                task.cancel()
            a.stop()
