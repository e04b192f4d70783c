"""Quick chat through the real services (Tansu, the room service over gRPC, SQLite): one seat
sends a phrase, the other seat's Watch and a spectator's Watch receive it as a ``chat_sent``
event, and so does hand.room-events-public; a signed-in spectator chats too; an unknown
phrase, a spectator without a session and a flood are refused with their codes."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import pytest
from aiokafka import AIOKafkaConsumer

from hand.v1 import chat_pb2, errors_pb2, room_events_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_auth.tokens import Signer
from hand_common.config import IdentityConfig
from hand_common.sessionkeys import private_key

from .room_support import Watcher, create_room, join_all, make_topics, rule_error_of, start_instance, topics_for, wait_for


def chats(w: Watcher) -> list[room_events_pb2.ChatSent]:
    return [m.event.chat_sent for m in w.messages if m.HasField("event") and m.event.HasField("chat_sent")]


async def _public_chats(settings, topic: str, room_id: str, want: int) -> list[room_events_pb2.ChatSent]:
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=settings.bootstrap_servers,
                                auto_offset_reset="earliest", group_id=None)
    await consumer.start()
    out: list[room_events_pb2.ChatSent] = []
    try:
        end = time.monotonic() + 15
        while len(out) < want and time.monotonic() < end:
            for msgs in (await consumer.getmany(timeout_ms=300)).values():
                for m in msgs:
                    ev = room_events_pb2.RoomEvent.FromString(m.value)
                    if ev.room_id == room_id and ev.HasField("chat_sent"):
                        out.append(ev.chat_sent)
    finally:
        await consumer.stop()
    return out


async def test_a_phrase_reaches_the_other_seat_and_spectators_and_the_public_topic(
        broker, tmp_path: Path, unique: str) -> None:
    topics = topics_for(unique)
    await make_topics(broker, topics)
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}",
                                  HAND_ROOM_CHAT_PER_MIN="30", HAND_ROOM_CHAT_BURST="2")
    token, _ = Signer(private_key(IdentityConfig()), "hand-auth", 600).sign("cd" * 16)
    session = (("authorization", f"Bearer {token}"),)
    watchers: list[Watcher] = []
    try:
        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = pb_grpc.RoomServiceStub(channel)
            created, players = await create_room(stub, seats=2)
            await join_all(stub, created, players, humans=2)
            room_id = created.room.room_id
            other = Watcher(stub, room_id, players[1].token)
            spectator = Watcher(stub, room_id)
            watchers += [other, spectator]
            await wait_for(lambda: other.messages and spectator.messages)

            sent = await stub.Chat(pb.ChatRequest(room_id=room_id, seat_token=players[0].token,
                                                  phrase=chat_pb2.QUICK_PHRASE_WELL_PLAYED))
            await wait_for(lambda: chats(other) and chats(spectator))
            for w in (other, spectator):
                [got] = chats(w)
                assert got.seat == 0 and got.HasField("seat") and got.phrase == chat_pb2.QUICK_PHRASE_WELL_PLAYED
                assert w.messages[-1].event.seq == sent.seq

            # a signed-in spectator chats under a per-room key that names no account
            by_spectator = await stub.Chat(pb.ChatRequest(room_id=room_id, phrase=chat_pb2.QUICK_PHRASE_EMOTE_LAUGH),
                                           metadata=session)
            assert by_spectator.seq == sent.seq + 1
            await wait_for(lambda: len(chats(other)) == 2)
            got = chats(other)[-1]
            assert not got.HasField("seat") and got.spectator.startswith("s-") and "cd" * 16 not in got.spectator

            # refusals: an unknown phrase, a spectator without a session, a flood from one sender
            with pytest.raises(grpc.aio.AioRpcError) as unknown:
                await stub.Chat(pb.ChatRequest(room_id=room_id, seat_token=players[1].token, phrase=999),
                                metadata=(("accept-language", "ar"),))
            detail = rule_error_of(unknown.value)
            assert unknown.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert detail.code == errors_pb2.ERROR_CODE_UNKNOWN_PHRASE and detail.params["field"] == "phrase"
            assert any("\u0600" <= ch <= "\u06ff" for ch in detail.message)
            with pytest.raises(grpc.aio.AioRpcError) as anonymous:
                await stub.Chat(pb.ChatRequest(room_id=room_id, phrase=chat_pb2.QUICK_PHRASE_THANKS))
            assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED
            await stub.Chat(pb.ChatRequest(room_id=room_id, seat_token=players[0].token,
                                           phrase=chat_pb2.QUICK_PHRASE_HURRY_UP))  # the burst's second
            with pytest.raises(grpc.aio.AioRpcError) as flood:
                await stub.Chat(pb.ChatRequest(room_id=room_id, seat_token=players[0].token,
                                               phrase=chat_pb2.QUICK_PHRASE_HURRY_UP))
            detail = rule_error_of(flood.value)
            assert flood.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert detail.code == errors_pb2.ERROR_CODE_RATE_LIMITED
            assert detail.params["limit"] == "chat_per_sender" and int(detail.params["retry_after_ms"]) > 0
            await stub.Chat(pb.ChatRequest(room_id=room_id, seat_token=players[1].token,
                                           phrase=chat_pb2.QUICK_PHRASE_SORRY))  # another sender is not held back

            public = await _public_chats(broker, topics["public"], room_id, want=4)
            assert [c.phrase for c in public] == [chat_pb2.QUICK_PHRASE_WELL_PLAYED, chat_pb2.QUICK_PHRASE_EMOTE_LAUGH,
                                                  chat_pb2.QUICK_PHRASE_HURRY_UP, chat_pb2.QUICK_PHRASE_SORRY]
    finally:
        for w in watchers:
            await w.close()
        await server.stop(grace=0)
