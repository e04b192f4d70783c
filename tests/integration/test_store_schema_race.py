"""Instances starting together on one fresh store each create the tables they miss: none
may fail on the race (two room instances on one SQLite file failed to start with "database
is locked" when the matchmaking pools' table was created in a deferred transaction)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import inspect

from hand_infra.eventstore import EventStore
from hand_infra.postgres import create_database, drop_database
from hand_room.index import RoomIndex
from hand_room.matchmaking.log import PoolLog

INSTANCES = 6


async def _start_instance(url: str) -> EventStore:
    """What a room instance creates at start: the event store, the room index, the pools' log."""
    store = EventStore(url)
    await store.start()
    await asyncio.gather(RoomIndex(store.engine).start(), PoolLog(store).start())
    return store


async def _race(url: str) -> set[str]:
    stores = await asyncio.gather(*(_start_instance(url) for _ in range(INSTANCES)), return_exceptions=True)
    try:
        failures = [s for s in stores if isinstance(s, BaseException)]
        assert not failures, failures
        async with stores[0].engine.connect() as conn:
            return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        for s in stores:
            if isinstance(s, EventStore):
                await s.close()


@pytest.mark.parametrize("attempt", range(3))
async def test_instances_starting_together_on_one_sqlite_file_all_start(tmp_path: Path, attempt: int) -> None:
    tables = await _race(f"sqlite:///{tmp_path / 'events.db'}")
    assert {"room_events", "room_index", "match_events", "match_players"} <= tables


async def test_instances_starting_together_on_one_postgres_database_all_start(pg_url: str, unique: str) -> None:
    url = await create_database(pg_url, f"race_{unique}")
    try:
        tables = await _race(url)
        assert {"room_events", "room_index", "match_events", "match_players"} <= tables
    finally:
        await drop_database(pg_url, f"race_{unique}")
