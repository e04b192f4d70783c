"""The room owner: applies the commands of the rooms whose partitions of
``hand.room-commands`` this instance holds in the consumer group.

consume → decide (pure + rules) → append to the event store (unique
``(room_id, seq)``: a stale owner cannot fork a room) → reply → commit.
A new owner rebuilds a room from the store on first use and re-arms the
timers of every active room of its partitions at assignment.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener
from aiokafka.partitioner import murmur2

from hand_engine import RuleViolation
from hand_engine.perspective import perspective
from hand_infra.eventstore import DuplicateAction, EventStore, StaleAppend
from hand_infra.outbox import OutboxRelay
from hand_infra.settings import KafkaSettings
from hand_infra.topics import BOT_REQUESTS, ROOM_COMMANDS, ROOM_REPLIES

from .decide import decide
from .errors import RoomError
from .fold import evolve
from .index import RoomIndex
from .messages import command, decode, encode
from .model import Room
from .rules_port import RulesPort

log = structlog.get_logger("hand_room.owner")


def partition_of(room_id: str, partitions: int) -> int:
    """The partition Kafka's default partitioner gives key ``room_id``."""
    return (murmur2(room_id.encode()) & 0x7FFFFFFF) % partitions


class _Listener(ConsumerRebalanceListener):
    def __init__(self, owner: "RoomOwner") -> None:
        self.owner = owner

    async def on_partitions_revoked(self, revoked) -> None:
        self.owner._revoke({tp.partition for tp in revoked})

    async def on_partitions_assigned(self, assigned) -> None:
        await self.owner._assign({tp.partition for tp in assigned})


