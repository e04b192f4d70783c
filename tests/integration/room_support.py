"""Helpers for room-service tests: start instances, and scripted gRPC clients."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from grpc_status import rpc_status

from hand.v1 import actions_pb2, errors_pb2, options_pb2, room_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_common.status import from_status
from hand_engine import Options, resolve
from hand_engine.cards import hand_value
from hand_engine.search import candidates, max_value
from hand_infra.topics import ensure_topics
from hand_room.server import RoomServer
from hand_room.settings import RoomConfig


def rule_error_of(exc: grpc.aio.AioRpcError):
    """The ``hand.v1.RuleError`` detail of a failed call, or None."""
    return from_status(rpc_status.from_call(exc)) if exc.trailing_metadata() else None


#: the metadata of a call that followed ROOM_MOVED: any instance serves it (the fallback)
REDIRECTED = (("hand-redirected", "1"),)


def moved_to(exc: grpc.aio.AioRpcError) -> str | None:
    """The owner's address a ROOM_MOVED refusal names (Act and Watch are served by the
    room's owner only), or None for any other failure."""
    detail = rule_error_of(exc) if exc.code() == grpc.StatusCode.FAILED_PRECONDITION else None
    if detail is None or detail.code != errors_pb2.ERROR_CODE_ROOM_MOVED:
        return None
    return detail.params["owner_address"]


def seq_of(msg: pb.WatchResponse) -> int:
    """The seq a Watch message stands at: its event's, or for the snapshot the last
    event it includes (-1 for the empty snapshot at from_seq 0)."""
    return msg.event.seq if msg.HasField("event") else msg.snapshot.next_seq - 1


def topics_for(unique: str) -> dict[str, str]:
    return {k: f"t-{unique}-{k}" for k in ("commands", "events", "replies", "bots", "public")}


async def make_topics(settings, topics: dict[str, str], partitions: int = 4) -> None:
    await ensure_topics(settings, list(topics.values()), partitions=partitions)


def room_config(unique: str, **env: str) -> RoomConfig:
    base = {"HAND_ROOM_PORT": "0", "HAND_ROOM_GROUP": f"g-{unique}", "HAND_ROOM_PRESENCE_GRACE_S": "1",
            "HAND_SHUTDOWN_GRACE_S": "0.5",
            # one test process plays every client from one address: no per-peer limits (a test of
            # the limits sets its own)
            "HAND_RATE_PEER_PER_S": "0", "HAND_STREAMS_PER_PEER": "0"}
    base.update(env)
    return RoomConfig.from_env(base)


async def start_instance(settings, unique: str, store_url: str, *, broker=None, **env: str) -> RoomServer:
    """A started instance; ``broker``: its broker port (``hand_infra.memory_broker.MemoryBroker``),
    else aiokafka's clients for ``settings``."""
    server = RoomServer(room_config(unique, **env), settings, store_url, topics=topics_for(unique), broker=broker)
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
    metadata: tuple = ()  # a signed-in seat's session (authorization: Bearer), sent on every call

    async def act(self, action: actions_pb2.Action, action_id: str | None = None) -> pb.ActResponse:
        self.acted += 1
        return await self.stub.Act(pb.ActRequest(room_id=self.room_id, seat_token=self.token,
                                                 action_id=action_id or uuid.uuid4().hex, action=action),
                                   metadata=self.metadata)

    def plan(self, view) -> list[actions_pb2.Action]:
        """The moves a beginner bot in this seat would make, computed on the client."""
        from hand_bot.policy import choose_moves
        from hand_wire import action_to_proto

        actions = choose_moves(perspective_from_proto(view, self.options), "beginner", view.turn_no)
        return [action_to_proto(a) for a in actions]

    def choose(self, view) -> list[actions_pb2.Action]:
        """Candidate moves for this seat's turn, best first."""
        t = view.turn
        hand = [c - 1 for c in view.hand]  # wire ids are engine ids + 1
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
                    lay.lay_melds.melds.add(cards=[x + 1 for x in c.cards])
                moves.append(lay)
        taken = t.taken - 1 if t.HasField("taken") else None
        j = self.options.joker_in_hand
        for card in sorted(hand, key=lambda c: (-hand_value(c, j), c)):
            if card != taken:
                moves.append(actions_pb2.Action(discard=actions_pb2.Discard(card=card + 1)))
        return moves


