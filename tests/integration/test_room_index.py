"""The room index (``hand_room/index.py``): the lobby's listings and the re-arm's list of
rooms not finished read those rooms only, not every room ever created, on SQLite and
PostgreSQL; a database made before the status index gets it when an instance starts."""

from __future__ import annotations

import json

from sqlalchemy import Boolean, Column, Float, Integer, MetaData, String, Table, event, insert, inspect

from hand_infra.eventstore import EventStore
from hand_room.index import RoomIndex, rooms

FINISHED = 3000


async def _fill(store: EventStore) -> None:
    """3,000 finished rooms of the past, and a few in play: two waiting, one playing."""
    now = 1_000_000.0
    rows = [{"room_id": f"old-{i}", "code": f"O{i}", "public": True, "status": "finished", "preset": "hand",
             "seats": 4, "free_seats": 0, "created_at": now - FINISHED + i} for i in range(FINISHED)]
    rows += [{"room_id": room_id, "code": room_id.upper(), "public": True, "status": status, "preset": "hand",
              "seats": 4, "free_seats": free, "created_at": now + n}
             for n, (room_id, status, free) in enumerate([("w1", "waiting", 2), ("w2", "waiting", 1),
                                                         ("p1", "playing", 0)])]
    async with store.engine.begin() as conn:
        await conn.execute(insert(rooms), rows)
        if store.engine.dialect.name == "postgresql":
            await conn.exec_driver_sql("ANALYZE room_index")


async def _statements(store: EventStore, call) -> tuple[object, list[tuple[str, object]]]:
    """``call()``'s result and the statements it ran, with their parameters."""
    ran: list[tuple[str, object]] = []

    def seen(conn, cursor, statement, parameters, context, executemany) -> None:
        ran.append((statement, parameters))

    event.listen(store.engine.sync_engine, "before_cursor_execute", seen)
    try:
        return await call(), ran
    finally:
        event.remove(store.engine.sync_engine, "before_cursor_execute", seen)


async def _rows_read(store: EventStore, statement: str, parameters) -> int | str:
    """How much of room_index the statement reads: on PostgreSQL the rows its plan took
    from the table (``EXPLAIN ANALYZE``), on SQLite its plan's words (a SCAN reads them all)."""
    async with store.engine.connect() as conn:
        if store.engine.dialect.name == "sqlite":
            plan = await conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
            return " / ".join(row[3] for row in plan)
        plan = (await conn.exec_driver_sql(f"EXPLAIN (ANALYZE, FORMAT JSON) {statement}", parameters)).scalar()
        plan = json.loads(plan) if isinstance(plan, str) else plan

    def rows(node: dict) -> int:
        own = node.get("Actual Rows", 0) * node.get("Actual Loops", 1) + node.get("Rows Removed by Filter", 0)
        return (own if node.get("Relation Name") == "room_index" else 0) + sum(rows(c) for c in node.get("Plans", []))

    return rows(plan[0]["Plan"])


async def test_listings_and_the_rearm_list_read_the_rooms_in_play_not_every_room_ever(store: EventStore) -> None:
    index = RoomIndex(store.engine)
    await index.start()
    await _fill(store)
    calls = {"open": lambda: index.public_open(limit=51), "playing": lambda: index.public_playing(limit=51),
             "active": index.active}
    expected = {"open": ["w2", "w1"], "playing": ["p1"], "active": ["p1", "w1", "w2"]}
    for name, call in calls.items():
        got, ran = await _statements(store, call)
        assert sorted(got) == expected[name] if name == "active" else [r["room_id"] for r in got] == expected[name]
        (statement, parameters), = [s for s in ran if "room_index" in s[0]]
        read = await _rows_read(store, statement, parameters)
        if isinstance(read, str):  # SQLite: a search of the status index, no scan, no sort
            assert "ix_room_index_status" in read and "SCAN" not in read and "TEMP B-TREE" not in read, (name, read)
        else:  # PostgreSQL: the rooms of that status, not the 3,000 finished (before: every row)
            assert read <= 3, (name, read)


async def test_an_index_made_after_a_database_is_added_when_an_instance_starts(store: EventStore) -> None:
    """``create_all`` makes a table's indexes only with the table: a room_index made by an
    earlier release never got the status index (an operator's database kept scanning)."""
    before = MetaData()
    Table("room_index", before, Column("room_id", String(64), primary_key=True),
          Column("code", String(16), nullable=False, index=True), Column("public", Boolean, nullable=False),
          Column("status", String(16), nullable=False), Column("preset", String(32), nullable=False),
          Column("seats", Integer, nullable=False), Column("free_seats", Integer, nullable=False),
          Column("created_at", Float, nullable=False))
    async with store.engine.begin() as conn:
        await conn.run_sync(before.create_all)

    async def indexes() -> set[str]:
        async with store.engine.connect() as conn:
            return {i["name"] for i in await conn.run_sync(lambda c: inspect(c).get_indexes("room_index"))}

    assert "ix_room_index_status" not in await indexes()
    await RoomIndex(store.engine).start()
    assert "ix_room_index_status" in await indexes()
    await RoomIndex(store.engine).start()  # and again: nothing to add, no error


async def _rooms_holding(store: EventStore, code: str, held: list[tuple[str, str, float]]) -> None:
    """Rows of room_index for rooms that held ``code``: (room id, status, created at)."""
    async with store.engine.begin() as conn:
        await conn.execute(insert(rooms), [{"room_id": room_id, "code": code, "public": False, "status": status,
                                            "preset": "hand", "seats": 2, "free_seats": 1 if status == "waiting" else 0,
                                            "created_at": at} for room_id, status, at in held])


async def test_a_join_code_names_the_room_a_player_can_join_of_those_that_held_it(store: EventStore) -> None:
    """Codes are drawn at random from ~10^9 and repeat over a service's life: a code names
    the waiting room that holds it before a playing one, either before a finished one,
    newest first (before: whichever row came first — here the old finished room)."""
    index = RoomIndex(store.engine)
    await index.start()
    await _rooms_holding(store, "ABCDEF", [("a-old", "finished", 1.0), ("b-play", "playing", 3.0),
                                           ("c-new", "waiting", 2.0)])
    assert await index.by_code("abcdef") == "c-new"
    await _rooms_holding(store, "GHJKLM", [("g-first", "finished", 1.0), ("g-second", "finished", 2.0),
                                           ("g-play", "playing", 0.5)])
    assert await index.by_code("GHJKLM") == "g-play"
    await _rooms_holding(store, "NPQRST", [("n-first", "finished", 1.0), ("n-second", "finished", 2.0)])
    assert await index.by_code("NPQRST") == "n-second"  # finished: JoinRoom says so, not "no such room"
    assert await index.by_code("UVWXYZ") is None


async def test_a_new_code_is_one_no_room_in_play_holds(store: EventStore, monkeypatch) -> None:
    """CreateRoom's code: drawn again while a room in play holds it; a finished room's
    code may come back (its players no longer join by it)."""
    import hand_room.index as index_module

    index = RoomIndex(store.engine)
    await index.start()
    await _rooms_holding(store, "WAITED", [("w", "waiting", 1.0)])
    await _rooms_holding(store, "PLAYED", [("p", "playing", 1.0)])
    await _rooms_holding(store, "OLDONE", [("o", "finished", 1.0)])
    drawn = iter(["WAITED", "PLAYED", "OLDONE", "NEVER1"])
    monkeypatch.setattr(index_module, "new_join_code", lambda: next(drawn))
    assert await index.free_code() == "OLDONE"
