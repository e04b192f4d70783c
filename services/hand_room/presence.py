"""The owner's view of who is connected: every seat's open Watch streams on every
instance, counted by stream id (``PresenceCommand.stream_id``).

A seat's first stream anywhere is passed on to the room (``seat_connected``,
or ``seat_back`` for an away seat); later streams of a seat already connected
append nothing (a second device, a reload, a reconnect through another
instance). Only when a seat has no stream left anywhere, for the whole grace
time, is the room told it is gone (``seat_away``, reason disconnected, if the
match is being played). So a player with a stream open is never handed to a
bot, and 200 Watch opens of one seat append one event, not 200.

The count lives in the owner's memory. After a fail-over the new owner starts
empty; every instance announces its open streams again when the ownership map
changes (``RoomGateway``), and a seat nobody announces is left to its turn
timer (two timeouts make it away).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

import structlog

from hand_table import Command, Presence

log = structlog.get_logger("hand_room.presence")
Seat = tuple[str, int]


class PresenceTracker:
    def __init__(self, submit: Callable[[Command], Awaitable[object]], grace_s: float) -> None:
        self._submit, self.grace_s = submit, grace_s
        self._streams: dict[Seat, set[str]] = {}
        self._announced: set[Seat] = set()
        self._leaving: dict[Seat, asyncio.TimerHandle] = {}

    def streams(self, room_id: str, seat: int) -> int:
        return len(self._streams.get((room_id, seat), ()))

    def admit(self, cmd: Command) -> bool:
        """Whether ``cmd`` goes on to the room: always, but for a Presence of one stream,
        which only updates the count (True for a seat's first stream)."""
        body = cmd.body
        if not isinstance(body, Presence) or not body.stream_id or cmd.seat is None:
            return True
        key = (cmd.room_id, cmd.seat)
        if body.connected:
            self._streams.setdefault(key, set()).add(body.stream_id)
            handle = self._leaving.pop(key, None)
            if handle is not None:
                handle.cancel()
            if key in self._announced:
                return False
            self._announced.add(key)
            return True
        streams = self._streams.get(key)
        if streams is not None:
            streams.discard(body.stream_id)
        if not streams and key not in self._leaving:
            self._streams.pop(key, None)
            self._leaving[key] = asyncio.get_running_loop().call_later(
                self.grace_s, self._gone, cmd)
        return False

    def _gone(self, cmd: Command) -> None:
        key = (cmd.room_id, cmd.seat)
        self._leaving.pop(key, None)
        if self._streams.get(key):
            return
        self._announced.discard(key)
        log.info("seat_gone", room_id=cmd.room_id, seat=cmd.seat)
        closed = replace(cmd, body=Presence(False, cmd.body.at, ""), reply_to="", sent_at=time.time())
        asyncio.ensure_future(self._submit(closed))

    def forget(self, gone: Callable[[str], bool]) -> None:
        """Rooms no longer owned here (revoked partitions): their count moves with them."""
        for key in [k for k in list(self._streams) if gone(k[0])]:
            self._streams.pop(key, None)
        self._announced = {k for k in self._announced if not gone(k[0])}
        for key in [k for k in list(self._leaving) if gone(k[0])]:
            self._leaving.pop(key).cancel()