class RoomOwner:
    def __init__(self, store: EventStore, index: RoomIndex, settings: KafkaSettings,
                 rules: RulesPort, relay: OutboxRelay | None, *, group_id: str = "hand-room-owners",
                 away_after_timeouts: int = 2, bot_grace_s: float = 5.0,
                 topics: dict[str, str] | None = None) -> None:
        self.store, self.index, self.settings, self.rules, self.relay = store, index, settings, rules, relay
        self.group_id = group_id
        self.away_after = away_after_timeouts
        self.bot_grace_s = bot_grace_s
        t = topics or {}
        self.t_commands = t.get("commands", ROOM_COMMANDS)
        self.t_replies = t.get("replies", ROOM_REPLIES)
        self.t_bots = t.get("bots", BOT_REQUESTS)
        self.rooms: dict[str, Room] = {}
        self.owned: set[int] = set()
        self.partitions = settings.partitions
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._bot_asked: dict[str, tuple] = {}
        self._rejected: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
        self._consumer: AIOKafkaConsumer | None = None
        self._producer: AIOKafkaProducer | None = None
        self._task: asyncio.Task | None = None
        self.processed = 0

    # ---------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        self._producer = AIOKafkaProducer(**self.settings.producer_kwargs())
        await self._producer.start()
        self._consumer = AIOKafkaConsumer(**self.settings.consumer_kwargs(self.group_id))
        self._consumer.subscribe([self.t_commands], listener=_Listener(self))
        await self._consumer.start()
        parts = self._consumer.partitions_for_topic(self.t_commands)
        if parts:
            self.partitions = len(parts)
        self._task = asyncio.create_task(self._run(), name="room-owner")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        if self._consumer is not None:
            await self._consumer.stop()
        if self._producer is not None:
            await self._producer.stop()

    # ---------------------------------------------------------------- ownership
    def _revoke(self, parts: set[int]) -> None:
        self.owned -= parts
        for room_id in [r for r in self.rooms if partition_of(r, self.partitions) in parts]:
            self.rooms.pop(room_id, None)
            handle = self._timers.pop(room_id, None)
            if handle:
                handle.cancel()
        log.info("partitions_revoked", partitions=sorted(parts))

    async def _assign(self, parts: set[int]) -> None:
        self.owned |= parts
        rearmed = 0
        for room_id in await self.index.active():
            if partition_of(room_id, self.partitions) in parts:
                room = await self._load(room_id)
                if room is not None:
                    self.rooms[room_id] = room
                    self._after(room)
                    rearmed += 1
        log.info("partitions_assigned", partitions=sorted(parts), rooms=rearmed)

    async def _load(self, room_id: str) -> Room | None:
        room = None
        for ev in await self.store.load(room_id):
            room = evolve(room, ev.kind, ev.payload, ev.seq, ev.created_at.timestamp())
        return room

    # ---------------------------------------------------------------- loop
    async def _run(self) -> None:
        assert self._consumer is not None
        while True:
            batch = await self._consumer.getmany(timeout_ms=200, max_records=1000)
            if not batch:
                continue
            by_room: dict[str, list[dict[str, Any]]] = {}
            for msgs in batch.values():
                for msg in msgs:
                    try:
                        cmd = decode(msg.value)
                        by_room.setdefault(cmd["room_id"], []).append(cmd)
                    except Exception:
                        log.warning("bad_command_dropped", offset=msg.offset)
            try:
                await self._process(by_room)
            except Exception:
                log.exception("batch_failed_retrying_one_by_one")
                await asyncio.gather(*(self._serial(r, cmds) for r, cmds in by_room.items()))
            await self._consumer.commit()

    async def _process(self, by_room: dict[str, list[dict[str, Any]]]) -> None:
        """Decide every room's commands in memory, then append them all in one
        transaction (group commit), then reply."""
        keys = {id(c): _action_key(c) for cmds in by_room.values() for c in cmds if c.get("action_id")}
        prior = await self.store.lookup_actions([(c["room_id"], keys[id(c)])
                                                 for cmds in by_room.values() for c in cmds if id(c) in keys])
        plans = await asyncio.gather(*(self._plan(r, cmds, keys, prior) for r, cmds in by_room.items()))
        items, owners = [], []
        redo: dict[str, list[dict[str, Any]]] = {}
        deferred: list[dict[str, Any]] = []
        for plan in plans:
            for entry in plan:
                if entry.get("defer"):
                    deferred.append(entry["cmd"])
                else:
                    items.append((entry["room_id"], entry["base"], entry["events"], entry["key"]))
                    owners.append(entry)
        results = await self.store.append_batch(items) if items else []
        touched: dict[str, Room] = {}
        for entry, res in zip(owners, results, strict=True):
            room_id, cmd = entry["room_id"], entry["cmd"]
            if room_id in redo:
                redo[room_id].append(cmd)
            elif isinstance(res, DuplicateAction):
                await self._reply(cmd, ok=True, seqs=res.seqs, result={"duplicate": True})
            elif isinstance(res, Exception):
                log.warning("stale_owner_reload", room_id=room_id)
                self.rooms.pop(room_id, None)
                redo[room_id] = [cmd]
            else:
                before = entry["before"]
                self.rooms[room_id] = entry["room"]
                touched[room_id] = entry["room"]
                if before is None or _listing(before) != _listing(entry["room"]):
                    await self.index.upsert(entry["room"])
                await self._reply(cmd, ok=True, seqs=res, result=entry["result"])
        if touched and self.relay is not None:
            self.relay.notify()
        for room in touched.values():
            self._after(room)
        self.processed += sum(len(c) for c in by_room.values())
        for room_id, cmds in redo.items():
            await self._serial(room_id, cmds)
        for cmd in deferred:  # a retry that arrived in the same batch as its first try
            await self._serial(cmd["room_id"], [cmd])

    async def _plan(self, room_id: str, cmds: list[dict[str, Any]], keys: dict, prior: dict) -> list[dict]:
        """Decide one room's commands in order against the in-memory room."""
        out: list[dict] = []
        room = self.rooms.get(room_id) or await self._load(room_id)
        seen: set[str] = set()
        for cmd in cmds:
            key = keys.get(id(cmd))
            with structlog.contextvars.bound_contextvars(room_id=room_id, command=cmd.get("type")):
                if key is not None:
                    if (room_id, key) in prior:
                        await self._duplicate(cmd, room_id, prior[(room_id, key)])
                        continue
                    if (room_id, key) in self._rejected:
                        await self._reply(cmd, **self._rejected[(room_id, key)])
                        continue
                    if key in seen:  # the same action twice in one batch: the store dedupes it
                        out.append({"room_id": room_id, "cmd": cmd, "defer": True})
                        continue
                try:
                    d = await decide(room, cmd, time.time(), self.rules)
                except (RoomError, RuleViolation) as exc:
                    await self._refuse(cmd, room_id, key, exc)
                    continue
                except Exception:
                    log.exception("command_failed")
                    await self._reply(cmd, ok=False, code="INTERNAL", message="internal error")
                    continue
                if not d.events:
                    await self._reply(cmd, ok=True, seqs=[], result=d.result)
                    continue
                base = room.seq if room is not None else 0
                out.append({"room_id": room_id, "cmd": cmd, "events": d.events, "base": base, "key": key,
                            "room": d.room, "before": room, "result": d.result})
                if key is not None:
                    seen.add(key)
                room = d.room
        return out

    async def _duplicate(self, cmd: dict[str, Any], room_id: str, seqs: list[int]) -> None:
        """A retried action id: the first result, unless the id now names another move."""
        first = await self.store.load(room_id, seqs[0], limit=len(seqs))
        done = next((e.payload.get("action") for e in first if e.kind == "moved"), None)
        if done is not None and done != cmd.get("payload", {}).get("action"):
            await self._reply(cmd, ok=False, code="ACTION_ID_REUSED",
                              message="that action id was used for another move")
            return
        await self._reply(cmd, ok=True, seqs=seqs, result={"duplicate": True})

    async def _refuse(self, cmd: dict[str, Any], room_id: str, key: str | None, exc: Exception) -> None:
        code = exc.code if isinstance(exc, RoomError) else exc.code.value
        out = {"ok": False, "code": code, "message": exc.detail, "params": _params(exc)}
        if key:
            self._rejected[(room_id, key)] = out
            while len(self._rejected) > 10_000:
                self._rejected.popitem(last=False)
        log.info("command_refused", code=code)
        await self._reply(cmd, **out)

    async def _serial(self, room_id: str, cmds: list[dict[str, Any]]) -> None:
        for cmd in cmds:
            with structlog.contextvars.bound_contextvars(room_id=room_id, command=cmd.get("type")):
                try:
                    await self._handle(cmd)
                except Exception:
                    log.exception("command_failed")
                    await self._reply(cmd, ok=False, code="INTERNAL", message="internal error")
            self.processed += 1

    async def _handle(self, cmd: dict[str, Any]) -> None:
        room_id = cmd["room_id"]
        key = _action_key(cmd) if cmd.get("action_id") else None
        if key is not None:
            prior = await self.store.lookup_action(room_id, key)
            if prior is not None:
                return await self._duplicate(cmd, room_id, prior)
            if (room_id, key) in self._rejected:
                return await self._reply(cmd, **self._rejected[(room_id, key)])
        for attempt in range(3):
            room = self.rooms.get(room_id) or await self._load(room_id)
            try:
                d = await decide(room, cmd, time.time(), self.rules)
            except (RoomError, RuleViolation) as exc:
                return await self._refuse(cmd, room_id, key, exc)
            if not d.events:
                return await self._reply(cmd, ok=True, seqs=[], result=d.result)
            start = room.seq if room is not None else 0
            try:
                seqs = await self.store.append(room_id, start, d.events, action_id=key)
            except DuplicateAction as exc:
                return await self._reply(cmd, ok=True, seqs=exc.seqs, result={"duplicate": True})
            except StaleAppend:
                log.warning("stale_owner_reload", attempt=attempt)
                self.rooms.pop(room_id, None)
                continue
            self.rooms[room_id] = d.room
            if self.relay is not None:
                self.relay.notify()
            if room is None or _listing(room) != _listing(d.room):
                await self.index.upsert(d.room)
            log.info("command_applied", seqs=[seqs[0], seqs[-1]], events=len(seqs))
            await self._reply(cmd, ok=True, seqs=seqs, result=d.result)
            self._after(d.room)
            return
        await self._reply(cmd, ok=False, code="ROOM_UNAVAILABLE", message="room is busy; retry")

    async def _reply(self, cmd: dict[str, Any], *, ok: bool, seqs: list[int] | None = None,
                     result: dict | None = None, code: str = "", message: str = "",
                     params: dict | None = None) -> None:
        if not cmd.get("reply_to") or self._producer is None:
            return
        await self._producer.send(self.t_replies, key=cmd["reply_to"].encode(), value=encode({
            "command_id": cmd["command_id"], "reply_to": cmd["reply_to"], "ok": ok,
            "seqs": seqs or [], "result": result or {}, "code": code, "message": message,
            "params": params or {}}))

    # ---------------------------------------------------------------- timers, bots
    def _after(self, room: Room) -> None:
        """Arm the turn timer and ask for a bot move when a bot controls the turn."""
        handle = self._timers.pop(room.room_id, None)
        if handle:
            handle.cancel()
        seat = room.seat_to_move()
        if seat is None:
            return
        r = room.round
        payload = {"round_no": r.round_no, "turn_no": r.turn_no, "away_after": self.away_after}
        bot = room.bot_controls(seat)
        wait = room.turn_seconds + (self.bot_grace_s if bot else 0.0)
        delay = max(0.0, room.turn_started_at + wait - time.time())
        loop = asyncio.get_running_loop()
        self._timers[room.room_id] = loop.call_later(
            delay, lambda: asyncio.ensure_future(self._send_command(command(room.room_id, "timeout", payload=payload))))
        if bot:
            ask = (r.round_no, r.turn_no, r.turn.phase, room.seq)
            if self._bot_asked.get(room.room_id) != ask:
                self._bot_asked[room.room_id] = ask
                level = room.seats[seat].bot_level or "beginner"
                asyncio.ensure_future(self._send(self.t_bots, room.room_id, {
                    "room_id": room.room_id, "seat": seat, "level": level, "round_no": r.round_no,
                    "turn_no": r.turn_no, "seq": room.seq, "perspective": perspective(r, seat)}))

    async def _send_command(self, cmd: dict[str, Any]) -> None:
        await self._send(self.t_commands, cmd["room_id"], cmd)

    async def _send(self, topic: str, key: str, value: dict[str, Any]) -> None:
        if self._producer is None:
            return
        try:
            await self._producer.send(topic, key=key.encode(), value=encode(value))
        except Exception:
            log.exception("send_failed", topic=topic, room_id=key)


def _action_key(cmd: dict[str, Any]) -> str:
    """Client action ids are per seat: namespace them by the seat token's hash."""
    return f"{cmd.get('token_hash', '')[:16]}:{cmd['action_id']}"


def _listing(room: Room) -> tuple:
    """What the room index shows; unchanged by ordinary moves."""
    return (room.status, len(room.free_seats()), room.public, room.code)


def _params(exc: Exception) -> dict[str, str]:
    return {k: str(v) for k, v in getattr(exc, "params", {}).items()}