def perspective_from_proto(v, options: Options) -> dict[str, Any]:
    """Rebuild the engine's perspective JSON from a wire SeatView (what a client holds)."""
    from hand_engine.notation import options_to_dict
    from hand_engine.perspective import FORMAT
    from hand_engine.cards import format_card

    phases = {1: "draw", 2: "play"}
    t = v.turn
    melds = []
    for m in v.melds:
        run = m.kind == 2
        d = {"id": m.id, "owner": m.owner, "kind": "run" if run else "set",
             "cards": [format_card(c - 1) for c in m.cards],
             "stand_ins": [{"joker": format_card(si.joker - 1), "rank": si.rank,
                            "suit": None if si.suit == 0 else "SHDC"[si.suit - 1]} for si in m.stand_ins],
             "value": m.value, "laid_turn": m.laid_turn}
        d.update({"suit": "SHDC"[m.suit - 1], "low": m.low} if run else {"rank": m.rank})
        melds.append(d)
    view = {
        "seat": v.seat, "n": v.n, "round_no": v.round_no, "dealer": v.dealer,
        "seats": [{"seat": s.seat, "hand_size": s.hand_size, "opened": s.opened,
                   "opening_total": s.opening_total if s.HasField("opening_total") else None,
                   "laid_any": s.laid_any, "draw_turns": s.draw_turns} for s in v.seats],
        "pile": [c - 1 for c in v.pile], "melds": melds, "threshold": v.threshold, "stock_size": v.stock_size,
        "rebuilds": v.rebuilds, "hand": [c - 1 for c in v.hand], "turn_no": v.turn_no,
        "draw_turns": v.draw_turns, "next_meld_id": v.next_meld_id,
        "last_opening_total": v.last_opening_total if v.HasField("last_opening_total") else None,
        "turn": {"seat": t.seat, "phase": phases[t.phase], "opening_discard": t.opening_discard,
                 "first_turn": t.first_turn, "taken": t.taken - 1 if t.HasField("taken") else None,
                 "take_pending": t.take_pending, "discard_only": t.discard_only,
                 "drawn": t.drawn - 1 if t.HasField("drawn") else None, "fresh": t.fresh, "took": t.took,
                 "take_final": t.take_final, "take_met": t.take_met, "laid": list(t.laid),
                 "layoffs": t.layoffs, "foreign": t.foreign, "opened_now": t.opened_now},
    }
    return {"format": FORMAT, "options": options_to_dict(options), "view": view}


