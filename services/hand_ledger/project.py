"""Recording room events: each one archived exactly once, with its effects.

:func:`ingest` writes a batch of events — each one's archive row (its
tracking record) and all its effects — in **one transaction**: after a crash
either all of the batch is there or none of it. A row already archived makes
the insert fail on the key (``IntegrityError``): the batch was, at least in
part, recorded before (by this process before a restart, or by another
replica during a rebalance), and the caller re-reads from the archive. An
event whose projection raises (a payload that does not fit its room) cannot
block the others: the batch is retried one event per transaction, and such an
event is archived with its error and no effect.

``project(conn, recorded)`` is one event's effects, inside that transaction:
rooms, seats, score sheets, match results and player statistics, dispatched on
the event's type (``hand_table`` dataclasses). Kinds with no effect here
(moves, presence) are only archived.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import singledispatch
from typing import TYPE_CHECKING, Any

import structlog

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from hand_infra.sqlstore import STORE_ERRORS, upsert_into
from hand_wire import Delivered, options_from_json, options_to_json
from hand_table import (
    MatchEnded, MatchStarted, Recorded, RoomCreated, RoomEvent, RoundDealt, RoundScored, SeatLeft, SeatTaken,
)

from . import handles, ratings
from .match_rating import rate_match
from ._schema import events, lines, matches, players, rooms, rounds, seats, team_lines
from .reads import load_rounds
from .sheets import ScoredRound, match_outcome, score_round


if TYPE_CHECKING:
    from .store import LedgerStore

log = structlog.get_logger("hand_ledger.store")


async def ingest(store: LedgerStore, batch: Sequence[Delivered]) -> int:
    """Record ``batch`` (in seq order per room) and its effects in ``store``; return its size.

    Raises ``IntegrityError`` if any of it was recorded before, other
    database errors (and a database that is down: ``STORE_ERRORS``) as they
    come; nothing of the batch is kept then. Only an event whose projection
    itself fails is archived with its error (quarantined).
    """
    if not batch:
        return 0
    try:
        await _ingest(store, batch)
    except STORE_ERRORS:  # the database failed (or is down), not the event: nothing recorded
        raise
    except Exception:
        if len(batch) == 1:
            await _quarantine(store, batch[0])
        else:
            for item in batch:
                await ingest(store, [item])
            return len(batch)
    store.ingested += len(batch)
    store.progress.moved()
    return len(batch)


async def _ingest(store: LedgerStore, batch: Sequence[Delivered], error: str | None = None) -> None:
    now = datetime.now(UTC)
    async with store._write() as conn:
        await conn.execute(insert(events), [
            {"room_id": e.room_id, "seq": e.seq, "kind": e.kind, "payload": e.payload,
             "recorded_at": now, "error": error} for e in batch])
        if error is not None:
            return
        for e in batch:
            await project(conn, e.recorded)
            await handles.record(conn, store.handle_secret, e.recorded)
            if store.after_event is not None:
                store.after_event(e)


async def _quarantine(store: LedgerStore, item: Delivered) -> None:
    try:
        await _ingest(store, [item])
        return
    except STORE_ERRORS:  # the database failed (or is down), not the event: nothing recorded
        raise
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
    log.error("projection_failed", room_id=item.room_id, seq=item.seq, kind=item.kind, error=error)
    await _ingest(store, [item], error=error)
    store.failed += 1


def _upsert(conn: AsyncConnection, table, keys: list[str], update: dict[str, Any], **values: Any):
    """INSERT …, or UPDATE ``update`` where the key exists (one statement on both backends)."""
    return upsert_into(conn, table).values(**values).on_conflict_do_update(index_elements=keys, set_=update)


async def _room(conn: AsyncConnection, room_id: str):
    return (await conn.execute(select(rooms).where(rooms.c.room_id == room_id))).first()


async def _player_ids(conn: AsyncConnection, room_id: str) -> dict[int, str]:
    rows = await conn.execute(select(seats.c.seat, seats.c.player_id).where(seats.c.room_id == room_id))
    return {r.seat: r.player_id for r in rows}


async def project(conn: AsyncConnection, rec: Recorded) -> None:
    await _project(rec.event, conn, rec.room_id)


@singledispatch
async def _project(ev: RoomEvent, conn: AsyncConnection, room_id: str) -> None:
    """Only archived (moves, presence, time-outs, quick chat)."""


@_project.register
async def _room_created(ev: RoomCreated, conn: AsyncConnection, room_id: str) -> None:
    o = ev.options
    await conn.execute(insert(rooms).values(
        room_id=room_id, preset=ev.preset, options=options_to_json(o), seat_count=o.seat_count,
        rounds=o.rounds, partnership=o.partnership, status="waiting"))
    await conn.execute(insert(seats), [
        {"room_id": room_id, "seat": s, "kind": "empty", "player_id": "", "name": ""}
        for s in range(o.seat_count)])


@_project.register
async def _seat_taken(ev: SeatTaken, conn: AsyncConnection, room_id: str) -> None:
    player_id = ev.player_id if ev.kind == "human" else ""
    await conn.execute(update(seats).where(seats.c.room_id == room_id, seats.c.seat == ev.seat)
                       .values(kind=ev.kind, player_id=player_id, name=ev.name))
    if player_id:
        prior = ratings.PRIOR
        await conn.execute(_upsert(
            conn, players, ["player_id"], {"name": ev.name}, player_id=player_id, name=ev.name, matches=0,
            wins=0, rounds=0, rounds_won=0, hand_finishes=0, rounds_opened=0, score_sum=0,
            mu=prior.mu, sigma=prior.sigma, ordinal=prior.ordinal))


@_project.register
async def _seat_left(ev: SeatLeft, conn: AsyncConnection, room_id: str) -> None:
    await conn.execute(update(seats).where(seats.c.room_id == room_id, seats.c.seat == ev.seat)
                       .values(kind="empty", player_id="", name=""))


async def _status(conn: AsyncConnection, room_id: str, status: str) -> None:
    await conn.execute(update(rooms).where(rooms.c.room_id == room_id).values(status=status))


@_project.register
async def _match_started(ev: MatchStarted, conn: AsyncConnection, room_id: str) -> None:
    await _status(conn, room_id, "playing")


@_project.register
async def _round_dealt(ev: RoundDealt, conn: AsyncConnection, room_id: str) -> None:
    # ``playoff`` is settled when the round is scored (the sheet shows scored rounds only)
    await conn.execute(insert(rounds).values(
        room_id=room_id, round_no=ev.round_no, dealer=ev.dealer, playoff=False))


@_project.register
async def _round_scored(ev: RoundScored, conn: AsyncConnection, room_id: str) -> None:
    room = await _room(conn, room_id)
    if sorted(s.seat for s in ev.result.seats) != list(range(room.seat_count)):
        raise ValueError(f"round {ev.round_no}: a result for seats {[s.seat for s in ev.result.seats]} "
                         f"in a room of {room.seat_count}")
    ids = await _player_ids(conn, room_id)
    before = await load_rounds(conn, room_id)
    last = before[-1] if before else None
    dealer = await conn.scalar(select(rounds.c.dealer).where(
        rounds.c.room_id == room_id, rounds.c.round_no == ev.round_no))
    r = score_round(ev.result, round_no=ev.round_no, dealer=dealer or 0, fixed_rounds=room.rounds,
                    player_ids=ids,
                    before={ln.seat: ln.running_total for ln in last.lines} if last else {},
                    teams_before={t.team: t.running_total for t in last.teams} if last else {})
    await _write_round(conn, room_id, r)
    rows = [{"b_pid": ln.player_id, "b_won": int(r.winner == ln.seat),
             "b_hand": int(r.winner == ln.seat and r.finish == "hand"), "b_opened": int(ln.opened),
             "b_score": ln.score} for ln in sorted(r.lines, key=lambda ln: ln.player_id) if ln.player_id]
    if rows:  # one statement for every seat (rows in id order: no lock-order deadlock)
        await conn.execute(ROUND_STATS, rows)


ROUND_STATS = update(players).where(players.c.player_id == bindparam("b_pid")).values(
    rounds=players.c.rounds + 1, rounds_won=players.c.rounds_won + bindparam("b_won"),
    hand_finishes=players.c.hand_finishes + bindparam("b_hand"),
    rounds_opened=players.c.rounds_opened + bindparam("b_opened"),
    score_sum=players.c.score_sum + bindparam("b_score"))


async def _write_round(conn: AsyncConnection, room_id: str, r: ScoredRound) -> None:
    values = {"finish": r.finish, "winner": r.winner, "multiplier": r.multiplier, "playoff": r.playoff}
    done = await conn.execute(update(rounds).where(
        rounds.c.room_id == room_id, rounds.c.round_no == r.round_no).values(**values))
    if done.rowcount == 0:  # no round_started seen (cannot happen in order; be safe)
        await conn.execute(insert(rounds).values(room_id=room_id, round_no=r.round_no, dealer=r.dealer,
                                                 **values))
    await conn.execute(insert(lines), [
        {"room_id": room_id, "round_no": r.round_no, "seat": ln.seat, "player_id": ln.player_id,
         "opened": ln.opened, "opening_total": ln.opening_total,
         "cards_left": json.dumps(list(ln.cards_left)), "cards_value": ln.cards_value,
         "score": ln.score, "running_total": ln.running_total} for ln in r.lines])
    if r.teams:
        await conn.execute(insert(team_lines), [
            {"room_id": room_id, "round_no": r.round_no, "team": t.team, "score": t.score,
             "running_total": t.running_total} for t in r.teams])


@_project.register
async def _match_ended(ev: MatchEnded, conn: AsyncConnection, room_id: str) -> None:
    room = await _room(conn, room_id)
    ids = await _player_ids(conn, room_id)
    options = options_from_json(room.options, room.seat_count)
    out = match_outcome(ev, await load_rounds(conn, room_id), n=room.seat_count,
                        partnership=room.partnership, fixed_rounds=room.rounds,
                        tie_break=options.tie_break, player_ids=ids)
    await conn.execute(insert(matches).values(
        room_id=room_id, winners=json.dumps(list(out.winners)),
        standings=json.dumps([s.__dict__ for s in out.standings]), outcome=out.outcome,
        tied=json.dumps(list(out.tied)), playoff_rounds=out.playoff_rounds, ended_at=datetime.now(UTC)))
    await _status(conn, room_id, "finished")
    await rate_match(conn, room_id, out, seats=room.seat_count, partnership=room.partnership)
