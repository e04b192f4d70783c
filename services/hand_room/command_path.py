"""The command path: how a room's command is decided and stored on its owner.

``submit`` (a command of this instance: its router's, its timers', its presence
tracker's) waits here for the next pass, with the commands submitted meanwhile —
the group commit: commands arriving while a pass writes form the next one (one
transaction, one fsync); an idle path lingers ``linger_s`` first while commands come
that often (decision 0045) — and its caller awaits its own reply. ``handle`` is the
same pass for a batch from ``hand.room-commands`` (``owner.py`` consumes it).
Bounded (``admission.py``): past ``max_pending`` waiting commands or ``max_delay``
of the oldest one's wait, a client's command is refused at once; a pass takes at
most ``MAX_PASS`` commands, so it fits the store's time budget.

The pass, per room, in order: decide (``hand_table.decide``: pure + rules) →
append every room's events in one transaction with their outbox rows
(``hand_infra/eventstore.py``: the unique ``(room_id, seq)`` stops a stale owner
from forking a room) → reply → hand the events to the outbox relay
(``hand_infra/outbox.py``: ``hand.room-events``, read by the ledger) → arm
timers, ask bots. A room whose append finds a newer head is reloaded and its
commands go through the pass again.

Action ids: an id is bound to a move only when the move is applied (stored
with its events). A refused move binds nothing, so a retry with the same id is
judged again on the room as it is then — the same answer on every owner.

Kept whole (about 430 lines): the queue and the pass are one path, read top to
bottom from ``submit`` to the reply — the queue is only the pass's input, and the
pass is one sequence (decide, append, settle each result, reply, publish, arm)
over one batch's state; split, a newcomer following a command would open both,
and each step would take the batch and the path's state apart. The owner
(``owner.py``: partitions, the consumer of ``hand.room-commands``, sweeps)
composes it and is not on the path.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import structlog

from hand_common import tracing
from hand_common.logging import bound_context
from hand_common.rule_messages import shown_params
from hand_common.tracing import record_span, start_span
from hand_engine import RuleViolation
from hand_infra.eventstore import DuplicateAction, EventStore, EventStoreError
from hand_infra.outbox import OutboxRelay
from hand_infra.sqlstore import log_failure, unreachable
from hand_table import (
    ChatSent, MoveMade, Room, SeatAway, Act, BotTurn, Command, Decision, decide, RoomCode, RoomError,
)
from hand_wire import decode, encode, Reply, encode_reply, topic_values

from . import metrics as M
from .admission import Admission
from .feeds import Feeds
from .index import RoomIndex
from .repository import RoomRepository
from .rules_port import RulesPort
from .status import rule_error
from .store_budget import StoreBudget
from .turns import TurnTimers

log = structlog.get_logger("hand_room.owner")
MAX_ATTEMPTS = 3
#: in-process commands decided and appended in one pass (one transaction)
MAX_PASS = 256
#: weight of the newest gap between two commands in their running mean (about the last ten)
GAP_WEIGHT = 0.2


def action_key(cmd: Command) -> str | None:
    """Client action ids are per seat: the stored key is ``<seat>:<action id>``."""
    return f"{cmd.seat}:{cmd.action_id}" if cmd.action_id and cmd.seat is not None else None


@dataclass
class _Planned:
    cmd: Command
    base: int
    decision: Decision
    key: str | None
    before: Room | None


@dataclass
class _Batch:
    budget: StoreBudget  # the pass's time on the store
    planned: list[_Planned] = field(default_factory=list)
    redo: dict[str, list[Command]] = field(default_factory=dict)
    # refusals decided after a keyed command of the same room in this pass: that command may
    # turn out a retry (its append says DuplicateAction), and then they were decided on a room
    # that is not; they are answered after the append, or decided again
    held: dict[str, list[tuple[Command, Exception]]] = field(default_factory=dict)


class CommandPath:
    """See the module doc. ``owns``: whether this instance holds a room (the owner's
    partitions); ``gate``: whether a command goes on to its room (the presence tracker's
    ``admit``: a second stream of a seat only counts); ``producer``: the owner's Kafka
    producer while it runs (replies to forwarded commands on ``t_replies``); ``linger_s``: how
    long an idle path waits for more commands before a pass while commands come closer than
    that on average (0, or further apart: only those of the same loop iteration join)."""

    def __init__(self, *, store: EventStore, index: RoomIndex, repo: RoomRepository, rules: RulesPort,
                 relay: OutboxRelay | None, feeds: Feeds | None, timers: TurnTimers, admission: Admission,
                 store_timeout_s: float, owns: Callable[[str], bool], gate: Callable[[Command], bool],
                 t_replies: str, linger_s: float = 0.0) -> None:
        self.store, self.index, self.repo, self.rules, self.relay, self.feeds = store, index, repo, rules, relay, feeds
        self.timers, self.admission, self.owns, self.gate = timers, admission, owns, gate
        self.store_timeout_s = store_timeout_s  # one batch's reads and append together (fail fast)
        self.t_replies = t_replies
        self.linger_s = linger_s  # an idle path's wait for company before a pass (HAND_ROOM_PASS_LINGER_MS)
        self.producer: Any = None  # an AIOKafkaProducer while the owner runs
        self._pass = asyncio.Lock()
        self._futures: dict[str, asyncio.Future] = {}  # command id → its in-process caller's reply
        self._waiting: list[Command] = []
        self._enqueued: collections.deque[float] = collections.deque()  # when each was queued
        self._flusher: asyncio.Task | None = None
        # the mean gap between commands (an exponential average, capped at 1 s a gap): the
        # path lingers only where a companion within the linger is likely
        self._gap_s, self._last_arrival = 1.0, time.monotonic()
        self.commands = self.batches = 0  # in-process commands, and their passes
        self.processed = 0

    # ---------------------------------------------------------------- in-process commands
    def admit(self, body: object) -> None:
        """OVERLOADED for a client's command (its body) while the queue is past its bounds."""
        self.admission.check(body, len(self._waiting), self._enqueued[0] if self._enqueued else None)

    async def submit(self, cmd: Command) -> Reply:
        """Apply ``cmd`` here, without a Kafka round trip: the same pass as a batch from
        hand.room-commands (the event store's unique seq keeps the two apart), grouped with
        the commands submitted meanwhile."""
        if not self.gate(cmd):
            return Reply(cmd.command_id, cmd.reply_to, True, seat=cmd.seat)
        self.admit(cmd.body)
        if cmd.trace is None and tracing.enabled():  # the caller's trace goes on with its command
            cmd = dataclasses.replace(cmd, trace=tracing.current())
        fut = asyncio.get_running_loop().create_future()
        self._futures[cmd.command_id] = fut
        self._waiting.append(cmd)
        now = time.monotonic()
        self._enqueued.append(now)
        self._gap_s += GAP_WEIGHT * (min(now - self._last_arrival, 1.0) - self._gap_s)
        self._last_arrival = now
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.ensure_future(self._flush())
        try:
            return await fut
        finally:
            self._futures.pop(cmd.command_id, None)

    async def drain(self, within_s: float) -> None:
        """Let the in-process passes under way end — their commits answered — before the
        store closes; at most ``within_s`` s (a pass is bounded by the store timeout). Never
        cancelled: its callers wait on it, and during a graceful stop they are still served."""
        flusher = self._flusher
        if flusher is None or flusher.done():
            return
        done, _ = await asyncio.wait({flusher}, timeout=within_s)
        if not done:
            log.warning("pass_still_running_at_stop", waited_s=within_s)

    async def _flush(self) -> None:
        # An idle path lingers while commands come often enough that another is likely to
        # arrive meanwhile and share the pass — its transaction, its publish, and the loop's
        # wake-ups for the replies and the streams, which cost more than the move
        # (docs/decisions/0045). Busy, the passes follow each other without it; quiet (the
        # mean gap past the linger), a lone command would wait for nothing.
        await asyncio.sleep(self.linger_s if self._gap_s < self.linger_s else 0)
        while self._waiting:
            batch, self._waiting = self._waiting[:MAX_PASS], self._waiting[MAX_PASS:]
            received = self._enqueued[0]  # the oldest's wait counts against the store timeout
            for _ in batch:
                self._enqueued.popleft()
            by_room: dict[str, list[Command]] = {}
            for cmd in batch:
                by_room.setdefault(cmd.room_id, []).append(cmd)
            self.commands += len(batch)
            self.batches += 1
            try:
                await self.handle(by_room, received)
            except Exception as exc:  # never leave a caller waiting
                log.error("local_batch_failed", error=type(exc).__name__, commands=len(batch))
                for cmd in batch:
                    await self.refuse(cmd, RoomError(RoomCode.INTERNAL, "internal error"))

    async def refuse(self, cmd: Command, exc: Exception) -> None:
        """Answer ``cmd`` with the refusal ``exc`` (nothing decided, nothing stored)."""
        await self._reply(cmd, self._refusal(cmd, exc))

    # ---------------------------------------------------------------- the pass
    async def handle(self, by_room: dict[str, list[Command]], received: float | None = None) -> None:
        """Apply each room's commands in order; retry a room whose head moved. ``received``:
        when the oldest command arrived (now if None); the store timeout counts from then,
        across the passes it takes (store_budget.py)."""
        if received is None:
            received = time.monotonic()
        for attempt in range(MAX_ATTEMPTS):
            if not by_room:
                return
            try:
                by_room = await self._process(by_room, received)
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
                    await self.handle({room_id: cmds}, received)
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

    async def _process(self, by_room: dict[str, list[Command]], received: float) -> dict[str, list[Command]]:
        """One pass; returns the commands of the rooms to redo (their head moved). Passes run
        one at a time (a Kafka batch and an in-process batch never decide on the same room
        at once); commands arriving meanwhile wait for the next pass — the group commit."""
        async with self._pass:  # the wait for it counts: the budget is taken after
            return await self._process_locked(by_room, StoreBudget.since(received, self.store_timeout_s))

    async def _process_locked(self, by_room: dict[str, list[Command]], budget: StoreBudget
                              ) -> dict[str, list[Command]]:
        # cold loads, the action-id lookups of refused commands and the append share the budget
        # No action-id lookup before deciding: the append finds a retried id in its own
        # transaction (DuplicateAction: the first seqs are answered, nothing is written), and a
        # refused command looks its id up then (_answered_before). One store read less a pass.
        rooms = await budget.call(self._rooms(list(by_room)))
        if self.feeds is not None:
            self.feeds.behind(rooms)
        batch = _Batch(budget)
        if len(by_room) == 1:  # the common case at human pace: no task to gather
            for r, cmds in by_room.items():
                await self._plan(r, cmds, batch, rooms[r])
        else:
            await asyncio.gather(*(self._plan(r, cmds, batch, rooms[r]) for r, cmds in by_room.items()))
        items = [(p.cmd.room_id, p.base, [(e.kind, encode(e)) for e in p.decision.events], p.key)
                 for p in batch.planned]
        began, began_ns = time.perf_counter(), time.time_ns()
        with start_span("room.append", commands=len(items)):
            try:
                results = await budget.call(self.store.append_batch(items)) if items else []
            except BaseException:
                if items and self.relay is not None:
                    self.relay.unsent()  # committed or not, nobody sends them now: the polling pass will look
                raise
        ended_ns = time.time_ns()
        if items:
            M.STORE_APPEND.observe(time.perf_counter() - began)
            M.BATCH_SIZE.observe(len(items))
        touched: dict[str, Room] = {}
        published: list = []
        listed: dict[str, Room] = {}  # rooms whose listing changed: one index transaction
        replies: list[tuple[Command, Reply]] = []
        retried: set[str] = set()  # rooms where a planned command was a retry (DuplicateAction)
        for p, item, res in zip(batch.planned, items, results, strict=True):
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
                    for rec, after, (_, stored) in zip(p.decision.events, p.decision.rooms, item[2], strict=True):
                        self.feeds.offer(rec, after, trusted=True, stored=stored)
                if not all(isinstance(rec.event, ChatSent) for rec in p.decision.events):
                    touched[room_id] = room  # chat alone re-arms no timer and asks no bot again
                published.extend((rec, p.cmd.trace, stored)  # the bytes appended, sent again where they may be
                                 for rec, (_, stored) in zip(p.decision.events, item[2], strict=True))
                if p.cmd.trace is not None:  # each command's trace shows the append it was committed in
                    record_span("room.commit", p.cmd.trace, began_ns, ended_ns, batch=len(items),
                                events=len(p.decision.events))
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
            self.relay.publish_direct([(rec.room_id, rec.seq, topic_values(rec, stored)) for rec, _, stored in published],
                                      [trace for _, trace, _ in published])
        for room in touched.values():
            self.timers.arm(room)
        self.processed += sum(len(c) for c in by_room.values()) - sum(len(c) for c in batch.redo.values())
        return batch.redo

    async def _rooms(self, room_ids: list[str]) -> dict[str, Room | None]:
        """The batch's rooms: cached, or folded from the store (the cold ones at once)."""
        if len(room_ids) == 1:
            return {room_ids[0]: await self.repo.get(room_ids[0])}
        return dict(zip(room_ids, await asyncio.gather(*(self.repo.get(r) for r in room_ids)), strict=True))

    async def _plan(self, room_id: str, cmds: list[Command], batch: _Batch, room: Room | None) -> None:
        """Decide one room's commands in order against the in-memory room."""
        seen: set[str] = set()
        keyed = False  # a command with an action id is planned before: it may be a retry
        for i, cmd in enumerate(cmds):
            key = action_key(cmd)
            with bound_context(room_id=room_id, seat=cmd.seat, command=type(cmd.body).__name__):
                if key is not None and key in seen:  # its first try is in this batch: redo after it
                    batch.redo.setdefault(room_id, []).extend(cmds[i:])
                    return
                try:
                    d = await decide(room, cmd, time.time(), self.rules)
                except (RoomError, RuleViolation) as exc:
                    if key is not None and await self._answered_before(cmd, key, batch.budget):
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

    async def _answered_before(self, cmd: Command, key: str, budget: StoreBudget) -> bool:
        """A refused command whose action id was applied before (a client's retry of a move
        the room has since moved past): answer the first result instead of the refusal."""
        try:
            seqs = await budget.call(self.store.lookup_action(cmd.room_id, key))
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
        if self.feeds is not None:  # a commit whose pass timed out was never offered to the streams
            for rec in first:
                self.feeds.offer(rec)
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

    async def _reply(self, cmd: Command, reply: Reply) -> None:
        """To its in-process caller, or on the replies topic to the instance that forwarded it."""
        fut = self._futures.get(cmd.command_id)
        if fut is not None:
            if not fut.done():
                fut.set_result(reply)
            return
        if not cmd.reply_to or self.producer is None:
            return
        try:
            await self.producer.send(self.t_replies, key=cmd.reply_to.encode(), value=encode_reply(reply, _rule_error_en))
        except Exception:
            log.exception("reply_failed", room_id=cmd.room_id)


def _rule_error_en(code: str, params: dict):
    """A refused command's ``hand.v1.RuleError`` on the replies topic (English; the gateway
    answers its caller in the caller's language)."""
    return rule_error(code, params, "en")


def _code(exc: Exception) -> str:
    return exc.code if isinstance(exc, RoomError) else exc.code.value


def _listing(room: Room) -> tuple:
    """What the room index shows; unchanged by ordinary moves."""
    return (room.status, len(room.free_seats()), room.public, room.code)
