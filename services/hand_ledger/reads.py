"""Read models over the ledger's tables (domain dataclasses; no wire types).

Each function takes an open connection, so the projections can read their
own writes inside a transaction and the gRPC handlers read outside one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import String, func, literal, literal_column, select, union_all
from sqlalchemy.ext.asyncio import AsyncConnection

from hand_common.accounts import GUEST_PREFIX
from hand_table import Recorded
from hand_engine import Options
from hand_wire import decode, options_from_json

from ._schema import (
    conduct, events, lines, match_leavers, matches, players, rooms, rounds, seats, team_lines, team_ratings,
)
from .conduct import RECENT
from .ratings import PRIOR, Rating
from .sheets import Line, Outcome, ScoredRound, Standing, TeamLine


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    kind: str
    player_id: str
    name: str


@dataclass(frozen=True)
class Sheet:
    room_id: str
    preset: str
    options: Options
    status: str
    seats: tuple[SeatInfo, ...]
    rounds: tuple[ScoredRound, ...]


@dataclass(frozen=True)
class PlayerStats:
    player_id: str
    name: str
    matches: int
    wins: int
    rounds: int
    rounds_won: int
    hand_finishes: int
    rounds_opened: int
    score_sum: int
    rating: Rating  # free-for-all play
    partnership_rating: Rating = PRIOR  # partnership play (decision 0027)
    quits: int = 0  # finished matches the player left before their end
    recent_quits: int = 0  # of them, among the player's latest RECENT finished matches

    @property
    def opening_rate(self) -> float:
        return self.rounds_opened / self.rounds if self.rounds else 0.0

    @property
    def mean_round_score(self) -> float:
        return self.score_sum / self.rounds if self.rounds else 0.0


async def load_rounds(conn: AsyncConnection, room_id: str) -> list[ScoredRound]:
    """The room's scored rounds, in order, with their lines."""
    heads = (await conn.execute(select(rounds).where(
        rounds.c.room_id == room_id, rounds.c.finish.is_not(None)).order_by(rounds.c.round_no))).all()
    if not heads:
        return []
    by_round: dict[int, list[Line]] = {}
    for r in await conn.execute(select(lines).where(lines.c.room_id == room_id)
                                .order_by(lines.c.round_no, lines.c.seat)):
        by_round.setdefault(r.round_no, []).append(Line(
            r.seat, r.player_id, r.opened, r.opening_total, tuple(json.loads(r.cards_left)),
            r.cards_value, r.score, r.running_total))
    by_team: dict[int, list[TeamLine]] = {}
    for r in await conn.execute(select(team_lines).where(team_lines.c.room_id == room_id)
                                .order_by(team_lines.c.round_no, team_lines.c.team)):
        by_team.setdefault(r.round_no, []).append(TeamLine(r.team, r.score, r.running_total))
    return [ScoredRound(h.round_no, h.playoff, h.dealer, h.finish, h.winner, h.multiplier,
                        tuple(by_round.get(h.round_no, ())), tuple(by_team.get(h.round_no, ())))
            for h in heads]


async def load_sheet(conn: AsyncConnection, room_id: str) -> Sheet | None:
    room = (await conn.execute(select(rooms).where(rooms.c.room_id == room_id))).first()
    if room is None:
        return None
    seat_rows = await conn.execute(select(seats).where(seats.c.room_id == room_id).order_by(seats.c.seat))
    return Sheet(room_id, room.preset, options_from_json(room.options, room.seat_count), room.status,
                 tuple(SeatInfo(s.seat, s.kind, s.player_id, s.name) for s in seat_rows),
                 tuple(await load_rounds(conn, room_id)))


async def load_outcome(conn: AsyncConnection, room_id: str) -> Outcome | None:
    row = (await conn.execute(select(matches).where(matches.c.room_id == room_id))).first()
    if row is None:
        return None
    standings = tuple(Standing(**{**s, "seats": tuple(s["seats"]), "player_ids": tuple(s["player_ids"])})
                      for s in json.loads(row.standings))
    leavers = (await conn.execute(select(match_leavers.c.left_seats)
                                  .where(match_leavers.c.room_id == room_id))).first()
    return Outcome(tuple(json.loads(row.winners)), standings, row.outcome, tuple(json.loads(row.tied)),
                   row.playoff_rounds, tuple(json.loads(leavers.left_seats)) if leavers else ())


def _stats(r) -> PlayerStats:
    team = PRIOR if r.team_mu is None else Rating(r.team_mu, r.team_sigma)
    recent = (r.recent or "")[-RECENT:]
    return PlayerStats(r.player_id, r.name, r.matches, r.wins, r.rounds, r.rounds_won, r.hand_finishes,
                       r.rounds_opened, r.score_sum, Rating(r.mu, r.sigma), team, r.quits or 0,
                       recent.count("1"))


def _with_extras():
    """``ledger_players`` with each player's partnership rating and conduct (decision 0027)."""
    return (select(players, team_ratings.c.mu.label("team_mu"), team_ratings.c.sigma.label("team_sigma"),
                   conduct.c.quits, conduct.c.recent)
            .outerjoin(team_ratings, team_ratings.c.player_id == players.c.player_id)
            .outerjoin(conduct, conduct.c.player_id == players.c.player_id))


async def load_player(conn: AsyncConnection, player_id: str) -> PlayerStats | None:
    row = (await conn.execute(_with_extras().where(players.c.player_id == player_id))).first()
    return None if row is None else _stats(row)


async def leaderboard(conn: AsyncConnection, *, offset: int, limit: int, min_matches: int
                      ) -> list[PlayerStats]:
    """Accounts by rating ordinal, best first (ties by player id), every player with a finished
    match above those without one (who only sat down: the starting rating's ordinal, 0, would
    otherwise rank them above everyone who lost); guests are not ranked (an unverified label is
    never presented as an account, docs/privacy.md)."""
    query = (_with_extras().where(players.c.matches >= min_matches,
                                   ~players.c.player_id.startswith(GUEST_PREFIX, autoescape=True))
             .order_by((players.c.matches == literal_column("0")).asc(), players.c.ordinal.desc(), players.c.player_id)
             .offset(offset).limit(limit))
    return [_stats(r) for r in await conn.execute(query)]


async def load_events(conn: AsyncConnection, room_id: str, from_seq: int = 0) -> list[Recorded]:
    """The room's archived events from ``from_seq``, in seq order (decoded ``hand.v1.RoomEvent``)."""
    query = (select(events.c.payload)
             .where(events.c.room_id == room_id, events.c.seq >= from_seq).order_by(events.c.seq))
    return [decode(r.payload) for r in await conn.execute(query)]


#: rooms per head query: each is one term of a compound SELECT (SQLite allows 500)
HEADS_CHUNK = 200


async def next_seqs(conn: AsyncConnection, room_ids: list[str]) -> dict[str, int]:
    """Per room, one past the highest archived seq (0 for a room never seen). One ``max`` per
    room, each one step down the primary key's index; ``… IN (…) GROUP BY room_id`` read
    every archived event of the rooms, for every batch the consumer took."""
    out = dict.fromkeys(room_ids, 0)
    for start in range(0, len(room_ids), HEADS_CHUNK):
        heads = [select(literal(room_id, String).label("room_id"),
                        select(func.max(events.c.seq)).where(events.c.room_id == room_id).scalar_subquery())
                 for room_id in room_ids[start:start + HEADS_CHUNK]]
        for room_id, top in await conn.execute(heads[0] if len(heads) == 1 else union_all(*heads)):
            if top is not None:
                out[room_id] = top + 1
    return out
