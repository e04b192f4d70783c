"""Tables of the ledger's own store (SQLAlchemy Core; SQLite or PostgreSQL).

- ``ledger_events`` — the archive of every room event (``hand.v1.RoomEvent``
  protobuf bytes, as published on hand.room-events), primary key
  ``(room_id, seq)``; ``kind`` is the event's oneof member. It is also the
  **tracking table**: a row is written in the same transaction as every
  effect of its event, so "this event was processed" and "its effects are
  there" cannot disagree, and a redelivered event fails on the key instead
  of counting twice.
- ``ledger_rooms`` / ``ledger_seats`` — what the projections need to know
  about a room (options, status, who sits where).
- ``ledger_rounds`` / ``ledger_lines`` / ``ledger_team_lines`` — the score
  sheets (docs/rules.md §9): one row per round, per seat and per team.
- ``ledger_matches`` — match results with the tie-break outcome (§10).
- ``ledger_players`` — statistics and the skill rating per player id.
- ``ledger_cursors`` — the ledger's own positions in other stores: how far room
  discovery has read the event store's outbox (hand_ledger/discovery.py).
- ``ledger_handles`` — public handle → account id (docs/privacy.md): how a
  handle shown to everyone is looked up without ever showing the id.
- ``ledger_team_ratings``, ``ledger_conduct``, ``ledger_match_leavers`` —
  partnership ratings, quits per player, the seats left in each match
  (decision 0027).

The engine set-up (SQLite WAL, ``BEGIN IMMEDIATE`` for writers) is the event
store's (:func:`hand_infra._schema.make_engine`).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger, Boolean, Column, DateTime, Float, Index, Integer, LargeBinary, MetaData, String, Table,
    Text, literal_column,
)

metadata = MetaData()

events = Table(
    "ledger_events", metadata,
    Column("room_id", String(64), primary_key=True),
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("kind", String(64), nullable=False),  # the RoomEvent oneof member (Recorded.kind)
    Column("payload", LargeBinary, nullable=False),  # the hand.v1.RoomEvent bytes, as published
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    Column("error", Text, nullable=True),  # why its projection failed (archived all the same)
)

rooms = Table(
    "ledger_rooms", metadata,
    Column("room_id", String(64), primary_key=True),
    Column("preset", String(64), nullable=False),
    Column("options", Text, nullable=False),  # what the wire says: RuleOptions as JSON (hand_wire.options_to_json)
    Column("seat_count", Integer, nullable=False),
    Column("rounds", Integer, nullable=False),  # fixed rounds of the match
    Column("partnership", Boolean, nullable=False),
    Column("status", String(16), nullable=False),  # waiting | playing | finished
)

seats = Table(
    "ledger_seats", metadata,
    Column("room_id", String(64), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(8), nullable=False),  # empty | human | bot
    Column("player_id", String(128), nullable=False),  # "" for bots and empty seats
    Column("name", String(128), nullable=False),
)

rounds = Table(
    "ledger_rounds", metadata,
    Column("room_id", String(64), primary_key=True),
    Column("round_no", Integer, primary_key=True, autoincrement=False),
    Column("dealer", Integer, nullable=False),
    Column("playoff", Boolean, nullable=False),
    Column("finish", String(16), nullable=True),  # NULL until scored
    Column("winner", Integer, nullable=True),
    Column("multiplier", Integer, nullable=True),
)

lines = Table(
    "ledger_lines", metadata,
    Column("room_id", String(64), primary_key=True),
    Column("round_no", Integer, primary_key=True, autoincrement=False),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("player_id", String(128), nullable=False),
    Column("opened", Boolean, nullable=False),
    Column("opening_total", Integer, nullable=True),
    Column("cards_left", Text, nullable=False),  # JSON list of card ids
    Column("cards_value", Integer, nullable=False),
    Column("score", Integer, nullable=False),
    Column("running_total", Integer, nullable=False),
)

team_lines = Table(
    "ledger_team_lines", metadata,
    Column("room_id", String(64), primary_key=True),
    Column("round_no", Integer, primary_key=True, autoincrement=False),
    Column("team", Integer, primary_key=True, autoincrement=False),
    Column("score", Integer, nullable=False),
    Column("running_total", Integer, nullable=False),
)

matches = Table(
    "ledger_matches", metadata,
    Column("room_id", String(64), primary_key=True),
    Column("winners", Text, nullable=False),  # JSON list of units
    Column("standings", Text, nullable=False),  # JSON list of standing objects (see sheets.py)
    Column("outcome", String(32), nullable=False),
    Column("tied", Text, nullable=False),  # JSON list of units
    Column("playoff_rounds", Integer, nullable=False),
    Column("ended_at", DateTime(timezone=True), nullable=False),
)

players = Table(
    "ledger_players", metadata,
    Column("player_id", String(128), primary_key=True),
    Column("name", String(128), nullable=False),
    Column("matches", Integer, nullable=False, default=0),
    Column("wins", Integer, nullable=False, default=0),
    Column("rounds", Integer, nullable=False, default=0),
    Column("rounds_won", Integer, nullable=False, default=0),
    Column("hand_finishes", Integer, nullable=False, default=0),
    Column("rounds_opened", Integer, nullable=False, default=0),
    Column("score_sum", BigInteger, nullable=False, default=0),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("ordinal", Float, nullable=False),
)
# The leaderboard's order, walked from its top: players with a finished match first, by
# rating ordinal, ties by id (``reads.leaderboard`` orders by these very expressions). On
# (ordinal, player_id) alone every page scanned and sorted every player (200,000 players:
# 31.6 ms a page on SQLite against 0.41 ms).
Index("ix_ledger_players_board", (players.c.matches == literal_column("0")), players.c.ordinal.desc(),
      players.c.player_id)
#: indexes of earlier releases that nothing reads any more: dropped at start
RETIRED_INDEXES = ("ix_ledger_players_rank",)

cursors = Table(
    "ledger_cursors", metadata,
    Column("name", String(64), primary_key=True),
    Column("position", BigInteger, nullable=False),
)

handles = Table(
    "ledger_handles", metadata,
    Column("handle", String(64), primary_key=True),  # hand_common.accounts.public_handle
    Column("player_id", String(128), nullable=False),
)

# Decision 0027 (tables of their own, so that an existing ledger database gains them with
# ``create_all``): ratings of partnership play, apart from ``ledger_players``' free-for-all one;
# how often each player left a match; which seats of a finished match their players left.
team_ratings = Table(
    "ledger_team_ratings", metadata,
    Column("player_id", String(128), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("ordinal", Float, nullable=False),
)

conduct = Table(
    "ledger_conduct", metadata,
    Column("player_id", String(128), primary_key=True),
    Column("quits", Integer, nullable=False),  # finished matches the player left before their end
    Column("recent", String(16), nullable=False),  # latest finished matches, newest last: "1" = left
)

match_leavers = Table(
    "ledger_match_leavers", metadata,
    Column("room_id", String(64), primary_key=True),
    Column("left_seats", Text, nullable=False),  # JSON list: human seats away when the match ended
    Column("unrated_seats", Text, nullable=False),  # JSON list: human seats their players never moved
)
