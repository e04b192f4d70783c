"""The ledger's reads that a client or the scheduler makes again and again seek an index
instead of scanning (and sorting) every row ever written — the leaderboard's page, the
tournaments' list and the scheduler's reads — and a restart does not redo, for every
account, the handles made once: work that grew with the rows ever written. SQLite and
PostgreSQL."""

from __future__ import annotations

import json

from sqlalchemy import event, insert, text

from hand_common.accounts import GUEST_PREFIX
from hand_ledger import reads
from hand_ledger._schema import players
from hand_ledger.store import LedgerStore
from hand_ledger.tournament_schema import tournaments
from hand_ledger.tournament_store import TournamentStore

from .ledger_fixtures import ledger_db  # noqa: F401 - fixture

PLAYERS = 3000


async def test_a_leaderboard_page_reads_the_top_of_its_index_not_every_player(ledger_db) -> None:
    store = LedgerStore(await ledger_db())
    await store.start()
    try:
        rows = [{"player_id": (GUEST_PREFIX if i % 7 == 0 else "p") + f"{i:05d}", "name": f"n{i}",
                 "matches": 0 if i % 3 == 0 else 1 + i % 9, "wins": 0, "rounds": 0, "rounds_won": 0,
                 "hand_finishes": 0, "rounds_opened": 0, "score_sum": 0, "mu": 25.0, "sigma": 8.0,
                 "ordinal": 0.0 if i % 3 == 0 else (i * 7919 % 1000) / 20.0} for i in range(PLAYERS)]
        async with store.engine.begin() as conn:
            await conn.execute(insert(players), rows)
            if store.engine.dialect.name == "postgresql":
                await conn.execute(text("ANALYZE ledger_players"))
        ran: list[tuple[str, object]] = []

        def seen(conn, cursor, statement, parameters, context, executemany) -> None:
            ran.append((statement, parameters))

        event.listen(store.engine.sync_engine, "before_cursor_execute", seen)
        try:
            async with store.read() as conn:
                page = await reads.leaderboard(conn, offset=0, limit=11, min_matches=0)
        finally:
            event.remove(store.engine.sync_engine, "before_cursor_execute", seen)
        # the order is the product's: finished a match first, by ordinal, ties by id; no guests
        ranked = sorted((r for r in rows if not r["player_id"].startswith(GUEST_PREFIX)),
                        key=lambda r: (r["matches"] == 0, -r["ordinal"], r["player_id"]))
        assert [p.player_id for p in page] == [r["player_id"] for r in ranked[:11]]
        (statement, parameters), = [s for s in ran if "ledger_players" in s[0]]
        async with store.engine.connect() as conn:
            if store.engine.dialect.name == "sqlite":
                plan = " / ".join(r[3] for r in await conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}",
                                                                             parameters))
                assert "ix_ledger_players_board" in plan and "TEMP B-TREE" not in plan, plan  # before: a sort
            else:
                plan = (await conn.exec_driver_sql(f"EXPLAIN (ANALYZE, FORMAT JSON) {statement}", parameters)).scalar()
                plan = json.loads(plan) if isinstance(plan, str) else plan

                def read(node: dict) -> int:
                    own = (node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)) * node.get("Actual Loops", 1)
                    mine = own if node.get("Relation Name") == "ledger_players" else 0
                    return mine + sum(read(c) for c in node.get("Plans", []))

                assert read(plan[0]["Plan"]) < 100, plan  # before: all 3,000 players, then a sort
            names = set((await conn.execute(text(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ledger_players'"
                if store.engine.dialect.name == "sqlite" else
                "SELECT indexname FROM pg_indexes WHERE tablename = 'ledger_players'"))).scalars())
        assert "ix_ledger_players_board" in names and "ix_ledger_players_rank" not in names
    finally:
        await store.close()


async def _statements(store: LedgerStore, call) -> list[tuple[str, object]]:
    ran: list[tuple[str, object]] = []

    def seen(conn, cursor, statement, parameters, context, executemany) -> None:
        ran.append((statement, parameters))

    event.listen(store.engine.sync_engine, "before_cursor_execute", seen)
    try:
        await call()
    finally:
        event.remove(store.engine.sync_engine, "before_cursor_execute", seen)
    return ran


