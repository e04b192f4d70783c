"""A finished match's ratings, statistics and conduct, inside the projection's transaction.

Each unit (a seat, or a team in partnership) is a team of the rating model, ranked by
its final place (decision 0004). What a human seat's player keeps of the update depends
on what they played (``conduct.seat_play`` over the room's archived events,
``ratings.take``; decision 0027): a player who left the match takes the seat's result
but gains nothing from the bot that finished it; bot-played moves earn nothing; a seat
its player never moved is not rated. Free-for-all ratings live in ``ledger_players``,
partnership ratings in ``ledger_team_ratings``: the two never mix. Rows are read
``FOR UPDATE`` in player-id order, so two replicas rating matches of the same player
cannot lose an update.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from hand.v1 import room_events_pb2, room_pb2
from hand_engine import DrawStock
from hand_infra.sqlstore import upsert_into
from hand_table import MatchStarted, MoveMade, RoomEvent, SeatAway, SeatBack

from . import ratings
from ._schema import conduct, events, match_leavers, players, team_ratings
from .conduct import SeatPlay, recent_after, seat_play
from .sheets import Outcome

__all__ = ["rate_match"]

PLAY_KINDS = ("match_started", "move_made", "seat_away", "seat_back")
_NO_ACTION = DrawStock()  # a placeholder: seat_play reads a move's seat and origin only


async def _plays(conn: AsyncConnection, room_id: str, seats: int) -> dict[int, SeatPlay]:
    """The fold of ``conduct.seat_play`` over the archive, reading only the seat and the origin
    of each wire message (decoding whole moves, engine events and all, costs ~0.5 s for a
    five-round match)."""
    rows = await conn.execute(select(events.c.kind, events.c.payload).where(
        events.c.room_id == room_id, events.c.kind.in_(PLAY_KINDS), events.c.error.is_(None))
        .order_by(events.c.seq))
    return seat_play((_fact(r.kind, room_events_pb2.RoomEvent.FromString(r.payload)) for r in rows), seats)


def _fact(kind: str, ev: room_events_pb2.RoomEvent) -> RoomEvent:
    """Just what ``seat_play`` reads of an archived event."""
    body = getattr(ev, kind)
    if kind == "move_made":
        bot = body.origin == room_pb2.MOVE_ORIGIN_BOT
        return MoveMade(seat=body.seat, action=_NO_ACTION, origin="bot" if bot else "player", round_no=0,
                        turn_no=0)
    if kind == "seat_away":
        return SeatAway(seat=body.seat, reason="left")
    if kind == "seat_back":
        return SeatBack(seat=body.seat, connected_at=0.0)
    return MatchStarted(seed=None)


def _upsert(conn: AsyncConnection, table, columns: tuple[str, ...]):
    """INSERT rows, or UPDATE ``columns`` where the player has one (one statement on both backends)."""
    stmt = upsert_into(conn, table)
    return stmt.on_conflict_do_update(index_elements=["player_id"], set_={c: stmt.excluded[c] for c in columns})


async def _current(conn: AsyncConnection, table, people: list[str]) -> dict[str, ratings.Rating]:
    rows = await conn.execute(select(table.c.player_id, table.c.mu, table.c.sigma)
                              .where(table.c.player_id.in_(people))
                              .order_by(table.c.player_id).with_for_update())
    return {r.player_id: ratings.Rating(r.mu, r.sigma) for r in rows}


async def rate_match(conn: AsyncConnection, room_id: str, out: Outcome, *, seats: int,
                     partnership: bool) -> None:
    """Matches, wins, ratings and conduct of the match's players; the seats left, and those
    not rated, of the match."""
    people = sorted({pid for s in out.standings for pid in s.player_ids if pid})
    plays = await _plays(conn, room_id, seats)
    human = {seat: pid for s in out.standings for seat, pid in zip(s.seats, s.player_ids, strict=True) if pid}
    left = sorted(seat for seat in human if plays[seat].left)
    unrated: list[int] = []
    if people:
        await _rate(conn, out, people, plays, partnership, unrated)
        await _conduct(conn, {human[seat] for seat in left}, people)
    await conn.execute(insert(match_leavers).values(
        room_id=room_id, left_seats=json.dumps(left), unrated_seats=json.dumps(sorted(unrated))))


async def _rate(conn: AsyncConnection, out: Outcome, people: list[str], plays: dict[int, SeatPlay],
                partnership: bool, unrated: list[int]) -> None:
    counts = await _current(conn, players, people)  # locks the rows; their rating if free-for-all
    current = await _current(conn, team_ratings, people) if partnership else counts
    rating_of = {pid: current.get(pid, ratings.PRIOR) for pid in people}
    teams = [[rating_of[pid] if pid else None for pid in s.player_ids] for s in out.standings]
    rated = ratings.rate(teams, [s.place for s in out.standings])
    stats: dict[str, dict[str, Any]] = {}
    new: dict[str, ratings.Rating] = {}
    for s, team in zip(out.standings, rated, strict=True):
        for seat, pid, rating in zip(s.seats, s.player_ids, team, strict=True):
            if not pid or pid not in counts or pid in stats:
                continue
            stats[pid] = {"b_pid": pid, "b_win": int(s.winner)}
            play = plays[seat]
            kept = ratings.take(rating_of[pid], rating, share=play.share, left=play.left)
            if kept is None:
                unrated.append(seat)
            else:
                new[pid] = kept
    if stats:
        await conn.execute(MATCH_COUNTS, [stats[pid] for pid in sorted(stats)])
    rows = [{"player_id": pid, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal}
            for pid, r in sorted(new.items())]
    if rows and partnership:
        await conn.execute(_upsert(conn, team_ratings, ("mu", "sigma", "ordinal")), rows)
    elif rows:
        await conn.execute(FREE_FOR_ALL, [{f"b_{k}": v for k, v in row.items()} for row in rows])


async def _conduct(conn: AsyncConnection, leavers: set[str], people: list[str]) -> None:
    rows = await conn.execute(select(conduct).where(conduct.c.player_id.in_(people))
                              .order_by(conduct.c.player_id).with_for_update())
    before = {r.player_id: (r.quits, r.recent) for r in rows}
    values = [{"player_id": pid, "quits": before.get(pid, (0, ""))[0] + (pid in leavers),
               "recent": recent_after(before.get(pid, (0, ""))[1], pid in leavers)} for pid in people]
    await conn.execute(_upsert(conn, conduct, ("quits", "recent")), values)


MATCH_COUNTS = update(players).where(players.c.player_id == bindparam("b_pid")).values(
    matches=players.c.matches + 1, wins=players.c.wins + bindparam("b_win"))
FREE_FOR_ALL = update(players).where(players.c.player_id == bindparam("b_player_id")).values(
    mu=bindparam("b_mu"), sigma=bindparam("b_sigma"), ordinal=bindparam("b_ordinal"))
