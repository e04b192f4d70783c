"""``LedgerService`` over gRPC on a real server (port 0), its store filled from
in-process matches: score sheets, results, statistics, leaderboard, replays
(redacted while the match runs, complete once over), the replay check, health,
reflection and refusals with a RuleError detail."""

from __future__ import annotations

from dataclasses import replace

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from sqlalchemy import update

from hand.v1 import errors_pb2, state_pb2
from hand.v1 import ledger_service_pb2 as pb
from hand_engine import Discard, view
from hand_engine.cards import JOKER_IDS
from hand_common.status import from_status
from hand_ledger import _schema, grpc_messages
from hand_ledger.replay import fold
from hand_table import MoveMade, RoundDealt, complete, for_seat
from hand_wire import encode, to_proto, cards_out, state_to_proto, view_to_proto
from hand_sim.matches import seat_token
from tests.ledger_support import scenario_runs  # noqa: F401 - fixture

from .ledger_service_support import ledger, refused, signed_in  # noqa: F401 - fixture

AR = (("accept-language", "ar"),)


async def test_score_sheet_and_match_result_report_every_line_and_the_tie_break(ledger) -> None:
    run = ledger.runs["fewer_penalty"]
    sheet = (await ledger.stub.GetScoreSheet(pb.GetScoreSheetRequest(room_id=run.room.room_id))).sheet
    assert [s.name for s in sheet.seats] == ["n0", "n1"] and sheet.preset == "hand"
    assert [s.player_id for s in sheet.seats] == ["", ""]  # account ids: their owners' only (privacy.md)
    assert [r.finish for r in sheet.rounds] == [state_pb2.FINISH_NORMAL, state_pb2.FINISH_HAND,
                                                 state_pb2.FINISH_EXHAUSTED]
    hand_round = sheet.rounds[1]
    assert hand_round.multiplier == 2 and hand_round.winner == 1 and not hand_round.teams
    a, b = hand_round.lines
    assert (a.opened, a.opening_total, a.cards_value, a.score, a.running_total) == (True, 72, 35, 70, 40)
    assert (b.went_out, b.score, b.running_total) == (True, -60, 40) and not a.went_out
    result = (await ledger.stub.GetMatchResult(pb.GetMatchResultRequest(room_id=run.room.room_id))).result
    assert result.over and list(result.winners) == [0] and list(result.tied) == [0, 1]
    assert result.outcome == pb.TIE_BREAK_OUTCOME_FEWER_PENALTY_POINTS
    assert [(s.total, s.outs, s.penalty_points, s.place) for s in result.standings] == [
        (140, 1, 170, 1), (140, 1, 200, 2)]
    playoff = (await ledger.stub.GetMatchResult(pb.GetMatchResultRequest(room_id="room-playoff"))).result
    assert playoff.outcome == pb.TIE_BREAK_OUTCOME_PLAYOFF and playoff.playoff_rounds == 1
    partners = (await ledger.stub.GetScoreSheet(pb.GetScoreSheetRequest(room_id="room-partnership_hand"))).sheet
    assert [(t.score, t.running_total) for t in partners.rounds[0].teams] == [(400, 400), (-60, -60)]
    assert [s.unit for s in partners.seats] == [0, 1, 0, 1]


async def test_a_running_match_has_provisional_standings(ledger) -> None:
    result = (await ledger.stub.GetMatchResult(pb.GetMatchResultRequest(room_id="running"))).result
    assert not result.over and not result.winners and len(result.standings) == 3
    assert result.outcome == pb.TIE_BREAK_OUTCOME_UNSPECIFIED