async def _reads(store: LedgerStore, statement: str, parameters, table: str) -> int | str:
    """SQLite: the plan's words; PostgreSQL: the rows the plan read from ``table``."""
    async with store.engine.connect() as conn:
        if store.engine.dialect.name == "sqlite":
            return " / ".join(r[3] for r in await conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters))
        plan = (await conn.exec_driver_sql(f"EXPLAIN (ANALYZE, FORMAT JSON) {statement}", parameters)).scalar()
    plan = json.loads(plan) if isinstance(plan, str) else plan

    def read(node: dict) -> int:
        own = (node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)) * node.get("Actual Loops", 1)
        return (own if node.get("Relation Name") == table else 0) + sum(read(c) for c in node.get("Plans", []))

    return read(plan[0]["Plan"])


async def test_the_tournament_list_and_the_schedulers_reads_seek_not_scan(ledger_db) -> None:
    """2,000 tournaments held and closed, three open or running: the list's first page and
    the scheduler's ``due`` and ``running`` (every tick) read those, not all 2,003 (before:
    a scan, and a sort for two of them)."""
    store = LedgerStore(await ledger_db())
    await store.start()
    try:
        rows = [{"tournament_id": f"t{i:05d}", "name": "n", "organiser": "o", "organiser_name": "o", "rules": b"",
                 "rounds": 1, "seat_count": 4, "turn_seconds": 30, "deals": 1, "tables": 0, "bot_level": 1,
                 "start_at": float(i), "status": "closed", "seeds": "[]", "created_at": float(i)} for i in range(2000)]
        rows += [{**rows[0], "tournament_id": f"u{n}", "status": status, "start_at": 5000.0 + n, "created_at": 5000.0 + n}
                 for n, status in enumerate(["open", "open", "running"])]
        async with store.engine.begin() as conn:
            await conn.execute(insert(tournaments), rows)
            if store.engine.dialect.name == "postgresql":
                await conn.execute(text("ANALYZE ledger_tournaments"))
        t = TournamentStore(store)
        assert await t.due(now=5000.5) == ["u0"]
        assert await t.running() == ["u2"]
        for name, call in {"page": lambda: t.page(0, 2), "due": lambda: t.due(now=1e12), "running": t.running}.items():
            statement, parameters = next(s for s in await _statements(store, call) if "ledger_tournaments" in s[0])
            read = await _reads(store, statement, parameters, "ledger_tournaments")
            if isinstance(read, str):
                assert "ix_ledger_tournaments" in read and "TEMP B-TREE" not in read, (name, read)
            else:
                assert read < 20, (name, read)
    finally:
        await store.close()


async def test_a_restart_makes_no_handles_once_every_account_has_one_under_the_secret(ledger_db, monkeypatch) -> None:
    """Handles come with the seat that brings an account; the start-up backfill is for a new
    or rotated secret. It ran in full on every start (every handle and every account read,
    a handle made for each: 2,000 here, per restart of every replica); now once per secret."""
    from hand_common.accounts import public_handle
    from hand_ledger import handles

    made = [0]

    def counted(secret: bytes, player_id: str) -> str:
        made[0] += 1
        return public_handle(secret, player_id)

    monkeypatch.setattr(handles, "public_handle", counted)
    url = await ledger_db()
    store = LedgerStore(url, handle_secret=b"one" * 11)
    await store.start()
    async with store.engine.begin() as conn:  # accounts of a database older than their handles
        await conn.execute(insert(players), [{"player_id": f"acct-{i}", "name": "n", "matches": 0, "wins": 0,
                                              "rounds": 0, "rounds_won": 0, "hand_finishes": 0, "rounds_opened": 0,
                                              "score_sum": 0, "mu": 25.0, "sigma": 8.0, "ordinal": 0.0}
                                             for i in range(2000)])
        await conn.execute(text("DELETE FROM ledger_cursors"))
    await store.close()

    async def start(secret: bytes) -> int:
        made[0] = 0
        s = LedgerStore(url, handle_secret=secret)
        await s.start()
        async with s.read() as conn:
            resolved = await handles.resolve(conn, public_handle(secret, "acct-7"))
        await s.close()
        assert resolved == "acct-7"
        return made[0]

    assert await start(b"one" * 11) == 2000  # the accounts without one: made
    assert await start(b"one" * 11) == 0  # before: 2,000 again, at every start
    assert await start(b"two" * 11) == 2000  # a rotated secret: every account's, once
    assert await start(b"two" * 11) == 0
