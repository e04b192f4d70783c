"""Fixtures and checks shared by the ledger's integration tests.

``ledger_db`` runs a test against SQLite and against PostgreSQL (the session's
throwaway server, a fresh database per call of the factory). ``snapshot``
dumps every projection table (timestamps left out), so two ledgers fed the
same events in different ways can be compared whole.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from sqlalchemy import func, select

from hand_engine.match import running_totals, standings
from hand_infra.postgres import create_database, drop_database
from hand_ledger import _schema, reads
from hand_ledger.consumer import LedgerConsumer
from hand_wire import Delivered
from hand_ledger.store import LedgerStore

_counter = itertools.count()


@pytest.fixture(params=["sqlite", "postgresql"])
async def ledger_db(request: pytest.FixtureRequest, tmp_path: Path, unique: str
                    ) -> AsyncIterator[Callable[[], Awaitable[str]]]:
    """A factory of empty ledger database URLs on the parametrized backend."""
    made: list[str] = []
    server_url = request.getfixturevalue("pg_url") if request.param == "postgresql" else ""

    async def new() -> str:
        n = next(_counter)
        if not server_url:
            return f"sqlite:///{tmp_path / f'ledger-{n}.db'}"
        name = f"ledger_{unique}_{n}"
        made.append(name)
        return await create_database(server_url, name)

    try:
        yield new
    finally:
        for name in made:
            await drop_database(server_url, name)


TIMESTAMPS = {"recorded_at", "ended_at"}
RATING = {"mu", "sigma", "ordinal"}


async def snapshot(store: LedgerStore, ratings: bool = True) -> dict[str, list[tuple]]:
    """Every row of every ledger table, sorted, without timestamps.

    Ratings depend on the order in which matches end, which differs between
    rooms delivered in different interleavings: ``ratings=False`` leaves them out.
    """
    out = {}
    skip = TIMESTAMPS if ratings else TIMESTAMPS | RATING
    async with store.read() as conn:
        for table in _schema.metadata.sorted_tables:
            cols = [c for c in table.columns if c.name not in skip]
            rows = (await conn.execute(select(*cols))).all()
            out[table.name] = sorted((tuple(r) for r in rows), key=repr)
    return out


async def assert_sheet_matches_engine(store: LedgerStore, run, expected_outcome: str = "") -> None:
    """The ledger's sheet and result for ``run`` equal the engine's own (docs/rules.md §9–§10)."""
    match, room_id = run.room.match, run.room.room_id
    partnership = match.options.partnership
    async with store.read() as conn:
        sheet = await reads.load_sheet(conn, room_id)
        outcome = await reads.load_outcome(conn, room_id)
    assert sheet is not None and len(sheet.rounds) == len(match.results)
    seat_totals = [0] * match.n
    for r, res, totals, dealer in zip(sheet.rounds, match.results, running_totals(match), match.dealers,
                                      strict=True):
        assert (r.finish, r.winner, r.multiplier, r.dealer) == (res.finish, res.winner, res.multiplier, dealer)
        assert r.playoff == (r.round_no > match.options.rounds)
        for line, seat in zip(r.lines, res.seats, strict=True):
            seat_totals[seat.seat] += seat.score
            assert (line.seat, line.opened, line.opening_total, line.cards_left, line.cards_value,
                    line.score, line.running_total) == (
                seat.seat, seat.opened, seat.opening_total, seat.cards_left, seat.cards_value, seat.score,
                seat_totals[seat.seat])
            assert line.player_id == run.room.seats[seat.seat].player_id
        if partnership:
            assert [(t.score, t.running_total) for t in r.teams] == [
                (res.team_scores[u], totals[u]) for u in (0, 1)]
        else:
            assert r.teams == () and [ln.running_total for ln in r.lines] == [totals[s] for s in range(match.n)]
    assert outcome is not None and match.over
    assert outcome.winners == match.winners
    assert [(s.unit, s.total, s.outs, s.penalty_points) for s in outcome.standings] == [
        (s.unit, s.total, s.outs, s.penalty_points) for s in standings(match)]
    assert [s.unit for s in outcome.standings if s.winner] == list(match.winners)
    assert all(s.place == 1 for s in outcome.standings if s.winner)
    assert outcome.playoff_rounds == max(0, len(match.results) - match.options.rounds)
    if expected_outcome:
        assert outcome.outcome == expected_outcome
    assert sheet.options == match.options


class Crash(BaseException):
    """A simulated kill: not an ``Exception``, so nothing in the ledger catches it."""


def all_events(runs) -> list[Delivered]:
    return [e for run in runs.values() for e in run.events]


async def ingest_in_order(url: str, runs) -> LedgerStore:
    store = LedgerStore(url)
    await store.start()
    consumer = LedgerConsumer(store, None)
    for run in runs.values():
        await consumer.record(run.events)
    return store


async def archived(store: LedgerStore) -> int:
    async with store.read() as conn:
        return await conn.scalar(select(func.count()).select_from(_schema.events))
