"""Public handles: how the ledger names an account to everyone but its owner (docs/privacy.md).

A handle is ``hand_common.accounts.public_handle(secret, player_id)``; the
ledger keeps ``handle → player_id`` in ``ledger_handles`` so a handle shown on
a sheet or the leaderboard can be looked up (GetPlayerStats) without the
account id ever being shown. Rows are written with the seat that brings an
account (in the event's transaction) and, at start-up, for every account
that has none under the current secret (a new or rotated
``HAND_LEDGER_HANDLE_SECRET``; handles under an old secret keep resolving).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from hand_common.accounts import is_account, public_handle
from hand_table import Recorded, SeatTaken

from ._schema import handles, players


def _insert(conn: AsyncConnection, rows: list[dict[str, str]]):
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    return dialect.insert(handles).values(rows).on_conflict_do_nothing(index_elements=["handle"])


async def record(conn: AsyncConnection, secret: bytes, rec: Recorded) -> None:
    """The handle of the account a ``seat_taken`` brings (nothing for bots and guests)."""
    ev = rec.event
    if isinstance(ev, SeatTaken) and ev.kind == "human" and is_account(ev.player_id):
        await conn.execute(_insert(conn, [{"handle": public_handle(secret, ev.player_id),
                                           "player_id": ev.player_id}]))


async def backfill(conn: AsyncConnection, secret: bytes, batch: int = 500) -> int:
    """Handles for every account that has none under ``secret``; how many were added."""
    known = {r.handle for r in await conn.execute(select(handles.c.handle))}
    missing = []
    for (player_id,) in await conn.execute(select(players.c.player_id)):
        handle = public_handle(secret, player_id)
        if handle and handle not in known:
            missing.append({"handle": handle, "player_id": player_id})
    for start in range(0, len(missing), batch):
        await conn.execute(_insert(conn, missing[start:start + batch]))
    return len(missing)


async def resolve(conn: AsyncConnection, handle: str) -> str | None:
    """The account id of a handle; None for a handle the ledger never issued."""
    row = (await conn.execute(select(handles.c.player_id).where(handles.c.handle == handle))).first()
    return None if row is None else row.player_id
