"""Tables of the auth store (SQLite or PostgreSQL, SQLAlchemy Core).

- ``auth_players``: every player the backend issued, with its display name;
- ``auth_devices``: SHA-256 of a device id → its guest player (the raw id,
  a credential, is never stored);
- ``auth_refresh``: SHA-256 of each refresh token, its player, its family
  (one sign-in and every refresh after it), expiry and whether it was spent.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, DateTime, Index, MetaData, String, Table

metadata = MetaData()

players = Table(
    "auth_players", metadata,
    Column("player_id", String(32), primary_key=True),
    Column("display_name", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

devices = Table(
    "auth_devices", metadata,
    Column("device_hash", String(64), primary_key=True),
    Column("player_id", String(32), nullable=False),
)

refresh_tokens = Table(
    "auth_refresh", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("player_id", String(32), nullable=False),
    Column("family", String(32), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("spent", Boolean, nullable=False, default=False),
)
Index("ix_auth_refresh_family", refresh_tokens.c.family)
Index("ix_auth_refresh_player", refresh_tokens.c.player_id)  # a reused token revokes the player's
Index("ix_auth_refresh_expiry", refresh_tokens.c.expires_at)  # the long-expired ones are purged
