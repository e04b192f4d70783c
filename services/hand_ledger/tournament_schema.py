"""The tournament tables of the ledger's store (docs/decisions/0029-duplicate-tournaments.md).

- ``ledger_tournaments`` — one row per tournament: the organiser's settings, its
  status (open | running | closed) and the deals' fixed seeds (secret: never
  shown; each room's archive reveals its own once the tournament is closed).
- ``ledger_tournament_entrants`` — who entered, in entry order; the table and
  seat each got at the start.
- ``ledger_tournament_rooms`` — one row per table and deal, written when the
  deal's room is claimed (the key is the claim: one replica creates it) and
  completed with the room id and the seats' tokens (bearer secrets handed to
  each entrant by GetMyTable; the host's seat 0 token starts the match).

The tables join the ledger's ``metadata`` (created with the others at start).
"""

from __future__ import annotations

from sqlalchemy import Column, Float, Index, Integer, LargeBinary, String, Table, Text

from ._schema import metadata

tournaments = Table(
    "ledger_tournaments", metadata,
    Column("tournament_id", String(64), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("organiser", String(128), nullable=False),  # account id: never shown
    Column("organiser_name", String(64), nullable=False),
    Column("rules", LargeBinary, nullable=False),  # hand.v1.RuleSelection bytes
    Column("rounds", Integer, nullable=False),
    Column("seat_count", Integer, nullable=False),
    Column("turn_seconds", Integer, nullable=False),
    Column("deals", Integer, nullable=False),
    Column("tables", Integer, nullable=False),  # 0: open entry (set at the start)
    Column("bot_level", Integer, nullable=False),  # hand.v1.BotLevel
    Column("start_at", Float, nullable=False),
    Column("status", String(16), nullable=False),  # open | running | closed
    Column("seeds", Text, nullable=False),  # JSON list: deal d's StartMatch seed at index d-1
    Column("created_at", Float, nullable=False),
)

# The scheduler's two reads every tick (``due``: open by start time; ``running``) and the
# list's pages (newest first) seek these instead of scanning every tournament ever held.
Index("ix_ledger_tournaments_status", tournaments.c.status, tournaments.c.start_at)
Index("ix_ledger_tournaments_newest", tournaments.c.created_at.desc(), tournaments.c.tournament_id)

entrants = Table(
    "ledger_tournament_entrants", metadata,
    Column("tournament_id", String(64), primary_key=True),
    Column("player_id", String(128), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("entry_no", Integer, nullable=False),
    Column("table_no", Integer, nullable=True),  # from 1, set at the start
    Column("seat", Integer, nullable=True),
)

tables = Table(
    "ledger_tournament_rooms", metadata,
    Column("tournament_id", String(64), primary_key=True),
    Column("table_no", Integer, primary_key=True, autoincrement=False),
    Column("deal_no", Integer, primary_key=True, autoincrement=False),
    Column("room_id", String(64), nullable=True),  # None: claimed, being created
    Column("tokens", Text, nullable=False),  # JSON {seat: seat token}: secrets
)