async def wait_for(predicate, timeout: float = 30.0, interval: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await predicate() if asyncio.iscoroutinefunction(predicate) else predicate():
            return
        await asyncio.sleep(interval)
    raise AssertionError("condition not met in time")


class Watcher:
    """Collects a Watch stream in the background."""

    def __init__(self, stub: pb_grpc.RoomServiceStub, room_id: str, token: str = "", from_seq: int = 0,
                 metadata: tuple = ()) -> None:
        self.stub, self.room_id, self.token = stub, room_id, token
        self.messages: list[pb.WatchResponse] = []
        self.error: grpc.aio.AioRpcError | None = None
        self._call = stub.Watch(pb.WatchRequest(room_id=room_id, seat_token=token, from_seq=from_seq),
                                metadata=metadata)
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        try:
            async for msg in self._call:
                self.messages.append(msg)
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                self.error = exc
        except asyncio.CancelledError:
            pass

    @property
    def latest(self) -> pb.WatchResponse | None:
        return self.messages[-1] if self.messages else None

    async def close(self) -> None:
        self._call.cancel()
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            await self._task


async def create_room(stub, preset: str = "hand", seats: int = 4, rounds: int = 1, turn_seconds: int = 60,
                      public: bool = False, **overrides: Any) -> tuple[pb.CreateRoomResponse, list[Player]]:
    created = await stub.CreateRoom(pb.CreateRoomRequest(
        rules=selection(preset, **overrides), rounds=rounds, seat_count=seats, turn_seconds=turn_seconds,
        player_name="host", player_id="p0",
        visibility=room_pb2.ROOM_VISIBILITY_PUBLIC if public else room_pb2.ROOM_VISIBILITY_PRIVATE))
    options = resolve(preset, {**overrides, "rounds": rounds})
    players = [Player(stub, created.room.room_id, created.seat_token, 0, options)]
    return created, players


async def join_all(stub, created, players: list[Player], humans: int) -> None:
    for i in range(1, humans):
        joined = await stub.JoinRoom(pb.JoinRoomRequest(join_code=created.room.join_code,
                                                        player_name=f"p{i}", player_id=f"p{i}"))
        players.append(Player(stub, created.room.room_id, joined.seat_token, joined.seat, players[0].options))


async def _act_retrying(p: Player, action, tries: int = 5) -> pb.ActResponse:
    """``p.act`` as the contract asks a client to act: ``UNAVAILABLE`` (the room's store or owner
    did not answer in time, e.g. on a loaded test machine) is retried with the same action id,
    which the room applies at most once; ``RESOURCE_EXHAUSTED`` (a signed-in player over the
    per-player rate when the test plays faster than any person, an instance at capacity) after
    the refusal's ``retry_after_ms``."""
    action_id = uuid.uuid4().hex
    attempt = refused = 0
    while True:
        try:
            return await p.act(action, action_id=action_id)
        except grpc.aio.AioRpcError as exc:
            detail = rule_error_of(exc)
            if exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and detail is not None and refused < 50:
                refused += 1
                await asyncio.sleep(int(detail.params.get("retry_after_ms", "100")) / 1000)
                continue
            attempt += 1
            if exc.code() != grpc.StatusCode.UNAVAILABLE or attempt == tries:
                raise
            await asyncio.sleep(0.2 * attempt)
    raise AssertionError("unreachable")


async def play_to_end(players: list[Player], watchers: dict[int, Watcher], timeout: float = 120.0) -> int:
    """Drive human seats with client-side beginner moves until the match is over."""
    deadline = time.monotonic() + timeout
    moves = 0
    by_seat = {p.seat: p for p in players}
    while time.monotonic() < deadline:
        latest = [w.latest for w in watchers.values() if w.latest is not None]
        ref = max(latest, key=seq_of) if latest else None
        if ref is not None and ref.room.status == room_pb2.ROOM_STATUS_FINISHED:
            return moves
        seq = seq_of(ref) if ref is not None else -1
        if ref is not None and ref.view.HasField("result"):
            await asyncio.sleep(0.005)
            continue
        mover = ref.view.turn.seat if ref is not None and ref.HasField("view") else None
        w = watchers.get(mover) if mover is not None else None
        if w is None or w.latest is None or seq_of(w.latest) < seq or mover not in by_seat:
            await asyncio.sleep(0.005)
            continue
        p = by_seat[mover]
        view = w.latest.view
        acted = None
        for action in p.plan(view) + p.choose(view):
            try:
                acted = await _act_retrying(p, action)
                moves += 1
                break
            except grpc.aio.AioRpcError as exc:
                if exc.code() not in (grpc.StatusCode.FAILED_PRECONDITION,):
                    raise
        assert acted is not None, "no move accepted"
        # wait until every stream has seen the move's events
        end = time.monotonic() + 10
        while time.monotonic() < end and any(
                x.latest is None or seq_of(x.latest) < acted.last_seq for x in watchers.values()):
            await asyncio.sleep(0.002)
    raise AssertionError("match did not finish in time")


async def refusal(call) -> tuple[grpc.StatusCode, errors_pb2.RuleError]:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    detail = from_status(rpc_status.from_call(info.value))
    assert detail is not None, "every refusal carries a RuleError"
    assert detail.message and detail.message == info.value.details()
    return info.value.code(), detail


def name(detail: errors_pb2.RuleError) -> str:
    return errors_pb2.ErrorCode.Name(detail.code).removeprefix("ERROR_CODE_")


async def started_room(stub, seats: int = 2):
    created, players = await create_room(stub, "hand", seats=seats, rounds=1, turn_seconds=120)
    await join_all(stub, created, players, seats)
    room_id = created.room.room_id
    await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=players[0].token, seed=7))
    return room_id, players


