"""FindMatch, GetTicket and CancelTicket at the gateway: check the request at the door, send
the caller to the pool's owner (ROOM_MOVED, before any work, as Act), and ask that owner's
``Matchmaker``. The seat token is drawn here and shown once; the pool keeps its hash."""

from __future__ import annotations

import secrets
import time
import uuid

from hand.v1 import options_pb2
from hand.v1 import room_service_pb2 as pb
from hand_common.limits import LIMITS
from hand_engine import RuleViolation, check_seat_seed
from hand_wire import table_options
from hand_table import token_hash

from .. import limits
from ..router import CommandRouter
from ..seat_access import SeatAccess
from .matchmaker import Matchmaker
from .pool import CANCELLED, SEATED, Schedule, Ticket, pool_key
from .ratings import RatingsPort

DEFAULT_PRESET = "hand"
PRESET_MAX = LIMITS["hand.v1.FindMatchRequest.preset"]
_STATUS = {SEATED: pb.TICKET_STATUS_SEATED, CANCELLED: pb.TICKET_STATUS_CANCELLED}


def _authorization(context) -> str:
    return next((v for k, v in context.invocation_metadata() or () if k == "authorization"), "")


class PlayNow:
    def __init__(self, router: CommandRouter, matchmaker: Matchmaker, access: SeatAccess,
                 ratings: RatingsPort, schedule: Schedule) -> None:
        self.router, self.mm, self.access, self.ratings, self.schedule = router, matchmaker, access, ratings, schedule

    async def find(self, request: pb.FindMatchRequest, context) -> pb.FindMatchResponse:
        preset = limits.text(request.preset, "preset", PRESET_MAX) or DEFAULT_PRESET
        try:
            seats = table_options(options_pb2.RuleSelection(preset=preset), request.seat_count or None).seat_count
        except RuleViolation as exc:
            if exc.params.get("field") == "rules.preset":
                exc.params["field"] = "preset"
            raise
        key = pool_key(preset, seats)
        self.router.redirect(key, context.invocation_metadata())  # the pool's owner decides
        name = limits.text(request.player_name, "player_name", limits.MAX_NAME)
        player_id = await self.access.new_player(
            context, limits.text(request.player_id, "player_id", limits.MAX_PLAYER_ID))
        seed = check_seat_seed(request.seat_seed) if request.HasField("seat_seed") else None
        standing = await self.ratings.standing(_authorization(context))
        token = secrets.token_urlsafe(24)
        ticket = Ticket(f"{key}:{uuid.uuid4().hex}", player_id, name, standing.rating, token_hash(token),
                        time.time(), quits=standing.quits, seat_seed=seed)
        ticket = await self.mm.find(preset, seats, ticket)
        return pb.FindMatchResponse(ticket=self._message(key, ticket), seat_token=token)

    async def get(self, request: pb.GetTicketRequest, context) -> pb.GetTicketResponse:
        key, token = self._door(request, context)
        return pb.GetTicketResponse(ticket=self._message(key, await self.mm.get(key, request.ticket_id, token)))

    async def cancel(self, request: pb.CancelTicketRequest, context) -> pb.CancelTicketResponse:
        key, token = self._door(request, context)
        ticket = await self.mm.cancel(key, request.ticket_id, token)
        return pb.CancelTicketResponse(ticket=self._message(key, ticket))

    def _door(self, request, context) -> tuple[str, str]:
        """The ticket's pool key and the token's hash; ROOM_MOVED when another instance owns the pool."""
        ticket_id = limits.text(request.ticket_id, "ticket_id", limits.MAX_ID, required=True)
        parts = ticket_id.split(":")
        if len(parts) != 4 or parts[0] != "mm" or not parts[2].isdigit():
            raise limits.invalid("ticket_id", "not a ticket id this service issued")
        key = ":".join(parts[:3])
        self.router.redirect(key, context.invocation_metadata())
        token = limits.text(request.seat_token, "seat_token", limits.MAX_TOKEN, required=True)
        return key, token_hash(token)

    def _message(self, key: str, t: Ticket) -> pb.Ticket:
        preset, seats = key.split(":")[1], int(key.split(":")[2])
        now = time.time() if t.open else t.closed_at
        waited = self.schedule.waited(t, now)
        # a quitter's hold (decision 0027's ladder) comes before the bot-fill wait, and shows in bots_in_ms
        held = max(0.0, t.opened_at + self.schedule.delay(t.quits) - now)
        out = pb.Ticket(ticket_id=t.ticket_id, status=_STATUS.get(t.status, pb.TICKET_STATUS_WAITING),
                        preset=preset, seat_count=seats, rating=t.rating,
                        rating_range=self.schedule.range_at(waited), waited_ms=int((now - t.opened_at) * 1000),
                        bots_in_ms=int((held + max(0.0, self.schedule.bot_fill_s - waited)) * 1000))
        if t.status == SEATED:
            out.room_id = t.room_id
            out.seat = t.seat or 0
        endpoint = self.router.endpoint(key)
        if endpoint is not None:
            out.owner.address, out.owner.web_url, out.owner.instance_id = (
                endpoint.address, endpoint.web_url, endpoint.instance_id)
        return out
