"""Helpers for room-service tests: start instances, and scripted gRPC clients."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

import grpc

from hand.v1 import actions_pb2, options_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_common.config import RoomConfig
from hand_engine import Options, resolve
from hand_engine.cards import hand_value
from hand_engine.search import candidates, max_value
from hand_infra.topics import ensure_topics
from hand_room.server import RoomServer


def topics_for(unique: str) -> dict[str, str]:
    return {k: f"t-{unique}-{k}" for k in ("commands", "events", "replies", "bots")}


async def make_topics(settings, topics: dict[str, str], partitions: int = 4) -> None:
    await ensure_topics(settings, list(topics.values()), partitions=partitions)


def room_config(unique: str, **env: str) -> RoomConfig:
    base = {"HAND_ROOM_PORT": "0", "HAND_ROOM_GROUP": f"g-{unique}", "HAND_ROOM_PRESENCE_GRACE_S": "1",
            "HAND_SHUTDOWN_GRACE_S": "0.5"}
    base.update(env)
    return RoomConfig.from_env(base)


async def start_instance(settings, unique: str, store_url: str, **env: str) -> RoomServer:
    server = RoomServer(room_config(unique, **env), settings, store_url, topics=topics_for(unique))
    await server.start()
    return server


def selection(preset: str, **overrides: Any) -> options_pb2.RuleSelection:
    sel = options_pb2.RuleSelection(preset=preset)
    for k, v in overrides.items():
        setattr(sel.overrides, k, v)
    return sel


@dataclass
class Player:
    """A scripted client: draws, opens when it can, lays nothing else, discards high."""

    stub: pb_grpc.RoomServiceStub
    room_id: str
    token: str
    seat: int
    options: Options
    acted: int = 0
    seen: list[pb.WatchResponse] = field(default_factory=list)

    async def act(self, action: actions_pb2.Action, action_id: str | None = None) -> pb.ActResponse:
        self.acted += 1
        return await self.stub.Act(pb.ActRequest(room_id=self.room_id, seat_token=self.token,
                                                 action_id=action_id or uuid.uuid4().hex, action=action))

    def choose(self, view) -> list[actions_pb2.Action]:
        """Candidate moves for this seat's turn, best first."""
        t = view.turn
        hand = list(view.hand)
        if t.phase == 1 and not t.opening_discard:  # draw
            return [actions_pb2.Action(draw_stock=actions_pb2.DrawStock())]
        moves: list[actions_pb2.Action] = []
        me = view.seats[self.seat]
        if not t.opening_discard and not t.discard_only:
            cands = candidates(hand, self.options)
            full = (1 << len(hand)) - 1
            total, combo = max_value(cands, full)
            used = sum(len(c.cards) for c in combo)
            if combo and (me.opened or total >= view.threshold) and used < len(hand):
                lay = actions_pb2.Action()
                for c in combo:
                    lay.lay_melds.melds.add(cards=c.cards)
                moves.append(lay)
        taken = t.taken if t.HasField("taken") else None
        j = self.options.joker_in_hand
        for card in sorted(hand, key=lambda c: (-hand_value(c, j), c)):
            if card != taken:
                moves.append(actions_pb2.Action(discard=actions_pb2.Discard(card=card)))
        return moves


async def wait_for(predicate, timeout: float = 30.0, interval: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await predicate() if asyncio.iscoroutinefunction(predicate) else predicate():
            return
        await asyncio.sleep(interval)
    raise AssertionError("condition not met in time")
