"""Who a room call acts for: the seat its token holds, bound to the seat's player and
expiring with the match (docs/decisions/0011-seat-tokens.md).

- A seat taken by a **signed-in player** (its player id is an account) opens only
  with a valid session of that same player beside the token (``authorization:
  Bearer``); without one, or with another player's, the call is refused with
  ``SEAT_PLAYER_MISMATCH`` (an expired session: ``SESSION_EXPIRED``, refresh it).
  A guest seat's token stays a bearer secret.
- A token **expires** when its seat is left or freed (``SEAT_TOKEN_EXPIRED``,
  reason ``seat_left``: for every call) and, for every write, when the match has
  ended (reason ``match_ended``). Reads (Watch with the token) keep the seat's
  view of a finished match.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import grpc

from hand_common.accounts import guest_label, is_account
from hand_common.identity import Verifier, optional_player
from hand_table import Room, token_hash, RoomCode, RoomError

from . import limits

LoadRoom = Callable[[str, bool], Awaitable[Room]]  # (room_id, fresh) -> the room


class SeatAccess:
    def __init__(self, load: LoadRoom, verifier: Verifier | None) -> None:
        self._load, self.verifier = load, verifier

    async def _session_player(self, context: grpc.aio.ServicerContext) -> str | None:
        """The verified session's player; None without one; a bad session aborts the call."""
        if self.verifier is None:
            return None
        return await optional_player(context, self.verifier)

    async def new_player(self, context: grpc.aio.ServicerContext, claimed: str) -> str:
        """The player id for a new seat: the session's player when the call carries one;
        without a session, the id the client names as an unverified guest label."""
        return await self._session_player(context) or guest_label(claimed)

    async def seat(self, context: grpc.aio.ServicerContext, room_id: str, token: str, *,
                   write: bool = True) -> tuple[Room, int]:
        """The room and the seat ``token`` holds in it, for this caller (PERMISSION_DENIED
        otherwise: SEAT_TOKEN_INVALID, SEAT_TOKEN_EXPIRED, SEAT_PLAYER_MISMATCH)."""
        limits.text(token, "seat_token", limits.MAX_TOKEN, required=True)
        digest = token_hash(token)
        room = await self._load(room_id, False)
        seat, reason = room.seat_of_token(digest), room.expired(digest, write)
        if seat is None and reason is None:  # maybe stale: read it back
            room = await self._load(room_id, True)
            seat, reason = room.seat_of_token(digest), room.expired(digest, write)
        if reason is not None:
            raise RoomError(RoomCode.SEAT_TOKEN_EXPIRED, "this seat token has expired",
                            field="seat_token", reason=reason)
        if seat is None:
            raise RoomError(RoomCode.SEAT_TOKEN_INVALID, "this seat token is not valid for this room")
        owner = room.seats[seat].player_id
        if is_account(owner) and await self._session_player(context) != owner:
            raise RoomError(RoomCode.SEAT_PLAYER_MISMATCH, "this seat is a signed-in player's",
                            field="authorization")
        return room, seat
