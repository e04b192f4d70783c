"""``AuthStore``: players, devices and refresh tokens on SQLite or PostgreSQL."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from hand_common.refusal import Refusal
from hand_infra.sqlstore import SqlStore, create_tables

from ._schema import devices, metadata, players, refresh_tokens

__all__ = ["AuthStore", "PlayerRecord", "digest"]


def digest(secret: str) -> str:
    """How a credential (device id, refresh token) is stored: its SHA-256, never itself."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class PlayerRecord:
    player_id: str
    display_name: str
    created_at: datetime


#: how long an expired refresh token is kept: a replay within it still revokes the player's
#: sessions (decision 0024); past it the row is purged
KEEP_EXPIRED = timedelta(days=7)
#: long-expired tokens deleted per token issued (each issue adds one: the table stays bounded)
PURGE_BATCH = 100


class AuthStore(SqlStore):
    """Players and refresh tokens; every write is one transaction."""

    what = "auth store"

    async def start(self) -> None:
        self.connect()
        await create_tables(self.engine, metadata)

    async def player(self, player_id: str) -> PlayerRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(players).where(players.c.player_id == player_id))).first()
        return None if row is None else PlayerRecord(row.player_id, row.display_name, _utc(row.created_at))

    async def guest(self, device_id: str, display_name: str) -> tuple[PlayerRecord, bool]:
        """The device's player, created on first sign-in; ``(player, created)``."""
        device_hash = digest(device_id)
        async with self._write() as conn:
            row = (await conn.execute(select(devices.c.player_id)
                                      .where(devices.c.device_hash == device_hash))).first()
            if row is not None:
                if display_name:
                    await conn.execute(update(players).where(players.c.player_id == row.player_id)
                                       .values(display_name=display_name))
        if row is not None:
            return await self.player(row.player_id), False  # type: ignore[return-value]
        record = PlayerRecord(uuid.uuid4().hex, display_name, datetime.now(UTC))
        try:
            async with self._write() as conn:
                await conn.execute(insert(players).values(
                    player_id=record.player_id, display_name=display_name, created_at=record.created_at))
                await conn.execute(insert(devices).values(device_hash=device_hash,
                                                          player_id=record.player_id))
        except IntegrityError:  # the same device signed in twice at once: the first one won
            return await self.guest(device_id, display_name)
        return record, True

    async def issue_refresh(self, player_id: str, ttl_s: float, family: str | None = None
                            ) -> tuple[str, datetime]:
        """A new refresh token (returned once, stored as its hash) and its expiry. Each issue
        also deletes up to ``PURGE_BATCH`` tokens expired for longer than ``KEEP_EXPIRED``: every
        refresh adds a row, and none ever left (the table grew by a row per refresh of every
        player, for good); one that ran out a week ago can no longer be refreshed, and a replay
        of it is answered ``unknown`` instead of ``reused``."""
        token = secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        expires = now + timedelta(seconds=ttl_s)
        async with self._write() as conn:
            await conn.execute(insert(refresh_tokens).values(
                token_hash=digest(token), player_id=player_id, family=family or uuid.uuid4().hex,
                expires_at=expires, spent=False))
            old = (select(refresh_tokens.c.token_hash).where(refresh_tokens.c.expires_at < now - KEEP_EXPIRED)
                   .order_by(refresh_tokens.c.expires_at).limit(PURGE_BATCH))
            await conn.execute(delete(refresh_tokens).where(refresh_tokens.c.token_hash.in_(old.scalar_subquery())))
        return token, expires

    async def spend_refresh(self, token: str) -> tuple[str, str]:
        """Spend a refresh token: ``(player_id, family)``. A token sent again after it was
        spent (it was stolen, or replayed) revokes every refresh token of its player, of
        every sign-in (decision 0024): every later refresh fails and each of the player's
        devices signs in again. Refused with ``reason`` = ``reused`` (a spent token),
        ``expired`` or ``unknown``."""
        def bad(reason: str) -> Refusal:
            return Refusal("UNAUTHENTICATED", "refresh token not valid", field="refresh_token",
                           reason=reason)

        token_hash = digest(token)
        async with self._write() as conn:
            row = (await conn.execute(select(refresh_tokens)
                                      .where(refresh_tokens.c.token_hash == token_hash))).first()
            if row is None:
                raise bad("unknown")
            if row.spent:
                await conn.execute(update(refresh_tokens).where(
                    refresh_tokens.c.player_id == row.player_id, refresh_tokens.c.spent.is_(False))
                    .values(spent=True))
                reused = True
            else:
                reused = False
                if _utc(row.expires_at) <= datetime.now(UTC):
                    raise bad("expired")
                done = await conn.execute(update(refresh_tokens).where(
                    refresh_tokens.c.token_hash == token_hash, refresh_tokens.c.spent.is_(False))
                    .values(spent=True))
                if done.rowcount != 1:  # a concurrent refresh spent it first
                    raise bad("reused")
        if reused:  # raised after the commit: the revocation stands
            raise bad("reused")
        return row.player_id, row.family
