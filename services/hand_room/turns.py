"""The owner's turn keeping: a timer per room whose turn is running, and a bot request
when a bot controls the turn. A collaborator of ``RoomOwner``: it fires its commands
into the owner's command path (``fire``: ``command_path.py``), only for rooms the owner holds (a
new owner re-arms every timer of its partitions), and asks bots through ``ask``.

Bounded: one timer and at most one read-back per room, so a slow store cannot turn
re-arms into a storm."""

from __future__ import annotations

import asyncio
import time

import structlog

from hand_common.background import Background
from hand_infra.sqlstore import log_failure

from hand_table import MoveMade, Room, RoundDealt, Command, TurnTimeout
from hand_wire import decode, bot_request
from collections.abc import Awaitable, Callable

from .metrics import TIMERS_ARMED, TURN_TIMEOUTS
from .repository import RoomRepository

log = structlog.get_logger("hand_room.owner")

#: after a bot request could not be sent, how long before it is sent again
ASK_AGAIN_S = 1.0


class TurnTimers:
    def __init__(self, *, repo: RoomRepository, store, fire: Callable[[Command], Awaitable[object]],
                 owns: Callable[[str], bool], ask: Callable[[str, bytes], Awaitable[None]],
                 away_after: int, bot_grace_s: float = 5.0, store_timeout_s: float) -> None:
        self.repo, self.store, self._fire, self.owns, self._ask = repo, store, fire, owns, ask
        self.away_after, self.bot_grace_s, self.store_timeout_s = away_after, bot_grace_s, store_timeout_s
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._bot_asked: dict[str, tuple] = {}
        self._reading: set[str] = set()  # rooms being read back from the store (one each)
        self._tasks = Background("turn_timers")  # fired timeouts, bot requests, read-backs

    @property
    def armed(self) -> int:
        return len(self._timers)

    def cancel(self, gone: Callable[[str], bool]) -> None:
        """Drop the timers of rooms no longer owned here (``gone(room_id)``)."""
        for room_id in [r for r in list(self._timers) if gone(r)]:
            self._timers.pop(room_id).cancel()
        for room_id in [r for r in list(self._bot_asked) if gone(r)]:
            del self._bot_asked[room_id]

    async def stop(self) -> None:
        """No timer fires from now on, and what they started has ended (before the store closes)."""
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        await self._tasks.stop()

    def arm(self, room: Room) -> None:
        self._arm(room)
        TIMERS_ARMED.set(len(self._timers))

    def _arm(self, room: Room) -> None:
        """Arm the turn timer and ask for a bot move when a bot controls the turn."""
        handle = self._timers.pop(room.room_id, None)
        if handle:
            handle.cancel()
        seat = room.seat_to_move()
        if seat is None:
            return
        r = room.round
        bot = room.bot_controls(seat)
        wait = room.turn_seconds + (self.bot_grace_s if bot else 0.0)
        delay = max(0.0, room.turn_started_at + wait - time.time())
        self._set_timer(room, delay)
        if bot:
            ask = (r.round_no, r.turn_no, r.turn.phase, room.game_seq)  # chat asks nothing again
            if self._bot_asked.get(room.room_id) != ask:
                self._bot_asked[room.room_id] = ask
                self._tasks.spawn(self._ask_bot(room, seat))

    def _set_timer(self, room: Room, delay: float) -> None:
        """The turn's timeout in ``delay`` s; its command is made when it fires (almost every
        timer is cancelled by the next move first)."""
        r = room.round
        self._timers[room.room_id] = asyncio.get_running_loop().call_later(
            delay, self._time_out, room.room_id, TurnTimeout(r.round_no, r.turn_no, self.away_after))

    def _time_out(self, room_id: str, timeout: TurnTimeout) -> None:
        self._tasks.spawn(self.send_command(Command(room_id, timeout)))

    def rearm_soon(self, room: Room, delay: float = 1.0) -> None:
        """After a failure (rules service or store down): try the turn's timer again soon,
        and ask the bot again, so a room nobody acts in does not freeze."""
        seat = room.seat_to_move()
        if seat is None:
            return
        handle = self._timers.pop(room.room_id, None)
        if handle:
            handle.cancel()
        self._set_timer(room, max(delay, room.turn_started_at + room.turn_seconds - time.time()))
        if room.bot_controls(seat):
            self._bot_asked.pop(room.room_id, None)
            asyncio.get_running_loop().call_later(delay, self._ask_again, room)

    def rearm_from_store(self, room_id: str) -> None:
        if room_id not in self._reading:
            self._reading.add(room_id)
            self._tasks.spawn(self._read_back(room_id))

    async def _read_back(self, room_id: str, delay: float = ASK_AGAIN_S) -> None:
        """A room the owner forgot (a store timeout: its append may have landed) whose turn
        has nobody to retry it: read it back from the store, then arm its turn again; while
        the store cannot answer, try again, waiting twice as long each time (at most 10 s)."""
        try:
            while self.owns(room_id):
                await asyncio.sleep(delay)
                try:
                    room = await asyncio.wait_for(self.repo.get(room_id, fresh=True), self.store_timeout_s)
                except Exception as exc:
                    log_failure(log, "rearm_read_failed", exc, room_id=room_id)
                    delay = min(2 * delay, 10.0)
                    continue
                if room is not None and self.owns(room_id):
                    self.rearm_soon(room, delay=0.0)
                return
        finally:
            self._reading.discard(room_id)

    def _ask_again(self, room: Room) -> None:
        current = self.repo.cached(room.room_id)
        if current is not None and current.game_seq == room.game_seq and self.owns(room.room_id):
            self.arm(current)

    async def _ask_bot(self, room: Room, seat: int) -> None:
        try:
            history = await self._round_history(room)
            value = bot_request(room.room_id, room.round, seat, room.seats[seat].bot_level or "beginner",
                                room.seq, history)
            await self._ask(room.room_id, value)
            log.debug("bot_asked", room_id=room.room_id, seat=seat, round_no=room.round.round_no,
                      turn_no=room.round.turn_no, seq=room.seq)
        except Exception as exc:  # the store or the broker away: ask again soon, or the turn waits for its timer
            log_failure(log, "bot_request_failed", exc, room_id=room.room_id, seat=seat)
            asked = self._bot_asked.get(room.room_id)
            if asked is not None and asked[-1] == room.game_seq:  # still the room's latest ask
                del self._bot_asked[room.room_id]
            asyncio.get_running_loop().call_later(ASK_AGAIN_S, self._ask_again, room)

    async def _round_history(self, room: Room) -> list:
        """The current round's engine events, from its deal on (the store's tail)."""
        out: list = []
        for ev in await self.store.load(room.room_id, room.round_seq):
            rec = decode(ev.payload)
            if isinstance(rec.event, (RoundDealt, MoveMade)):
                out.extend(rec.event.events)
        return out

    async def send_command(self, cmd: Command) -> None:
        """A timer's command, to the owner's command path, in-process (so turns go on while the
        broker is away); dropped if the room moved meanwhile (its new owner re-armed it)."""
        if self.owns(cmd.room_id):
            TURN_TIMEOUTS.inc()
            await self._fire(cmd)
