"""Public handles: how the ledger names an account to everyone but its owner (docs/privacy.md).

A handle is ``hand_common.accounts.public_handle(secret, player_id)``; the
ledger keeps ``handle → player_id`` in ``ledger_handles`` so a handle shown on
a sheet or the leaderboard can be looked up (GetPlayerStats) without the
account id ever being shown. Rows are written with the seat that brings an
account (in the event's transaction) and, at start-up, for every account
that has none under the current secret (a new or rotated
``HAND_LEDGER_HANDLE_SECRET``; handles under an old secret keep resolving) — once per
secret: a fingerprint of it in ``ledger_cursors`` says it was done.
"""

from __future__ import annotations

import hashlib
import hmac

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from hand_common.accounts import is_account, public_handle
from hand_infra.sqlstore import upsert_into
from hand_table import Recorded, SeatTaken

from ._schema import cursors, handles, players


def _insert(conn: AsyncConnection, rows: list[dict[str, str]]):
    return upsert_into(conn, handles).values(rows).on_conflict_do_nothing(index_elements=["handle"])


async def record(conn: AsyncConnection, secret: bytes, rec: Recorded) -> None:
    """The handle of the account a ``seat_taken`` brings (nothing for bots and guests)."""
    ev = rec.event
    if isinstance(ev, SeatTaken) and ev.kind == "human" and is_account(ev.player_id):
        await conn.execute(_insert(conn, [{"handle": public_handle(secret, ev.player_id),
                                           "player_id": ev.player_id}]))


#: ``ledger_cursors`` row: a fingerprint of the secret every account's handle was made under
BACKFILLED = "handles-secret"


def fingerprint(secret: bytes) -> int:
    """A secret's mark, safe to store (an HMAC of a fixed label under it, 62 bits)."""
    return int.from_bytes(hmac.new(secret, b"hand ledger handles backfilled", hashlib.sha256).digest()[:8],
                          "big") >> 2


async def backfill(conn: AsyncConnection, secret: bytes, batch: int = 500) -> int:
    """Handles for every account that has none under ``secret``; how many were added. Once
    done under a secret, the next starts under it skip it (``BACKFILLED``): every account
    since got its handle with its seat. Before, every start read every handle and every
    account and made a handle for each (1,000,000 accounts: seconds, and both sets in memory,
    inside the start's transaction), on every restart of every replica."""
    mark = fingerprint(secret)
    if await conn.scalar(select(cursors.c.position).where(cursors.c.name == BACKFILLED)) == mark:
        return 0
    known = {r.handle for r in await conn.execute(select(handles.c.handle))}
    missing = []
    for (player_id,) in await conn.execute(select(players.c.player_id)):
        handle = public_handle(secret, player_id)
        if handle and handle not in known:
            missing.append({"handle": handle, "player_id": player_id})
    for start in range(0, len(missing), batch):
        await conn.execute(_insert(conn, missing[start:start + batch]))
    await conn.execute(upsert_into(conn, cursors).values(name=BACKFILLED, position=mark).on_conflict_do_update(
        index_elements=["name"], set_={"position": mark}))
    return len(missing)


async def resolve(conn: AsyncConnection, handle: str) -> str | None:
    """The account id of a handle; None for a handle the ledger never issued."""
    row = (await conn.execute(select(handles.c.player_id).where(handles.c.handle == handle))).first()
    return None if row is None else row.player_id