async def test_player_stats_and_the_leaderboard(ledger) -> None:
    stats = (await ledger.stub.GetPlayerStats(pb.GetPlayerStatsRequest(player_id="p1"),
                                               metadata=signed_in("p1"))).stats
    assert stats.matches == len(ledger.runs) and stats.rounds > stats.matches
    assert 0 <= stats.opening_rate <= 1 and stats.rating.sigma < 25 / 3
    assert stats.rating.ordinal == pytest.approx(stats.rating.mu - 3 * stats.rating.sigma)
    page = await ledger.stub.GetLeaderboard(pb.GetLeaderboardRequest(page_size=2, min_matches=1))
    assert [e.rank for e in page.entries] == [1, 2] and page.next_page_token
    rest = await ledger.stub.GetLeaderboard(pb.GetLeaderboardRequest(page_size=2,
                                                                     page_token=page.next_page_token))
    assert [e.rank for e in rest.entries] == [3, 4] and not rest.next_page_token
    ordinals = [e.stats.rating.ordinal for e in [*page.entries, *rest.entries]]
    assert ordinals == sorted(ordinals, reverse=True)


def engine_events(reply: pb.GetReplayResponse, member: str) -> list:
    """Every engine event ``member`` of the reply's moves and deals."""
    carriers = [getattr(ev, ev.WhichOneof("event")) for ev in reply.events
                if ev.WhichOneof("event") in ("move_made", "round_dealt")]
    return [e for c in carriers for e in c.events if e.WhichOneof("event") == member]


def assert_redacted_for(reply: pb.GetReplayResponse, run, seat: int | None) -> None:
    """A running match's replay as ``seat`` (None: a spectator) may see it, event for event
    what Watch sends that reader (``to_proto(for_seat(...))``)."""
    assert not reply.complete and reply.step == len(run.events) - 1 == reply.event_count - 1
    assert not reply.HasField("position") and reply.room.join_code == ""
    assert reply.view == view_to_proto(view(run.room.round, seat), run.room.options)
    assert list(reply.events) == [to_proto(for_seat(e.recorded, seat)) for e in run.events]
    draws = engine_events(reply, "stock_drawn")
    assert draws and all(d.stock_drawn.HasField("card") == (d.stock_drawn.seat == seat) for d in draws)
    deals = [ev.round_dealt for ev in reply.events if ev.WhichOneof("event") == "round_dealt"]
    assert deals and all(not d.deck for d in deals)
    assert all(not d.round_started.deck for d in engine_events(reply, "round_started"))
    assert not any(ev.match_started.HasField("seed") for ev in reply.events
                   if ev.WhichOneof("event") == "match_started")
    assert all(not ev.seat_taken.player_id for ev in reply.events if ev.WhichOneof("event") == "seat_taken")


async def test_a_replay_of_a_running_match_is_redacted_for_the_asking_seat(ledger) -> None:
    run = ledger.running
    steps = fold([e.recorded for e in run.events])
    assert_redacted_for(await ledger.stub.GetReplay(pb.GetReplayRequest(room_id="running")), run, None)
    # hand.room-events carries no token hashes, so the ledger cannot tell a seat from its token:
    # a seat's replay is refused over gRPC; rendered for seat 1 it is redacted like its Watch
    code, name, _ = await refused(ledger.stub.GetReplay(pb.GetReplayRequest(
        room_id="running", seat_token=seat_token(1))))
    assert (code, name) == (grpc.StatusCode.PERMISSION_DENIED, "ERROR_CODE_SEAT_TOKEN_INVALID")
    assert_redacted_for(grpc_messages.replay_to_proto("running", steps, len(steps) - 1, 0, 1, False), run, 1)
    mid = await ledger.stub.GetReplay(pb.GetReplayRequest(room_id="running", step=20, from_seq=18))
    assert [e.seq for e in mid.events] == [18, 19, 20]
    assert mid.view == view_to_proto(view(steps[20].room.round, None), run.room.options)
    assert mid.room.next_seq == 21 and mid.room.room_id == "running"
    code, name, _ = await refused(ledger.stub.GetReplay(pb.GetReplayRequest(room_id="running", seat=2)))
    assert (code, name) == (grpc.StatusCode.PERMISSION_DENIED, "ERROR_CODE_SEAT_TOKEN_INVALID")
    code, name, _ = await refused(ledger.stub.GetReplay(pb.GetReplayRequest(room_id="running",
                                                                            seat_token="nope")))
    assert (code, name) == (grpc.StatusCode.PERMISSION_DENIED, "ERROR_CODE_SEAT_TOKEN_INVALID")
    code, name, _ = await refused(ledger.stub.GetReplay(pb.GetReplayRequest(room_id="running", step=10**6)))
    assert (code, name) == (grpc.StatusCode.OUT_OF_RANGE, "ERROR_CODE_SEQ_OUT_OF_RANGE")
    code, name, _ = await refused(ledger.stub.GetReplay(pb.GetReplayRequest(room_id="running", step=3,
                                                                            from_seq=5)))
    assert (code, name) == (grpc.StatusCode.INVALID_ARGUMENT, "ERROR_CODE_INVALID_ARGUMENT")


