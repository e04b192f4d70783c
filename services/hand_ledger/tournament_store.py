"""Reads and writes of the tournament tables (``tournament_schema``) in the ledger's store.

A tournament is small (at most 32 tables x 9 deals): it is loaded whole. Every
state change is one conditional write (``status`` in the ``WHERE``), so replicas
racing on the same tournament cannot both apply it; the room of a table's deal is
claimed by inserting its row (the key), so only one replica creates it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ._schema import rooms as ledger_rooms
from .reads import load_rounds
from .store import LedgerStore
from .tournament_schema import entrants, tables, tournaments

OPEN, RUNNING, CLOSED = "open", "running", "closed"


@dataclass(frozen=True)
class Entrant:
    player_id: str
    name: str
    entry_no: int
    table: int | None
    seat: int | None


@dataclass(frozen=True)
class TableRoom:
    table: int
    deal: int
    room_id: str | None
    tokens: dict[int, str]
    over: bool


@dataclass(frozen=True)
class Tournament:
    tournament_id: str
    name: str
    organiser: str
    organiser_name: str
    rules: bytes
    rounds: int
    seat_count: int
    turn_seconds: int
    deals: int
    tables: int
    bot_level: int
    start_at: float
    status: str
    seeds: tuple[int, ...]
    created_at: float
    entrants: tuple[Entrant, ...] = ()
    rooms: tuple[TableRoom, ...] = ()

    @property
    def played(self) -> int:
        return sum(1 for r in self.rooms if r.over)

    def occupant(self, table: int, seat: int) -> Entrant | None:
        return next((e for e in self.entrants if e.table == table and e.seat == seat), None)


class TournamentStore:
    """The tournament tables of ``ledger`` (its engine, its write transactions)."""

    def __init__(self, ledger: LedgerStore) -> None:
        self.ledger = ledger

    async def create(self, **row: object) -> None:
        async with self.ledger._write() as conn:
            await conn.execute(insert(tournaments).values(**row, status=OPEN))

    async def load(self, tournament_id: str) -> Tournament | None:
        async with self.ledger.read() as conn:
            row = (await conn.execute(select(tournaments).where(
                tournaments.c.tournament_id == tournament_id))).first()
            if row is None:
                return None
            ents = tuple(Entrant(e.player_id, e.name, e.entry_no, e.table_no, e.seat) for e in await conn.execute(
                select(entrants).where(entrants.c.tournament_id == tournament_id).order_by(entrants.c.entry_no)))
            query = (select(tables, ledger_rooms.c.status)
                     .join(ledger_rooms, ledger_rooms.c.room_id == tables.c.room_id, isouter=True)
                     .where(tables.c.tournament_id == tournament_id)
                     .order_by(tables.c.table_no, tables.c.deal_no))
            rms = tuple(TableRoom(r.table_no, r.deal_no, r.room_id,
                                  {int(k): v for k, v in json.loads(r.tokens).items()}, r.status == "finished")
                        for r in await conn.execute(query))
        return _tournament(row, ents, rms)

    async def page(self, offset: int, limit: int) -> list[Tournament]:
        async with self.ledger.read() as conn:
            ids = (await conn.execute(select(tournaments.c.tournament_id).order_by(
                tournaments.c.created_at.desc(), tournaments.c.tournament_id).offset(offset).limit(limit))).scalars()
            ids = list(ids)
        return [t for t in [await self.load(i) for i in ids] if t is not None]

    async def running(self) -> list[str]:
        async with self.ledger.read() as conn:
            return list((await conn.execute(select(tournaments.c.tournament_id).where(
                tournaments.c.status == RUNNING))).scalars())

    async def due(self, now: float) -> list[str]:
        """Open tournaments whose start time has come (the scheduler's work; decision 0029)."""
        async with self.ledger.read() as conn:
            return list((await conn.execute(select(tournaments.c.tournament_id).where(
                tournaments.c.status == OPEN, tournaments.c.start_at > 0, tournaments.c.start_at <= now)
                .order_by(tournaments.c.start_at))).scalars())

    async def enter(self, tournament_id: str, player_id: str, name: str, cap: int | None) -> str:
        """"entered", "again" (entered before: nothing changes), "full" or the status if not open."""
        async with self.ledger._write() as conn:
            status = await conn.scalar(select(tournaments.c.status).where(
                tournaments.c.tournament_id == tournament_id))
            if status != OPEN:
                return str(status)
            if await conn.scalar(select(entrants.c.entry_no).where(
                    entrants.c.tournament_id == tournament_id, entrants.c.player_id == player_id)) is not None:
                return "again"
            count = await conn.scalar(select(func.count()).select_from(entrants).where(
                entrants.c.tournament_id == tournament_id)) or 0
            if cap is not None and count >= cap:
                return "full"
            await conn.execute(insert(entrants).values(tournament_id=tournament_id, player_id=player_id,
                                                       name=name, entry_no=count))
            return "entered"

    async def start(self, tournament_id: str, n_tables: int, places: dict[str, tuple[int, int]],
                    bot_level: int | None = None) -> bool:
        """OPEN -> RUNNING with ``n_tables``, each entrant's (table, seat) and, when given, the bots'
        level; False if not open (another caller — the organiser, the scheduler, a replica — won)."""
        values: dict[str, object] = {"status": RUNNING, "tables": n_tables}
        if bot_level is not None:
            values["bot_level"] = bot_level
        async with self.ledger._write() as conn:
            moved = await conn.execute(update(tournaments).where(
                tournaments.c.tournament_id == tournament_id, tournaments.c.status == OPEN).values(**values))
            if moved.rowcount != 1:
                return False
            for player_id, (table, seat) in places.items():
                await conn.execute(update(entrants).where(
                    entrants.c.tournament_id == tournament_id, entrants.c.player_id == player_id)
                    .values(table_no=table, seat=seat))
            return True

    async def close(self, tournament_id: str) -> bool:
        async with self.ledger._write() as conn:
            moved = await conn.execute(update(tournaments).where(
                tournaments.c.tournament_id == tournament_id, tournaments.c.status == RUNNING)
                .values(status=CLOSED))
            return moved.rowcount == 1

    async def claim(self, tournament_id: str, table: int, deal: int) -> bool:
        """Claim the creation of a table's deal room; False when another caller has it."""
        try:
            async with self.ledger._write() as conn:
                await conn.execute(insert(tables).values(tournament_id=tournament_id, table_no=table,
                                                         deal_no=deal, room_id=None, tokens="{}"))
        except IntegrityError:
            return False
        return True

    async def release(self, tournament_id: str, table: int, deal: int) -> None:
        """Give a claim back (its room could not be made): the driver tries again."""
        async with self.ledger._write() as conn:
            await conn.execute(delete(tables).where(
                tables.c.tournament_id == tournament_id, tables.c.table_no == table, tables.c.deal_no == deal,
                tables.c.room_id.is_(None)))

    async def created(self, tournament_id: str, table: int, deal: int, room_id: str,
                      tokens: dict[int, str]) -> None:
        async with self.ledger._write() as conn:
            await conn.execute(update(tables).where(
                tables.c.tournament_id == tournament_id, tables.c.table_no == table, tables.c.deal_no == deal)
                .values(room_id=room_id, tokens=json.dumps({str(k): v for k, v in tokens.items()})))

    async def seat_scores(self, room_id: str) -> dict[int, int]:
        """Each seat's raw score of a room: its own scores of the fixed rounds (no playoff)."""
        async with self.ledger.read() as conn:
            rounds = await load_rounds(conn, room_id)
        scores: dict[int, int] = {}
        for r in rounds:
            if not r.playoff:
                for line in r.lines:
                    scores[line.seat] = scores.get(line.seat, 0) + line.score
        return scores


def _tournament(row, ents: tuple[Entrant, ...], rms: tuple[TableRoom, ...]) -> Tournament:
    return Tournament(row.tournament_id, row.name, row.organiser, row.organiser_name, row.rules, row.rounds,
                      row.seat_count, row.turn_seconds, row.deals, row.tables, row.bot_level, row.start_at,
                      row.status, tuple(json.loads(row.seeds)), row.created_at, ents, rms)
