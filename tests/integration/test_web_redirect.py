"""Reaching the room's owner through the browser protocol (docs/clients.md, "Reaching the room's
owner"): a ROOM_MOVED refusal reaches the browser with its params (owner_address, owner_web_url,
owner_instance) in the Connect error and the gRPC-Web trailers, the ``hand-redirected: 1`` header of a
followed call reaches the servicer's metadata on Act (unary) and Watch (server stream), and a page of
another origin may send it (CORS preflight).

The servicer stands in for a room instance that does not own the room: it refuses an unmarked Act or
Watch with ROOM_MOVED as the room service does (``hand_room.status.to_status``) and serves a marked
one; the web server, its adapter and the clients are the real ones."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType

from hand.v1 import errors_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_room.status import to_status
from hand_web.adapter import method_info
from hand_web.server import WebServer
from hand_web.settings import WebConfig

from .web_support import PROTOCOLS, client, preflight

SERVICE = pb.DESCRIPTOR.services_by_name["RoomService"]
OWNER = {"owner_address": "hand-room-1.hand-room.games.svc:50052",
         "owner_web_url": "https://room-1.hand.example", "owner_instance": "room-1"}
PAGE = "http://app.example"


class NotTheOwner(pb_grpc.RoomServiceServicer):
    """Act and Watch of a room this instance does not own: ROOM_MOVED unless marked redirected."""

    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []

    async def _served_here(self, context) -> bool:
        metadata = dict(context.invocation_metadata())
        self.seen.append(metadata)
        if metadata.get("hand-redirected") == "1":
            return True
        status = to_status("ROOM_MOVED", OWNER, metadata.get("accept-language", "en"))
        await context.abort(status.code, status.details, status.trailing_metadata)
        return False

    async def Act(self, request: pb.ActRequest, context) -> pb.ActResponse:
        await self._served_here(context)
        return pb.ActResponse(first_seq=7, last_seq=7)

    async def Watch(self, request: pb.WatchRequest, context):
        await self._served_here(context)
        yield pb.WatchResponse(snapshot=pb.WatchSnapshot(next_seq=request.from_seq))


@pytest.fixture
async def web() -> AsyncIterator[tuple[NotTheOwner, WebServer]]:
    servicer = NotTheOwner()
    server = WebServer(WebConfig.from_env({"HAND_WEB_PORT": "0", "HAND_WEB_CORS_ORIGINS": PAGE}),
                       [(servicer, SERVICE)])
    await server.start()
    try:
        yield servicer, server
    finally:
        await server.stop()


def _moved(error: ConnectError) -> errors_pb2.RuleError:
    assert error.code.name == "FAILED_PRECONDITION"
    [detail] = error.details
    assert detail.type_name == "hand.v1.RuleError"
    return errors_pb2.RuleError.FromString(detail.message_bytes)


ACT = pb.ActRequest(room_id="r1", seat_token="t", action_id="a1")
ACT_PATH = "/hand.v1.RoomService/Act"


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=["connect", "grpc-web"])
async def test_room_moved_reaches_the_browser_with_the_owners_endpoint(web, protocol: ProtocolType) -> None:
    servicer, server = web
    async with client(server, protocol) as browser:
        with pytest.raises(ConnectError) as refused:
            await browser.execute_unary(request=ACT, method=method_info(SERVICE, "Act"),
                                       headers={"accept-language": "ar"})
    rule = _moved(refused.value)
    assert rule.code == errors_pb2.ERROR_CODE_ROOM_MOVED
    assert dict(rule.params) == OWNER
    assert OWNER["owner_address"] in rule.message and any("\u0600" <= ch <= "\u06ff" for ch in rule.message)
    assert "hand-redirected" not in servicer.seen[-1]


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=["connect", "grpc-web"])
async def test_the_redirected_header_reaches_the_servicer_on_act(web, protocol: ProtocolType) -> None:
    servicer, server = web
    async with client(server, protocol) as browser:
        answer = await browser.execute_unary(request=ACT, method=method_info(SERVICE, "Act"),
                                            headers={"hand-redirected": "1"})
    assert answer.last_seq == 7
    assert servicer.seen[-1]["hand-redirected"] == "1"


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=["connect", "grpc-web"])
async def test_watch_is_refused_then_served_when_marked(web, protocol: ProtocolType) -> None:
    servicer, server = web
    request = pb.WatchRequest(room_id="r1", from_seq=3)
    async with client(server, protocol) as browser:
        with pytest.raises(ConnectError) as refused:
            async for _ in browser.execute_server_stream(request=request, method=method_info(SERVICE, "Watch")):
                pass
        assert dict(_moved(refused.value).params) == OWNER
        messages = [m async for m in browser.execute_server_stream(
            request=request, method=method_info(SERVICE, "Watch"), headers={"hand-redirected": "1"})]
    assert [m.snapshot.next_seq for m in messages] == [3]
    assert servicer.seen[-1]["hand-redirected"] == "1"


async def test_a_page_of_an_allowed_origin_may_send_the_redirected_header(web) -> None:
    _, server = web
    asked = await asyncio.to_thread(preflight, server, PAGE, ACT_PATH,
                                    "authorization,content-type,connect-protocol-version,hand-redirected")
    assert asked.status == 204 and asked.getheader("access-control-allow-origin") == PAGE
    assert "hand-redirected" in asked.getheader("access-control-allow-headers")
    default = await asyncio.to_thread(preflight, server, PAGE, ACT_PATH, None)
    assert "hand-redirected" in default.getheader("access-control-allow-headers")
    assert "authorization" in default.getheader("access-control-allow-headers")