async def test_a_replay_of_a_finished_match_is_complete_at_every_step(ledger) -> None:
    run = ledger.runs["random_solo"]
    steps = fold([e.recorded for e in run.events])
    room_id = run.room.room_id
    full = await ledger.stub.GetReplay(pb.GetReplayRequest(room_id=room_id))
    assert full.complete and len(full.events) == len(run.events) == full.event_count
    # as published, complete, but for the account ids (docs/privacy.md)
    assert list(full.events) == [to_proto(complete(e.recorded)) for e in run.events]
    assert all(not ev.seat_taken.player_id for ev in full.events if ev.WhichOneof("event") == "seat_taken")
    assert all(d.stock_drawn.HasField("card") for d in engine_events(full, "stock_drawn"))
    dealt = [e.recorded.event for e in run.events if isinstance(e.recorded.event, RoundDealt)]
    assert [list(ev.round_dealt.deck) for ev in full.events if ev.WhichOneof("event") == "round_dealt"] == [
        cards_out(d.deck) for d in dealt]  # wire card ids
    assert [list(d.round_started.deck) for d in engine_events(full, "round_started")] == [
        cards_out(d.deck) for d in dealt]
    for step in (8, len(steps) // 2, len(steps) - 1):  # 6 is the first deal
        reply = await ledger.stub.GetReplay(pb.GetReplayRequest(room_id=room_id, step=step, from_seq=step,
                                                                seat=2))
        assert reply.seat == 2 and reply.position == state_to_proto(steps[step].room.round)
        assert [e.seq for e in reply.events] == [step]
        assert reply.view == view_to_proto(view(steps[step].room.round, 2), run.room.options)


async def test_score_lines_carry_wire_card_ids(ledger) -> None:
    run = ledger.runs["fewer_penalty"]
    sheet = (await ledger.stub.GetScoreSheet(pb.GetScoreSheetRequest(room_id=run.room.room_id))).sheet
    for row, res in zip(sheet.rounds, run.room.match.results, strict=True):
        assert [list(ln.cards_left) for ln in row.lines] == [cards_out(s.cards_left) for s in res.seats]
    assert any(ln.cards_left for row in sheet.rounds for ln in row.lines)


async def test_check_replay_passes_and_catches_a_tampered_archive(ledger) -> None:
    for run in ledger.runs.values():
        reply = await ledger.stub.CheckReplay(pb.CheckReplayRequest(room_id=run.room.room_id))
        assert reply.ok and reply.events_checked == len(run.events) and not reply.HasField("mismatch_seq")
    run = ledger.runs["most_outs"]
    moved = [e.recorded for e in run.events
             if isinstance(e.recorded.event, MoveMade) and isinstance(e.recorded.event.action, Discard)][3]
    other = next(c for c in JOKER_IDS if c != moved.event.action.card)  # not the card discarded
    tampered = replace(moved, event=replace(moved.event, action=Discard(other)))
    async with ledger.server.store._write() as conn:
        await conn.execute(update(_schema.events).where(
            _schema.events.c.room_id == run.room.room_id, _schema.events.c.seq == moved.seq)
            .values(payload=encode(tampered)))
    reply = await ledger.stub.CheckReplay(pb.CheckReplayRequest(room_id=run.room.room_id))
    assert not reply.ok and reply.mismatch_seq == moved.seq and reply.mismatch


async def test_unknown_rooms_and_players_are_refused_in_the_callers_language(ledger) -> None:
    stub = ledger.stub
    for call in (stub.GetScoreSheet(pb.GetScoreSheetRequest(room_id="nope")),
                 stub.GetMatchResult(pb.GetMatchResultRequest(room_id="nope")),
                 stub.GetReplay(pb.GetReplayRequest(room_id="nope")),
                 stub.CheckReplay(pb.CheckReplayRequest(room_id="nope"))):
        code, name, _ = await refused(call)
        assert (code, name) == (grpc.StatusCode.NOT_FOUND, "ERROR_CODE_ROOM_NOT_FOUND")
    code, name, text = await refused(stub.GetPlayerStats(pb.GetPlayerStatsRequest(handle="h-x"), metadata=AR))
    assert (code, name) == (grpc.StatusCode.NOT_FOUND, "ERROR_CODE_PLAYER_NOT_FOUND") and "لاعب" in text
    code, name, _ = await refused(stub.GetScoreSheet(pb.GetScoreSheetRequest()))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    code, _, _ = await refused(stub.GetLeaderboard(pb.GetLeaderboardRequest(page_token="x")))
    assert code == grpc.StatusCode.INVALID_ARGUMENT


async def test_health_is_serving_and_reflection_lists_the_service(ledger) -> None:
    health = health_pb2_grpc.HealthStub(ledger.channel)
    for service in ("", "hand.v1.LedgerService"):
        reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    call = reflection_pb2_grpc.ServerReflectionStub(ledger.channel).ServerReflectionInfo()
    await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
    reply = await call.read()
    await call.done_writing()
    assert {"hand.v1.LedgerService", "grpc.health.v1.Health"} <= {
        s.name for s in reply.list_services_response.service}


async def test_a_replay_takes_no_seat_token_and_says_which_field_to_use(ledger) -> None:
    """Bug: the proto said "unset = the token's seat", but a seat token was refused during the
    match and after it alike, with a message about the token's validity. The ledger holds no
    seat credentials: a token is refused naming ``seat_token``, ``seat`` during the match
    naming ``seat``; unset, the view is the spectator's; after the match any seat's view."""
    room_id = ledger.runs["random_solo"].room.room_id
    for request in (pb.GetReplayRequest(room_id="running", seat_token=seat_token(1)),
                    pb.GetReplayRequest(room_id=room_id, seat_token=seat_token(1)),
                    pb.GetReplayRequest(room_id="running", seat=1)):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await ledger.stub.GetReplay(request)
        detail = from_status(rpc_status.from_call(info.value))
        assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert errors_pb2.ErrorCode.Name(detail.code) == "ERROR_CODE_SEAT_TOKEN_INVALID"
        assert detail.params["field"] == ("seat" if request.HasField("seat") else "seat_token")
        assert "leave seat_token empty" in detail.message
    spectator = await ledger.stub.GetReplay(pb.GetReplayRequest(room_id="running"))
    assert not spectator.HasField("seat")
    assert (await ledger.stub.GetReplay(pb.GetReplayRequest(room_id=room_id, seat=1))).seat == 1
    code, name, _ = await refused(ledger.stub.GetReplay(pb.GetReplayRequest(room_id=room_id, seat=9)))
    assert (code, name) == (grpc.StatusCode.INVALID_ARGUMENT, "ERROR_CODE_INVALID_ARGUMENT")
