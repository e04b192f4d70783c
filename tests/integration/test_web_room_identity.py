"""The room service through the browser bridge (``hand_web``) refuses a session token it does
not accept as native gRPC does: UNAUTHENTICATED with its RuleError, not INTERNAL. (An abort from
inside a handler — ``optional_player`` — crossed the bridge as a plain ConnectError, which the
handler's wrapper took for a fault.) A valid session goes through and the seat is the player's."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from connectrpc.client import ConnectClient
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from grpc_status import rpc_status

from hand.v1 import errors_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_auth.tokens import Signer
from hand_common.config import IdentityConfig
from hand_common.sessionkeys import private_key
from hand_common.status import from_status
from hand_web.adapter import method_info
from hand_web.server import WebServer
from hand_web.settings import WebConfig

from .room_support import make_topics, selection, start_instance, topics_for

SERVICE = pb.DESCRIPTOR.services_by_name["RoomService"]
CREATE = pb.CreateRoomRequest(rules=selection("hand"), rounds=1, seat_count=2, turn_seconds=60,
                              player_name="Ada")


@pytest.mark.parametrize("protocol", [ProtocolType.CONNECT, ProtocolType.GRPC_WEB], ids=["connect", "grpc-web"])
async def test_a_bad_session_token_is_unauthenticated_in_the_browser_as_over_grpc(
        broker, tmp_path: Path, unique: str, protocol: ProtocolType) -> None:
    await make_topics(broker, topics_for(unique))
    room = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}")
    web = WebServer(WebConfig.from_env({"HAND_WEB_PORT": "0"}), [room.browser_service])
    await web.start()
    bad = {"authorization": "Bearer not.a.token"}
    try:
        async with grpc.aio.insecure_channel(room.target) as channel:
            with pytest.raises(grpc.aio.AioRpcError) as native:
                await pb_grpc.RoomServiceStub(channel).CreateRoom(CREATE, metadata=tuple(bad.items()))
        native_error = from_status(rpc_status.from_call(native.value))
        async with ConnectClient(web.url.rstrip("/"), protocol=protocol, codec=google_protobuf_binary_codec(),
                                 send_compression=None) as client:
            with pytest.raises(ConnectError) as browser:
                await client.execute_unary(request=CREATE, method=method_info(SERVICE, "CreateRoom"), headers=bad)
            assert browser.value.code.name == native.value.code().name == "UNAUTHENTICATED"
            [detail] = browser.value.details
            error = errors_pb2.RuleError.FromString(detail.message_bytes)
            assert error.code == native_error.code == errors_pb2.ERROR_CODE_UNAUTHENTICATED
            assert error.params["field"] == "authorization"

            token, _ = Signer(private_key(IdentityConfig()), "hand-auth", 600).sign("ab" * 16)
            created = await client.execute_unary(request=CREATE, method=method_info(SERVICE, "CreateRoom"),
                                                 headers={"authorization": f"Bearer {token}"})
            assert created.seat_token and created.room.room_id
    finally:
        await web.stop()
        await room.stop(grace=0)
