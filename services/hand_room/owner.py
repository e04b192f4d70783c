"""The room owner: applies the commands of the rooms whose partitions of
``hand.room-commands`` this instance holds in the consumer group.

One pipeline: consume a batch → per room, in order: duplicate check, decide
(pure + rules) → append every room's events in one transaction (group
commit; the unique ``(room_id, seq)`` stops a stale owner from forking a room)
→ reply → arm timers, ask bots → commit the offsets. A room whose append finds
a newer head is reloaded and its commands go through the same pipeline again.

Action ids: an id is bound to a move only when the move is applied (stored
with its events). A refused move binds nothing, so a retry with the same id is
judged again on the room as it is then — the same answer on every owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener

from hand_engine import RuleViolation
from hand_common.rule_messages import shown_params
from hand_infra.broker_watch import PastEndCheck, retire_consumer
from hand_infra.eventstore import DuplicateAction, EventStore, EventStoreError
from hand_infra.outbox import OutboxRelay
from hand_infra.settings import KafkaSettings
from hand_infra.sqlstore import log_failure, unreachable
from hand_infra.topics import BOT_REQUESTS, ROOM_COMMANDS, ROOM_REPLIES

from .admission import Admission
from hand_common.tracing import start_span

from . import metrics as M
from .domain import ChatSent, MoveMade, SeatAway, Room, decode, encode
from .domain.command_codec import decode_command
from .domain.commands import Act, BotTurn, Command
from .domain.decide import Decision, decide
from .domain.errors import RoomCode, RoomError
from .feeds import Feeds
from .index import RoomIndex
from .local_queue import LocalQueue
from .kafka_messages import Reply, encode_reply
from .partitions import partition_of
from .publish import values
from .ownership import OwnershipMap
from .presence import PresenceTracker
from .turns import TurnTimers
from .repository import RoomRepository
from .rules_port import RulesPort
from .store_budget import StoreBudget

log = structlog.get_logger("hand_room.owner")
MAX_ATTEMPTS = 3
#: how often finished and expired rooms are dropped from memory
SWEEP_S = 30.0


def action_key(cmd: Command) -> str | None:
    """Client action ids are per seat: the stored key is ``<seat>:<action id>``."""
    return f"{cmd.seat}:{cmd.action_id}" if cmd.action_id and cmd.seat is not None else None


class _Listener(ConsumerRebalanceListener):
    def __init__(self, owner: "RoomOwner") -> None:
        self.owner = owner
        self.active = True  # False once its consumer is replaced (reconnect)

    async def on_partitions_revoked(self, revoked) -> None:
        # During a broker outage the old group is gone: keep deciding the rooms in-process
        # until the new assignment says otherwise (the store's unique seq refuses a fork).
        if self.active and self.owner.broker_up():
            self.owner._revoke({tp.partition for tp in revoked})

    async def on_partitions_assigned(self, assigned) -> None:
        if self.active:
            await self.owner._assign({tp.partition for tp in assigned})


@dataclass
class _Planned:
    cmd: Command
    base: int
    decision: Decision
    key: str | None
    before: Room | None


@dataclass
class _Batch:
    planned: list[_Planned] = field(default_factory=list)
    redo: dict[str, list[Command]] = field(default_factory=dict)
    # refusals decided after a keyed command of the same room in this pass: that command may
    # turn out a retry (its append says DuplicateAction), and then they were decided on a room
    # that is not; they are answered after the append, or decided again
    held: dict[str, list[tuple[Command, Exception]]] = field(default_factory=dict)


class RoomOwner:
    def __init__(self, store: EventStore, index: RoomIndex, settings: KafkaSettings,
                 rules: RulesPort, relay: OutboxRelay | None, *, ownership: OwnershipMap,
                 group_id: str = "hand-room-owners",
                 away_after_timeouts: int = 2, bot_grace_s: float = 5.0,
                 topics: dict[str, str] | None = None, repo: RoomRepository | None = None,
                 feeds: "Feeds | None" = None, store_timeout_s: float = 1.0, presence_grace_s: float = 10.0,
                 watch=None, admission: Admission | None = None, stale_after_s: float = 10.0) -> None:
        self.store, self.index, self.settings, self.rules, self.relay = store, index, settings, rules, relay
        self.group_id = group_id
        self.away_after = away_after_timeouts
        self.bot_grace_s = bot_grace_s
        self.store_timeout_s = store_timeout_s  # one batch's reads and append together (fail fast)
        t = topics or {}
        self.t_commands = t.get("commands", ROOM_COMMANDS)
        self.t_replies = t.get("replies", ROOM_REPLIES)
        self.t_bots = t.get("bots", BOT_REQUESTS)
        self.repo = repo or RoomRepository(store)
        self.feeds = feeds
        self.ownership = ownership
        self.owned: set[int] = set()
        self.in_group = False  # holds its assignment: not between a revocation and the next one (readiness)
        self.version = 0  # bumped when ``owned`` changes
        self.partitions = settings.partitions
        self.timers = TurnTimers(repo=self.repo, store=store, fire=self.submit, owns=self.owns, ask=self._ask_bot,
                                 away_after=away_after_timeouts, bot_grace_s=bot_grace_s,
                                 store_timeout_s=store_timeout_s)
        self.presence = PresenceTracker(self.submit, presence_grace_s)
        self._consumer: AIOKafkaConsumer | None = None
        self._listener: _Listener | None = None
        self._replace_owned = False  # the first assignment after a reconnect replaces `owned`
        self.watch = watch  # a hand_infra.broker_watch.BrokerWatch: outages
        self._producer: AIOKafkaProducer | None = None
        self._task: asyncio.Task | None = None
        self.admission = admission or Admission()
        self.local = LocalQueue(self.handle, lambda cmd, exc: self._reply(cmd, self._refusal(cmd, exc)),
                                self.admission)
        self.stale_after_s = stale_after_s  # a forwarded command older than its caller's timeout
        self._pass = asyncio.Lock()
        self.processed = 0

    # ---------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        self._producer = AIOKafkaProducer(**self.settings.producer_kwargs())
        await self._producer.start()
        self._consumer = self._new_consumer()
        self._listener = _Listener(self)
        self._consumer.subscribe([self.t_commands], listener=self._listener)
        await self._consumer.start()
        parts = self._consumer.partitions_for_topic(self.t_commands)
        if parts:
            self.partitions = self.ownership.partitions = len(parts)
        self._task = asyncio.create_task(self._run(), name="room-owner")
        self._sweeper = asyncio.create_task(self._sweep(), name="room-sweep")

    def _new_consumer(self) -> AIOKafkaConsumer:
        """A member of the owners' group that learns the whole ownership map (ownership.py)."""
        return AIOKafkaConsumer(**self.settings.consumer_kwargs(self.group_id),
                                partition_assignment_strategy=(self.ownership.assignor(),))

    async def _ask_bot(self, room_id: str, value: bytes) -> None:
        await self._producer.send(self.t_bots, key=room_id.encode(), value=value)

    def broker_up(self) -> bool:
        return self.watch is None or self.watch.up

    async def reconnect(self) -> None:
        """After a broker outage (hand_infra.broker_watch): a new consumer in a new group
        session, so positions come from the group's commits or the start of a re-created
        topic, never from offsets the broker lost. The rooms owned so far stay decided
        in-process until the new assignment replaces them (a second owner meanwhile is
        refused by the store's unique seq); they are reloaded on assignment."""
        await retire_consumer(self._task, self._listener, self._consumer)
        self._replace_owned = True
        self.in_group = False
        self._consumer = self._new_consumer()
        self._listener = _Listener(self)
        self._consumer.subscribe([self.t_commands], listener=self._listener)
        await self._consumer.start()
        self._task = asyncio.create_task(self._run(), name="room-owner")
        log.info("owner_reconnected")

    async def _sweep(self) -> None:
        """Memory follows the rooms in play: every SWEEP_S, finished rooms and rooms whose
        wait expired leave the cache, their timers and presence counts (their log stays)."""
        while True:
            await asyncio.sleep(SWEEP_S)
            now = time.time()
            M.ROOMS_LIVE.set(len(self.repo.rooms()))
            M.ROOMS_OWNED.set(sum(1 for r in self.repo.rooms() if self.owns(r.room_id)))
            done = {r.room_id for r in self.repo.rooms() if r.status == "finished" or r.expired_at(now)}
            if done:
                self.repo.forget_where(done.__contains__)
                self.timers.cancel(done.__contains__)
                self.presence.forget(done.__contains__)
                log.info("rooms_retired", rooms=len(done))

    async def stop(self) -> None:
        if getattr(self, "_sweeper", None) is not None:
            self._sweeper.cancel()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.timers.stop()
        if self._consumer is not None:
            await self._consumer.stop()
        if self._producer is not None:
            await self._producer.stop()

    # ---------------------------------------------------------------- ownership
    def _revoke(self, parts: set[int]) -> None:
        self.in_group = False
        self.owned -= parts
        self.version += 1

        def gone(room_id: str) -> bool:
            return partition_of(room_id, self.partitions) in parts

        self.timers.cancel(gone)
        self.presence.forget(gone)
        self.repo.forget_where(gone)
        log.info("partitions_revoked", partitions=sorted(parts))

    async def _assign(self, parts: set[int]) -> None:
        if self._replace_owned:
            self._replace_owned = False
            if self.owned - parts:
                self._revoke(self.owned - parts)
        self.owned |= parts
        self.in_group = True
        self.version += 1
        rearmed = 0
        for room_id in await self.index.active():
            if partition_of(room_id, self.partitions) in parts:
                room = await self.repo.get(room_id, fresh=True)
                if room is not None:
                    self.timers.arm(room)
                    rearmed += 1
        log.info("partitions_assigned", partitions=sorted(parts), rooms=rearmed)

    # ---------------------------------------------------------------- loop
    async def _run(self) -> None:
        while True:
            try:
                await self._poll()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # e.g. the broker went away mid-commit: keep the loop
                log.warning("owner_poll_failed", error=type(exc).__name__)
                await asyncio.sleep(0.5)

    async def _poll(self) -> None:
        assert self._consumer is not None
        past_end = PastEndCheck()  # a broker restarted between two probes of the watch
        while True:
            await past_end(self._consumer)
            batch = await self._consumer.getmany(timeout_ms=200, max_records=1000)
            if not batch:
                continue
            by_room: dict[str, list[Command]] = {}
            for msgs in batch.values():
                for msg in msgs:
                    try:
                        cmd = decode_command(msg.value)
                    except Exception:
                        log.warning("bad_command_dropped", offset=msg.offset, partition=msg.partition)
                        continue
                    if not self.presence.admit(cmd):
                        continue  # one more (or one fewer) stream of a seat: counted only
                    if cmd.reply_to and time.time() - cmd.sent_at > self.stale_after_s:
                        await self._reply(cmd, self._refusal(cmd, RoomError(  # its caller gave up
                            RoomCode.OVERLOADED, "too late", limit="queue_delay", retry_after_ms=1000)))
                        continue
                    by_room.setdefault(cmd.room_id, []).append(cmd)
            await self.handle(by_room)
            await self._consumer.commit()

    async def handle(self, by_room: dict[str, list[Command]]) -> None:
        """Apply each room's commands in order; retry a room whose head moved."""
        for attempt in range(MAX_ATTEMPTS):
            if not by_room:
                return
            try:
                by_room = await self._process(by_room)
            except Exception as exc:  # a failed transaction: nothing was written; try room by room
                log_failure(log, "batch_failed", exc, rooms=len(by_room))
                if isinstance(exc, TimeoutError):  # the append may have landed: read the rooms back
                    for room_id in by_room:
                        self.repo.forget(room_id)
                if len(by_room) == 1 or unreachable(exc):  # the store is down: every room would fail
                    await self._refuse_all(by_room, RoomError(RoomCode.ROOM_UNAVAILABLE,
                                                              "the room could not be saved", retry_after_ms=1000))
                    return
                for room_id, cmds in by_room.items():
                    await self.handle({room_id: cmds})
                return
        await self._refuse_all(by_room, RoomError(RoomCode.ROOM_UNAVAILABLE, "room is busy; retry",
                                                  retry_after_ms=200))

    async def _refuse_all(self, by_room: dict[str, list[Command]], exc: RoomError) -> None:
        """Refuse commands nothing could be saved for. A client retries its own; a bot's
        answer or a timer's has nobody to retry it, so the room's turn is armed again."""
        for room_id, cmds in by_room.items():
            for cmd in cmds:
                await self._reply(cmd, self._refusal(cmd, exc))
            if not self.owns(room_id):
                continue
            room = self.repo.cached(room_id)
            if room is not None:
                self.timers.rearm_soon(room)
            else:  # forgotten after a store timeout: read it back first
                self.timers.rearm_from_store(room_id)

    async def _process(self, by_room: dict[str, list[Command]]) -> dict[str, list[Command]]:
        """One pass; returns the commands of the rooms to redo (their head moved). Passes run
        one at a time (a Kafka batch and an in-process batch never decide on the same room
        at once); commands arriving meanwhile wait for the next pass — the group commit."""
        async with self._pass:
            return await self._process_locked(by_room)

    async def _process_locked(self, by_room: dict[str, list[Command]]) -> dict[str, list[Command]]:
        budget = StoreBudget(self.store_timeout_s)  # cold loads and the append share it
        # No action-id lookup before deciding: the append finds a retried id in its own
        # transaction (DuplicateAction: the first seqs are answered, nothing is written), and a
        # refused command looks its id up then (_answered_before). One store read less a pass.
        rooms = await budget.call(self._rooms(list(by_room)))
        batch = _Batch()
        await asyncio.gather(*(self._plan(r, cmds, batch, rooms[r]) for r, cmds in by_room.items()))
        items = [(p.cmd.room_id, p.base, [(e.kind, encode(e)) for e in p.decision.events], p.key)
                 for p in batch.planned]
        began = time.perf_counter()
        with start_span("room.append", commands=len(items)):
            results = await budget.call(self.store.append_batch(items)) if items else []
        if items:
            M.STORE_APPEND.observe(time.perf_counter() - began)
            M.BATCH_SIZE.observe(len(items))
        touched: dict[str, Room] = {}
        published: list = []
        listed: dict[str, Room] = {}  # rooms whose listing changed: one index transaction
        replies: list[tuple[Command, Reply]] = []
        retried: set[str] = set()  # rooms where a planned command was a retry (DuplicateAction)
        for p, res in zip(batch.planned, results, strict=True):
            room_id = p.cmd.room_id
            if room_id in batch.redo:
                batch.redo[room_id].append(p.cmd)
            elif isinstance(res, DuplicateAction):
                await self._duplicate(p.cmd, res.seqs)
                retried.add(room_id)
            elif isinstance(res, EventStoreError):
                log.warning("stale_owner_reload", room_id=room_id)
                self.repo.forget(room_id)
                batch.redo[room_id] = [p.cmd]
            else:
                room = p.decision.room
                self.repo.put(room)
                if self.feeds is not None:  # this instance's streams see it before the topic does
                    for rec, after in zip(p.decision.events, p.decision.rooms, strict=True):
                        self.feeds.offer(rec, after, trusted=True)
                if not all(isinstance(rec.event, ChatSent) for rec in p.decision.events):
                    touched[room_id] = room  # chat alone re-arms no timer and asks no bot again
                published.extend(p.decision.events)
                for rec in p.decision.events:
                    if isinstance(rec.event, SeatAway):
                        M.BOT_TAKEOVERS.labels(rec.event.reason).inc()
                if p.before is None or _listing(p.before) != _listing(room):
                    listed[room_id] = room
                refusal = p.decision.refusal
                replies.append((p.cmd, self._refusal(p.cmd, refusal) if refusal is not None else Reply(
                    p.cmd.command_id, p.cmd.reply_to, True, tuple(res), seat=p.decision.seat)))
        for room_id, held in batch.held.items():
            if room_id in retried or room_id in batch.redo:  # decided on a room that is not: again
                batch.redo.setdefault(room_id, []).extend(cmd for cmd, _ in held)
            else:
                replies.extend((cmd, self._refusal(cmd, exc)) for cmd, exc in held)
        try:  # before the replies: a room a client was told of is found by its code
            await self.index.upsert_many(list(listed.values()))
        except Exception as exc:  # a projection: the room's next listing change repairs it
            log_failure(log, "index_update_failed", exc, rooms=len(listed))
        for cmd, reply in replies:
            await self._reply(cmd, reply)
        if published and self.relay is not None:  # sent now; the outbox stays the safety net
            self.relay.publish_direct([(rec.room_id, rec.seq, values(rec)) for rec in published])
        for room in touched.values():
            self.timers.arm(room)
        self.processed += sum(len(c) for c in by_room.values()) - sum(len(c) for c in batch.redo.values())
        return batch.redo

    async def _rooms(self, room_ids: list[str]) -> dict[str, Room | None]:
        """The batch's rooms: cached, or folded from the store (the cold ones at once)."""
        return dict(zip(room_ids, await asyncio.gather(*(self.repo.get(r) for r in room_ids)), strict=True))

    async def _plan(self, room_id: str, cmds: list[Command], batch: _Batch, room: Room | None) -> None:
        """Decide one room's commands in order against the in-memory room."""
        seen: set[str] = set()
        keyed = False  # a command with an action id is planned before: it may be a retry
        for i, cmd in enumerate(cmds):
            key = action_key(cmd)
            with structlog.contextvars.bound_contextvars(room_id=room_id, seat=cmd.seat,
                                                         command=type(cmd.body).__name__):
                if key is not None and key in seen:  # its first try is in this batch: redo after it
                    batch.redo.setdefault(room_id, []).extend(cmds[i:])
                    return
                try:
                    d = await decide(room, cmd, time.time(), self.rules)
                except (RoomError, RuleViolation) as exc:
                    if key is not None and await self._answered_before(cmd, key):
                        continue  # a retry of a move applied before: its first result was sent
                    if keyed:
                        batch.held.setdefault(room_id, []).append((cmd, exc))
                        continue
                    log.info("command_refused", code=_code(exc))
                    await self._reply(cmd, self._refusal(cmd, exc))
                    if _code(exc) == RoomCode.ROOM_UNAVAILABLE.value and room is not None:
                        self.timers.rearm_soon(room)  # a timer or a bot turn must not be lost
                    continue
                except Exception as exc:
                    log.error("command_failed", error=type(exc).__name__)
                    await self._reply(cmd, self._refusal(cmd, RoomError(RoomCode.INTERNAL, "internal error")))
                    if room is not None:
                        self.timers.rearm_soon(room)
                    continue
                if not d.events:
                    if isinstance(cmd.body, BotTurn):  # a later move, or the seat taken back
                        log.info("bot_answer_dropped", turn_no=cmd.body.turn_no, asked_seq=cmd.body.asked_seq,
                                 seq=room.seq if room is not None else None)
                    await self._reply(cmd, Reply(cmd.command_id, cmd.reply_to, True, seat=d.seat))
                    continue
                batch.planned.append(_Planned(cmd, room.seq if room is not None else 0, d, key, room))
                if key is not None:
                    seen.add(key)
                    keyed = True
                room = d.room

    async def _answered_before(self, cmd: Command, key: str) -> bool:
        """A refused command whose action id was applied before (a client's retry of a move
        the room has since moved past): answer the first result instead of the refusal."""
        try:
            seqs = await asyncio.wait_for(self.store.lookup_action(cmd.room_id, key), self.store_timeout_s)
        except Exception as exc:
            log_failure(log, "action_lookup_failed", exc, room_id=cmd.room_id)
            return False
        if seqs is None:
            return False
        await self._duplicate(cmd, seqs)
        return True

    async def _duplicate(self, cmd: Command, seqs: list[int]) -> None:
        """A retried action id: the first result, unless the id now names another move."""
        first = [decode(e.payload) for e in await self.store.load(cmd.room_id, seqs[0], limit=len(seqs))]
        done = next((r.event.action for r in first if isinstance(r.event, MoveMade)
                     and r.event.origin == "player"), None)
        if isinstance(cmd.body, Act) and done is not None and done != cmd.body.action:
            await self._reply(cmd, self._refusal(cmd, RoomError(
                RoomCode.ACTION_ID_REUSED, "that action id was used for another move", field="action_id")))
            return
        await self._reply(cmd, Reply(cmd.command_id, cmd.reply_to, True, tuple(seqs), duplicate=True))

    @staticmethod
    def _refusal(cmd: Command, exc: Exception) -> Reply:
        M.REFUSALS.labels(_code(exc)).inc()
        return Reply(cmd.command_id, cmd.reply_to, False, code=_code(exc),
                     params=shown_params(getattr(exc, "params", {})))

    # ---------------------------------------------------------------- the short path
    def owns(self, room_id: str) -> bool:
        """This instance holds the room's partition: its gateway may decide in-process."""
        return partition_of(room_id, self.partitions) in self.owned

    def admit(self, body: object) -> None:
        """OVERLOADED for a client's command (its body) while the in-process queue is past
        its bounds."""
        self.local.admit(body)

    async def submit(self, cmd: Command) -> Reply:
        """Apply ``cmd`` here, without a Kafka round trip: the same pipeline as a batch from
        hand.room-commands (the event store's unique seq keeps the two apart), grouped with
        the commands submitted meanwhile (``local_queue.py``)."""
        if not self.presence.admit(cmd):
            return Reply(cmd.command_id, cmd.reply_to, True, seat=cmd.seat)
        return await self.local.submit(cmd)

    @property
    def local_commands(self) -> int:
        return self.local.commands

    async def _reply(self, cmd: Command, reply: Reply) -> None:
        if self.local.resolve(cmd, reply):
            return
        if not cmd.reply_to or self._producer is None:
            return
        try:
            await self._producer.send(self.t_replies, key=cmd.reply_to.encode(), value=encode_reply(reply))
        except Exception:
            log.exception("reply_failed", room_id=cmd.room_id)


def _code(exc: Exception) -> str:
    return exc.code if isinstance(exc, RoomError) else exc.code.value


def _listing(room: Room) -> tuple:
    """What the room index shows; unchanged by ordinary moves."""
    return (room.status, len(room.free_seats()), room.public, room.code)
