"""The room owner: applies the commands of the rooms whose partitions of
``hand.room-commands`` this instance holds in the consumer group.

consume a batch (``hand_infra.consumer_loop``, in the owners' group, whose
assignor tells every member the whole ownership map: ``ownership.py``) → the
command path's pass (``command_path.py``: decide, append in one transaction,
reply, arm timers, ask bots) → commit the offsets. Commands of this instance's
own gateway take the short path: its router submits them to the same command
path, without the Kafka round trip; the owner composes that path (its timers,
presence tracker and partitions) and is not on it.

Ownership: partitions assigned are loaded from the room index (timers re-armed);
partitions revoked leave the cache, timers and presence counts — except during
a broker outage, when the old group is gone: the rooms are decided in-process
until the new assignment says otherwise (the store's unique seq refuses a fork).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import structlog
from aiokafka import AIOKafkaProducer

from hand_common import tracing
from hand_common.background import Background
from hand_infra.broker_port import BrokerPort, kafka_or
from hand_infra.client_lifecycle import start_client
from hand_infra.consumer_loop import ConsumerLoop
from hand_infra.eventstore import EventStore
from hand_infra.outbox import OutboxRelay
from hand_infra.settings import KafkaSettings
from hand_infra.sqlstore import log_failure
from hand_infra.topics import BOT_REQUESTS, ROOM_COMMANDS, ROOM_REPLIES
from hand_wire import decode_command, Reply
from hand_table import Command, RoomCode, RoomError

from . import metrics as M
from .admission import Admission
from .feeds import Feeds
from .index import RoomIndex
from .loop_lag import IDLE_TICK_S, LoopLag
from .ownership import OwnershipMap
from .partitions import partition_of
from .command_path import CommandPath, action_key
from .presence import PresenceTracker
from .repository import RoomRepository
from .rules_port import RulesPort
from .turns import TurnTimers

__all__ = ["RoomOwner", "action_key", "partition_of"]

log = structlog.get_logger("hand_room.owner")
#: how often finished and expired rooms are dropped from memory
SWEEP_S = 30.0


class RoomOwner:
    def __init__(self, store: EventStore, index: RoomIndex, settings: KafkaSettings,
                 rules: RulesPort, relay: OutboxRelay | None, *, ownership: OwnershipMap,
                 group_id: str, away_after_timeouts: int, bot_grace_s: float = 5.0,
                 topics: dict[str, str] | None = None, repo: RoomRepository | None = None,
                 feeds: "Feeds | None" = None, store_timeout_s: float, presence_grace_s: float,
                 watch=None, admission: Admission, stale_after_s: float, pass_linger_s: float = 0.0,
                 broker: BrokerPort | None = None) -> None:
        # group_id, away_after_timeouts, store_timeout_s, presence_grace_s, admission's bounds and
        # stale_after_s (the command timeout) come from RoomConfig (hand_room.settings): no defaults here
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
        self._released: set[int] = set()  # revoked, not yet dealt again: their rooms kept in doubt
        self.in_group = False  # holds its assignment: not between a revocation and the next one (readiness)
        self.version = 0  # bumped when ``owned`` changes
        self.partitions = settings.partitions
        self.timers = TurnTimers(repo=self.repo, store=store, fire=self.submit, owns=self.owns, ask=self._ask_bot,
                                 away_after=away_after_timeouts, bot_grace_s=bot_grace_s,
                                 store_timeout_s=store_timeout_s)
        self.presence = PresenceTracker(self.submit, presence_grace_s)
        self.broker = kafka_or(broker, settings)  # aiokafka's clients, or the in-memory broker's
        self.consumer = ConsumerLoop(settings, name="owner", topics=[self.t_commands], group_id=group_id,
                                     broker=self.broker,
                                     assignor=ownership.assignor(), on_assigned=self._on_assigned,
                                     on_revoked=self._on_revoked, handle=self._on_batch,
                                     poll_ms=200, max_records=1000, leave_first_generation=True)
        self._replace_owned = False  # the first assignment after a reconnect replaces `owned`
        self.watch = watch  # a hand_infra.broker_watch.BrokerWatch: outages
        self._producer: AIOKafkaProducer | None = None
        self._rearming = Background("owner_rearm")  # _rearm of each assignment, while it reads
        self._sweeper: asyncio.Task | None = None
        self.loop_lag = LoopLag(idle_tick_s=IDLE_TICK_S)  # admission's view of the queues before the handlers
        self.admission = admission
        if admission.lag is None:
            admission.lag = lambda: self.loop_lag.seconds
        self.commands = CommandPath(store=store, index=index, repo=self.repo, rules=rules, relay=relay, feeds=feeds,
                                    timers=self.timers, admission=admission, store_timeout_s=store_timeout_s,
                                    owns=self.owns, gate=self.presence.admit, t_replies=self.t_replies,
                                    linger_s=pass_linger_s)
        self.stale_after_s = stale_after_s  # a forwarded command older than its caller's timeout

    # ---------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        self._producer = await start_client(self.broker.producer(self.settings))  # kept once started
        self.commands.producer = self._producer  # its replies to forwarded commands
        await self.consumer.start()
        parts = self.consumer.partitions_for(self.t_commands)
        if parts:
            self.partitions = self.ownership.partitions = len(parts)
        self._sweeper = asyncio.create_task(self._sweep(), name="room-sweep")
        self.loop_lag.start()

    async def _ask_bot(self, room_id: str, value: bytes) -> None:
        if self._producer is None:  # stopped: the room's next owner asks again when it arms the turn
            return
        await self._producer.send(self.t_bots, key=room_id.encode(), value=value)

    def broker_up(self) -> bool:
        return self.watch is None or self.watch.up

    async def reconnect(self) -> None:
        """After a broker outage (hand_infra.broker_watch): a new consumer in a new group
        session, so positions come from the group's commits or the start of a re-created
        topic, never from offsets the broker lost. The rooms owned so far stay decided
        in-process until the new assignment replaces them (a second owner meanwhile is
        refused by the store's unique seq); they are reloaded on assignment."""
        await self.consumer.restart(before_start=self._replace_on_next_assignment)
        log.info("owner_reconnected")

    def _replace_on_next_assignment(self) -> None:
        self._replace_owned = True
        self.in_group = False

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
        """Leave the owners' group (the others take the rooms at once) and decide nothing
        more here. Again: nothing (a graceful stop calls it before the instance's own stop)."""
        await self.loop_lag.stop()
        if self._sweeper is not None:
            self._sweeper.cancel()
        await self._rearming.stop()
        await self.consumer.stop()
        await self.timers.stop()
        await self.commands.drain(2 * self.store_timeout_s)
        if self.owned:  # no timer or presence count of a room it no longer holds; cached copies in doubt
            self._revoke(set(self.owned))
        producer, self._producer = self._producer, None
        self.commands.producer = None
        if producer is not None:
            await producer.stop()

    # ---------------------------------------------------------------- ownership
    async def _on_revoked(self, revoked: set) -> None:
        # During a broker outage the old group is gone: keep deciding the rooms in-process
        # until the new assignment says otherwise (the store's unique seq refuses a fork).
        if self.broker_up():
            self._revoke({tp.partition for tp in revoked})

    async def _on_assigned(self, assigned: set) -> None:
        await self._assign({tp.partition for tp in assigned})

    def _revoke(self, parts: set[int]) -> None:
        self.in_group = False
        self.owned -= parts
        self.version += 1

        def gone(room_id: str) -> bool:
            return partition_of(room_id, self.partitions) in parts

        self.timers.cancel(gone)
        self.presence.forget(gone)
        # kept, in doubt: dealt back here (the eager protocol revokes every partition on each
        # rebalance) its rooms are read from their tail, not folded again; dealt elsewhere,
        # dropped on the next assignment
        self.repo.doubt_where(gone)
        self._released |= parts
        log.info("partitions_revoked", partitions=sorted(parts))

    async def _assign(self, parts: set[int]) -> None:
        if self._replace_owned:
            self._replace_owned = False
            if self.owned - parts:
                self._revoke(self.owned - parts)
        gained = parts - self.owned
        elsewhere, self._released = self._released - parts, set()
        if elsewhere:  # revoked and dealt to another instance: not kept
            self.repo.forget_where(lambda room_id: partition_of(room_id, self.partitions) in elsewhere)
        if gained:  # a copy cached while another instance owned the room (a Watch's, a GetRoom's) may be
            # behind, and the command path decides on the cache from the moment the room is owned here
            # (it refused valid moves on a rebalance under load): the room's tail is read first
            self.repo.doubt_where(lambda room_id: partition_of(room_id, self.partitions) in gained)
        self.owned |= parts
        self.in_group = True
        self.version += 1
        log.info("partitions_assigned", partitions=sorted(parts), gained=len(gained))
        self._rearming.spawn(self._rearm(parts))

    async def _rearm(self, parts: set[int]) -> None:
        """The turn timers of the held partitions' rooms, read from the store in the
        background: the consumer fetches their commands meanwhile, and a command decides
        on its room as stored either way. Until 2026-12-07 the assignment waited for every
        room (the listener holds the consumer): a take-over of 600 rooms under load decided
        nothing for 1.4–3.6 s. A room whose read fails is read back later (``turns.py``)."""
        rearmed = 0
        try:
            active = await self.index.active()
        except Exception as exc:
            log_failure(log, "rearm_list_failed", exc)
            return
        for room_id in active:
            if partition_of(room_id, self.partitions) not in parts or not self.owns(room_id):
                continue  # not ours, or no longer (revoked meanwhile)
            try:
                room = await self.repo.get(room_id, fresh=True)
            except Exception as exc:
                log_failure(log, "rearm_read_failed", exc, room_id=room_id)
                self.timers.rearm_from_store(room_id)
                continue
            if room is not None and self.owns(room_id):
                self.timers.arm(room)
                rearmed += 1
        log.info("rooms_rearmed", partitions=len(parts), rooms=rearmed)

    # ---------------------------------------------------------------- hand.room-commands
    async def _on_batch(self, batch: dict) -> None:
        """A batch of ``hand.room-commands``, grouped by room, through the command path's pass (the loop
        commits its offsets after)."""
        by_room: dict[str, list[Command]] = {}
        for msgs in batch.values():
            for msg in msgs:
                try:
                    cmd = decode_command(msg.value)
                    if msg.headers and tracing.enabled():  # the sender's trace, from the record's headers
                        cmd = replace(cmd, trace=tracing.extract(msg.headers))
                except Exception:
                    log.warning("bad_command_dropped", offset=msg.offset, partition=msg.partition)
                    continue
                M.COMMANDS.labels(type(cmd.body).__name__, "consumed").inc()
                if not self.presence.admit(cmd):
                    continue  # one more (or one fewer) stream of a seat: counted only
                if cmd.reply_to and time.time() - cmd.sent_at > self.stale_after_s:
                    await self.commands.refuse(cmd, RoomError(  # its caller gave up
                        RoomCode.OVERLOADED, "too late", limit="queue_delay", retry_after_ms=1000))
                    continue
                by_room.setdefault(cmd.room_id, []).append(cmd)
        if by_room:
            await self.commands.handle(by_room)

    # ---------------------------------------------------------------- partitions held
    def owns(self, room_id: str) -> bool:
        """This instance holds the room's partition: its gateway may decide in-process."""
        return partition_of(room_id, self.partitions) in self.owned

    async def submit(self, cmd: Command) -> Reply:
        """The owner's own commands (its timers', its presence tracker's) into the command path."""
        return await self.commands.submit(cmd)

    @property
    def local_commands(self) -> int:
        return self.commands.commands