async def the_mover(stub):
    """A started 2-seat room with a stream for seat 0 and one for the seat to move:
    (room id, seat 0's watcher, the mover, the mover's watcher), both views arrived."""
    room_id, players = await started_room(stub)
    w = Watcher(stub, room_id, players[0].token)
    await wait_for(lambda: w.latest is not None and w.latest.HasField("view"))
    mover = next(p for p in players if p.seat == w.latest.view.turn.seat)
    seat_w = Watcher(stub, room_id, mover.token)
    await wait_for(lambda: seat_w.latest is not None and seat_w.latest.HasField("view"))
    return room_id, w, mover, seat_w


async def a_move_ready(stub):
    """``the_mover``, that seat's discard, and the room's next seq once the streams' own
    presence events have settled."""
    room_id, w, mover, seat_w = await the_mover(stub)
    discard = actions_pb2.Action(discard=actions_pb2.Discard(card=seat_w.latest.view.hand[0]))
    before, last = -1, (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq
    while before != last:
        await asyncio.sleep(0.5)
        before, last = last, (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq
    return room_id, w, mover, seat_w, discard, before


def rule_code(exc: grpc.aio.AioRpcError) -> str:
    detail = from_status(rpc_status.from_call(exc))
    return errors_pb2.ErrorCode.Name(detail.code).removeprefix("ERROR_CODE_")


async def bots_finish_a_match(stub, timeout_s: float = 60, level: int = 2) -> str:
    """A 3-seat room of bots (``level``: a middle bot's round is ~60 moves, a beginner's up to
    ~400) plays a one-round match to its end through ``stub``; the room's id."""
    created, players = await create_room(stub, "hand", seats=3, rounds=1, turn_seconds=60)
    room_id, token = created.room.room_id, players[0].token
    await stub.FillWithBots(pb.FillWithBotsRequest(room_id=room_id, seat_token=token, level=level))
    await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=token, seed=11))
    await stub.LeaveRoom(pb.LeaveRoomRequest(room_id=room_id, seat_token=token))  # bots only
    deadline = time.monotonic() + timeout_s
    while (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.status != room_pb2.ROOM_STATUS_FINISHED:
        assert time.monotonic() < deadline, "the bots did not finish the match"
        await asyncio.sleep(0.1)
    return room_id


async def bots_play_a_match(stack, store_path, timeout_s: float = 240) -> tuple[str, list[str]]:
    """Through a whole stack's room service (``hand_run.process.LocalStack``): a 3-seat room of
    bots plays a one-round match to its end; the room id and the kinds of its stored events."""
    from hand_infra.eventstore import EventStore

    async with grpc.aio.insecure_channel(stack.targets["room"]) as channel:
        room_id = await bots_finish_a_match(pb_grpc.RoomServiceStub(channel), timeout_s)
    async with EventStore(f"sqlite:///{store_path}") as store:
        return room_id, [e.kind for e in await store.load(room_id)]
