"""A browser reaches a room's owner through two real room instances (one broker, one store, one
consumer group), each serving browsers (``hand_web``) and advertising its own web URL: an Act or a
Watch sent to the instance that does not own the room is refused with ROOM_MOVED, and its params
(owner_address, owner_web_url, owner_instance) reach the browser in the Connect error and the
gRPC-Web trailers; the same call marked ``hand-redirected: 1`` is served there (forwarded)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType

from hand.v1 import actions_pb2, errors_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_web.adapter import method_info
from hand_web.server import WebServer
from hand_web.settings import WebConfig

from .room_support import create_room, make_topics, start_instance, topics_for, wait_for
from .web_support import PROTOCOLS, client

PARTITIONS = 4
SERVICE = pb.DESCRIPTOR.services_by_name["RoomService"]


@pytest.fixture
async def two(broker, unique: str, tmp_path: Path) -> AsyncIterator[list]:
    """Two room instances sharing the rooms, each with a web server; [(room server, web server)]."""
    await make_topics(broker, topics_for(unique), partitions=PARTITIONS)
    store = f"sqlite:///{tmp_path / 'events.db'}"
    started: list = []
    try:
        for name in ("a", "b"):
            room = await start_instance(broker, unique, store, HAND_WEB_ADVERTISED_URL=f"https://{name}.rooms.example")
            started.append((room, WebServer(WebConfig.from_env({"HAND_WEB_PORT": "0"}), [room.browser_service])))
            await started[-1][1].start()
        owners = [r.owner for r, _ in started]
        await wait_for(lambda: all(o.owned for o in owners) and len(set().union(*(o.owned for o in owners)))
                       == PARTITIONS, 60)
        yield started
    finally:
        for room, web in reversed(started):
            await web.stop()  # a web server that never started stops as a no-op
            await room.stop(0)


def _moved(error: ConnectError) -> errors_pb2.RuleError:
    assert error.code.name == "FAILED_PRECONDITION", error
    return errors_pb2.RuleError.FromString(error.details[0].message_bytes)


@pytest.mark.slow
@pytest.mark.parametrize("protocol", PROTOCOLS, ids=["connect", "grpc-web"])
async def test_a_browser_is_sent_to_the_owner_and_a_marked_call_is_served(two, protocol: ProtocolType) -> None:
    (a, _), (b, b_web) = two
    async with grpc.aio.insecure_channel(a.target) as channel:
        created, _ = await create_room(pb_grpc.RoomServiceStub(channel), seats=2)
    room_id, owner = created.room.room_id, created.room.owner
    assert owner.address == a.target and owner.web_url == "https://a.rooms.example", owner
    act = pb.ActRequest(room_id=room_id, seat_token=created.seat_token, action_id="web-owner-1",
                        action=actions_pb2.Action(draw_stock=actions_pb2.DrawStock()))
    async with client(b_web, protocol) as browser:
        with pytest.raises(ConnectError) as refused:
            await browser.execute_unary(request=act, method=method_info(SERVICE, "Act"))
        rule = _moved(refused.value)
        assert rule.code == errors_pb2.ERROR_CODE_ROOM_MOVED
        assert dict(rule.params) == {"owner_address": a.target, "owner_web_url": "https://a.rooms.example",
                                     "owner_instance": owner.instance_id}
        with pytest.raises(ConnectError) as watch_refused:
            async for _ in browser.execute_server_stream(request=pb.WatchRequest(room_id=room_id),
                                                        method=method_info(SERVICE, "Watch")):
                pass
        assert _moved(watch_refused.value).params["owner_web_url"] == "https://a.rooms.example"
        # Marked: served by b (forwarded to a); the match has not started, so the rules refuse it.
        with pytest.raises(ConnectError) as served:
            await browser.execute_unary(request=act, method=method_info(SERVICE, "Act"),
                                       headers={"hand-redirected": "1"})
        [detail] = served.value.details
        assert errors_pb2.RuleError.FromString(detail.message_bytes).code != errors_pb2.ERROR_CODE_ROOM_MOVED
        snapshot = await anext(aiter(browser.execute_server_stream(
            request=pb.WatchRequest(room_id=room_id), method=method_info(SERVICE, "Watch"),
            headers={"hand-redirected": "1"})))
        assert snapshot.HasField("snapshot")
