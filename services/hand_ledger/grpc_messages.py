"""Ledger domain → ``hand.v1`` ledger messages (the one adapter; no logic here). Player ids
pass through the caller's ``Viewer`` (``privacy``): each shown only to its owner."""

from __future__ import annotations

from hand.v1 import ledger_service_pb2 as pb
from hand.v1 import options_pb2, room_pb2
from hand_engine import unit_of, view
from hand_wire import (
    FINISH, EnumCodec, cards_out, options_to_proto, state_to_proto, view_to_proto, room_info, to_proto,
)
from hand_table import ChatSent, DealCheck, complete, for_seat

from .privacy import Viewer
from .reads import PlayerStats, Sheet
from .replay import Check, Step
from .sheets import Outcome, provisional_standings

_KIND = {"empty": room_pb2.SEAT_KIND_EMPTY, "human": room_pb2.SEAT_KIND_HUMAN, "bot": room_pb2.SEAT_KIND_BOT}
_STATUS = {"waiting": room_pb2.ROOM_STATUS_WAITING, "playing": room_pb2.ROOM_STATUS_PLAYING,
           "finished": room_pb2.ROOM_STATUS_FINISHED}
OUTCOME = EnumCodec(pb.TieBreakOutcome.DESCRIPTOR)
TIE_BREAK = EnumCodec(options_pb2.TieBreak.DESCRIPTOR)


def sheet_to_proto(s: Sheet, who: Viewer) -> pb.ScoreSheet:
    partnership = s.options.partnership
    msg = pb.ScoreSheet(room_id=s.room_id, preset=s.preset, options=options_to_proto(s.options),
                        status=_STATUS[s.status])
    for seat in s.seats:
        msg.seats.add(seat=seat.seat, player_id=who.player_id(seat.player_id), name=seat.name,
                      kind=_KIND[seat.kind], unit=unit_of(seat.seat, partnership),
                      handle=who.handle(seat.player_id), guest=who.guest(seat.kind, seat.player_id))
    for r in s.rounds:
        row = msg.rounds.add(round_no=r.round_no, playoff=r.playoff, dealer=r.dealer,
                             finish=FINISH.encode(r.finish), winner=r.winner, multiplier=r.multiplier)
        for ln in r.lines:
            row.lines.add(seat=ln.seat, player_id=who.player_id(ln.player_id), handle=who.handle(ln.player_id),
                          opened=ln.opened,
                          opening_total=ln.opening_total, cards_left=cards_out(ln.cards_left),
                          cards_value=ln.cards_value, score=ln.score, running_total=ln.running_total,
                          went_out=r.winner == ln.seat)
        for t in r.teams:
            row.teams.add(team=t.team, score=t.score, running_total=t.running_total)
    return msg


def match_to_proto(room_id: str, sheet: Sheet, out: Outcome | None, who: Viewer) -> pb.MatchResult:
    """The match result; before the end, provisional standings from the sheet."""
    o = sheet.options
    msg = pb.MatchResult(room_id=room_id, over=out is not None, tie_break=TIE_BREAK.encode(o.tie_break),
                         rounds=o.rounds)
    if out is None:
        standings = provisional_standings(
            sheet.rounds, n=len(sheet.seats), partnership=o.partnership,
            player_ids={s.seat: s.player_id for s in sheet.seats})
        msg.playoff_rounds = sum(1 for r in sheet.rounds if r.playoff)
    else:
        standings = out.standings
        msg.winners.extend(out.winners)
        msg.outcome = OUTCOME.encode(out.outcome)
        msg.tied.extend(out.tied)
        msg.playoff_rounds = out.playoff_rounds
        msg.left_seats.extend(out.left_seats)
        msg.human_left = bool(out.left_seats)
    for s in standings:
        msg.standings.add(unit=s.unit, seats=s.seats, player_ids=[who.player_id(p) for p in s.player_ids],
                          handles=[who.handle(p) for p in s.player_ids], total=s.total,
                          regular_total=s.regular_total, outs=s.outs, penalty_points=s.penalty_points,
                          place=s.place, winner=s.winner)
    return msg


def stats_to_proto(s: PlayerStats, who: Viewer) -> pb.PlayerStats:
    r, t = s.rating, s.partnership_rating
    return pb.PlayerStats(
        player_id=who.player_id(s.player_id), handle=who.handle(s.player_id), name=s.name, matches=s.matches, wins=s.wins, rounds=s.rounds,
        rounds_won=s.rounds_won, hand_finishes=s.hand_finishes, rounds_opened=s.rounds_opened,
        opening_rate=s.opening_rate, mean_round_score=s.mean_round_score, total_round_score=s.score_sum,
        rating=pb.Rating(mu=r.mu, sigma=r.sigma, ordinal=r.ordinal),
        partnership_rating=pb.Rating(mu=t.mu, sigma=t.sigma, ordinal=t.ordinal), quits=s.quits,
        recent_quits=s.recent_quits)


def check_to_proto(c: Check) -> pb.CheckReplayResponse:
    return pb.CheckReplayResponse(ok=c.ok, events_checked=c.events, moves_checked=c.moves,
                                  results_checked=c.results, mismatch_seq=c.mismatch_seq,
                                  mismatch=c.mismatch)


_VERDICT = {"verified": pb.DEAL_VERDICT_VERIFIED, "failed": pb.DEAL_VERDICT_FAILED,
            "pending": pb.DEAL_VERDICT_PENDING, "unverifiable": pb.DEAL_VERDICT_UNVERIFIABLE}


def deals_to_proto(room_id: str, checks: list[DealCheck]) -> pb.VerifyDealResponse:
    return pb.VerifyDealResponse(room_id=room_id, ok=bool(checks) and all(c.verdict == "verified" for c in checks),
                                 rounds=[pb.DealCheck(
                                     round_no=c.round_no, deal_version=c.deal_version, verdict=_VERDICT[c.verdict],
                                     commitment=c.commitment, server_seed=c.server_seed, seat_seeds=c.seat_seeds,
                                     rebuilds=c.rebuilds, moves=c.moves, mismatch_seq=c.mismatch_seq,
                                     mismatch=c.mismatch, match_commitment=c.match_commitment,
                                     match_secret=c.match_secret) for c in checks])


def replay_to_proto(room_id: str, steps: list[Step], step_no: int, from_seq: int, seat: int | None,
                    over: bool) -> pb.GetReplayResponse:
    """Events ``from_seq..step_no`` and the position after ``step_no``: each event as Watch
    carries it to ``seat`` while the match runs (``for_seat``), complete once it is over.
    Quick chat is left out (docs/decisions/0025-quick-chat.md): steps keep their seqs, a
    chat's step just adds no event."""
    room = steps[step_no].room
    msg = pb.GetReplayResponse(room_id=room_id, complete=over, seat=seat, step=step_no,
                               event_count=len(steps))
    msg.events.extend(to_proto(complete(s.recorded) if over else for_seat(s.recorded, seat))
                      for s in steps[from_seq:step_no + 1] if not isinstance(s.recorded.event, ChatSent))
    if room.round is not None:
        msg.view.CopyFrom(view_to_proto(view(room.round, seat), room.options))
        if over:
            msg.position.CopyFrom(state_to_proto(room.round))
    msg.room.CopyFrom(room_info(room))  # a spectator's: no join code
    return msg
