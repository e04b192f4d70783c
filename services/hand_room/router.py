"""The one place that decides where a room's command goes (Akka's shard region,
cosmicpython's message bus): the owner here, in-process, or the owner elsewhere
through ``hand.room-commands`` — the fallback while ownership moves.

Its local path hands the command straight to the command path (``command_path.py``:
the group-commit queue and the pass that decides and appends), which the owner
composes. The gateway asks it three things: whether to send a caller to the owner
(``redirect``: Act and Watch are served by the owner only), where a room is
served (``endpoint``: ``RoomInfo.owner``), and to deliver a command (``send``).
"""

from __future__ import annotations

import asyncio
import uuid

import structlog
from hand_table import Command, RoomCode, RoomError
from hand_wire import Reply

from .bus import Bus
from .command_path import CommandPath
from .owner import RoomOwner
from .ownership import Endpoint, OwnershipMap
from .partitions import partition_of
from . import metrics as M

log = structlog.get_logger("hand_room.router")
#: metadata a client sets on a call it sends after following ROOM_MOVED
REDIRECTED = "hand-redirected"
#: new room ids tried before giving up on one this instance owns
_ID_TRIES = 256


class CommandRouter:
    def __init__(self, owner: RoomOwner | None, bus: Bus, ownership: OwnershipMap) -> None:
        self.owner, self.bus, self.ownership = owner, bus, ownership
        self.commands: CommandPath | None = owner.commands if owner is not None else None
        self.sent_local = self.sent_remote = self.redirects = 0

    def local(self, room_id: str) -> bool:
        """This instance owns the room (and decides its commands in-process)."""
        return self.owner is not None and self.owner.owns(room_id)

    def endpoint(self, room_id: str) -> Endpoint | None:
        if self.local(room_id):
            return self.ownership.me
        return self.ownership.owner_of(room_id)

    def redirect(self, room_id: str, metadata) -> None:
        """Refuse ROOM_MOVED when another instance owns the room and says where; a call
        that already followed a redirect (``hand-redirected``) is served here."""
        if self.local(room_id) or any(k == REDIRECTED for k, _ in metadata or ()):
            return
        owner = self.ownership.owner_of(room_id)
        if owner is None or not owner.address or owner.instance_id == self.ownership.me.instance_id:
            return  # nobody known, or the map is stale about us: forward
        self.redirects += 1
        M.COMMANDS.labels("redirect", "redirected").inc()
        raise RoomError(RoomCode.ROOM_MOVED, "the room is served by another instance",
                        owner_address=owner.address, owner_web_url=owner.web_url,
                        owner_instance=owner.instance_id)

    def admit(self, room_id: str, body: object) -> None:
        """Refuse a client's command at once (OVERLOADED) when its owner here is full."""
        if self.local(room_id):
            self.commands.admit(body)

    def new_room_id(self) -> str:
        """A fresh room id in a partition this instance owns, so that its creator's calls
        stay here; any id when it owns none yet (the command is forwarded)."""
        owned = self.owner.owned if self.owner is not None else set()
        room_id = uuid.uuid4().hex
        if owned:
            for _ in range(_ID_TRIES):
                if partition_of(room_id, self.ownership.partitions) in owned:
                    break
                room_id = uuid.uuid4().hex
        return room_id

    async def send(self, cmd: Command, wait: bool = True) -> Reply | None:
        """Deliver ``cmd`` to the room's owner; its reply, or None without ``wait``."""
        kind = type(cmd.body).__name__
        if self.local(cmd.room_id):
            self.sent_local += 1
            M.COMMANDS.labels(kind, "local").inc()
            if not wait:
                asyncio.ensure_future(self.commands.submit(cmd))
                return None
            return await self.commands.submit(cmd)
        self.sent_remote += 1
        M.COMMANDS.labels(kind, "forwarded").inc()
        return await self.bus.send(cmd, wait=wait)
