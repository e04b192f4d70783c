"""``AuthService`` handlers: check, call the store, sign (see proto/hand/v1/auth_service.proto)."""

from __future__ import annotations

import re
from datetime import datetime

import structlog

from hand.v1 import auth_service_pb2 as pb
from hand.v1 import auth_service_pb2_grpc as pb_grpc
from hand_common.identity import Verifier
from hand_common.limits import MAX_NAME
from hand_common.refusal import Refusal
from hand_common.rpc import rpc
from hand_common.status_map import StatusMap
from hand_infra.sqlstore import store_refusal

from .metrics import REFRESHES, REFUSALS, SIGN_INS
from .store import AuthStore, PlayerRecord
from .tokens import Signer

__all__ = ["AuthService", "DEVICE_ID"]

log = structlog.get_logger("hand_auth.service")
DEVICE_ID = re.compile(r"[A-Za-z0-9._~-]{16,128}")
DEVICE_ID_CHARS = "A-Z a-z 0-9 . _ ~ -"  # how a refusal names them (params["chars"])


def _ms(moment: datetime | float) -> int:
    return int((moment.timestamp() if isinstance(moment, datetime) else moment) * 1000)


def _player(record: PlayerRecord) -> pb.Player:
    return pb.Player(player_id=record.player_id, display_name=record.display_name,
                     created_at_ms=_ms(record.created_at))


def _name(name: str) -> str:
    name = name.strip()
    if len(name) > MAX_NAME:
        raise Refusal("LIMIT_EXCEEDED", "display_name too long", field="display_name", limit=MAX_NAME)
    if any(not ch.isprintable() for ch in name):
        raise Refusal("INVALID_ARGUMENT", "display_name: control characters", field="display_name")
    return name


def _counted(code: str) -> None:
    REFUSALS.labels(code).inc()


#: door codes only (auth's refusals are all door refusals); INTERNAL is a plain status
STATUS = StatusMap(log, translate=store_refusal, internal_detail=False, door_first=True, counted=_counted)
_rpc = rpc(log, refuse=STATUS.refuse)


class AuthService(pb_grpc.AuthServiceServicer):
    def __init__(self, store: AuthStore, signer: Signer, verifier: Verifier,
                 refresh_ttl_s: float) -> None:
        self.store, self.signer, self.verifier = store, signer, verifier
        self.refresh_ttl_s = refresh_ttl_s

    async def _session(self, player_id: str, family: str | None = None) -> pb.Session:
        access, expires = self.signer.sign(player_id)
        refresh, refresh_expires = await self.store.issue_refresh(player_id, self.refresh_ttl_s, family)
        return pb.Session(access_token=access, access_expires_at_ms=expires * 1000,
                          refresh_token=refresh, refresh_expires_at_ms=_ms(refresh_expires))

    @_rpc
    async def SignInGuest(self, request: pb.SignInGuestRequest, context) -> pb.SignInGuestResponse:
        if not DEVICE_ID.fullmatch(request.device_id):
            raise Refusal("INVALID_ARGUMENT", "device_id: 16-128 of [A-Za-z0-9._~-]",
                          field="device_id", min=16, max=128, limit=128, chars=DEVICE_ID_CHARS)
        record, created = await self.store.guest(request.device_id, _name(request.display_name))
        SIGN_INS.labels("new" if created else "returning").inc()
        return pb.SignInGuestResponse(player=_player(record), session=await self._session(
            record.player_id), created=created)

    @_rpc
    async def RefreshSession(self, request: pb.RefreshSessionRequest, context
                             ) -> pb.RefreshSessionResponse:
        if not request.refresh_token or len(request.refresh_token) > 128:
            raise Refusal("UNAUTHENTICATED", "refresh token not valid", field="refresh_token")
        player_id, family = await self.store.spend_refresh(request.refresh_token)
        REFRESHES.inc()
        return pb.RefreshSessionResponse(session=await self._session(player_id, family))

    @_rpc
    async def GetMe(self, request: pb.GetMeRequest, context) -> pb.GetMeResponse:
        session = self.verifier.session_of(context.invocation_metadata())
        if session is None:
            raise Refusal("UNAUTHENTICATED", "sign in first", field="authorization")
        record = await self.store.player(session.player_id)
        if record is None:  # signed by our key for a player we never issued: treat as invalid
            raise Refusal("UNAUTHENTICATED", "unknown player", field="authorization")
        return pb.GetMeResponse(player=_player(record))
