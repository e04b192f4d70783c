"""Tournament rows and scores → ``hand.v1`` tournament messages (privacy: docs/privacy.md —
an entrant is shown by display name and public handle, never by account id)."""

from __future__ import annotations

from hand.v1 import options_pb2
from hand.v1 import tournament_service_pb2 as pb

from . import tournament_scoring as scoring
from .privacy import Viewer
from .tournament_store import CLOSED, OPEN, RUNNING, Tournament

STATUS = {OPEN: pb.TOURNAMENT_STATUS_OPEN, RUNNING: pb.TOURNAMENT_STATUS_RUNNING,
          CLOSED: pb.TOURNAMENT_STATUS_CLOSED}
BOT = "Bot"


def entrant(t: Tournament, table: int, seat: int, who: Viewer) -> pb.TournamentEntrant:
    e = t.occupant(table, seat)
    if e is None:
        return pb.TournamentEntrant(name=BOT, bot=True, table=table, seat=seat)
    return pb.TournamentEntrant(name=e.name, handle=who.handle(e.player_id), table=table, seat=seat,
                                you=who.me == e.player_id)


def tournament_to_proto(t: Tournament, who: Viewer) -> pb.Tournament:
    out = pb.Tournament(
        tournament_id=t.tournament_id, name=t.name, organiser_name=t.organiser_name,
        you_organise=who.me == t.organiser, rules=options_pb2.RuleSelection.FromString(t.rules),
        rounds=t.rounds, seat_count=t.seat_count, turn_seconds=t.turn_seconds, deals=t.deals, tables=t.tables,
        bot_level=t.bot_level, start_at=t.start_at, status=STATUS[t.status], deals_played=t.played,
        deals_total=0 if t.status == OPEN else t.tables * t.deals, created_at=t.created_at)
    if t.status == OPEN:
        out.entrants.extend(pb.TournamentEntrant(name=e.name, handle=who.handle(e.player_id),
                                                 you=who.me == e.player_id) for e in t.entrants)
    else:
        out.entrants.extend(entrant(t, table, seat, who)
                            for table in range(1, t.tables + 1) for seat in range(t.seat_count))
    return out


def rooms_to_proto(t: Tournament, *, table: int | None = None, seat: int | None = None) -> list[pb.TournamentRoom]:
    """The rooms made so far (of ``table`` only, with ``seat``'s token, when given)."""
    return [pb.TournamentRoom(deal=r.deal, table=r.table, room_id=r.room_id, over=r.over,
                              seat_token=r.tokens.get(seat, "") if seat is not None else "")
            for r in t.rooms if r.room_id and (table is None or r.table == table)]


def standings_to_proto(t: Tournament, results: list[scoring.Result], who: Viewer
                       ) -> pb.GetTournamentStandingsResponse:
    compared = scoring.compare(results)
    out = pb.GetTournamentStandingsResponse(tournament=tournament_to_proto(t, who), rooms=rooms_to_proto(t))
    for s in scoring.standings(compared):
        out.standings.append(pb.TournamentStanding(place=s.place, entrant=entrant(t, s.table, s.seat, who),
                                                   matchpoints=s.matchpoints, raw_total=s.raw_total))
    for (deal, seat), scored in compared.items():
        out.comparisons.append(pb.DealComparison(deal=deal, seat=seat, results=[
            pb.DealResult(table=x.result.table, entrant=entrant(t, x.result.table, seat, who),
                          score=x.result.score, matchpoints=x.matchpoints) for x in scored]))
    return out
