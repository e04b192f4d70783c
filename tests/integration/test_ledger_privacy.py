"""The ledger's privacy rule (docs/privacy.md, decision 0012) over gRPC on a real server:
an account id only to its owner, public handles for everyone, bots as bots, guests never
as accounts; a leaderboard handle resolves to the same player's statistics."""

from __future__ import annotations

import grpc

from hand.v1 import ledger_service_pb2 as pb
from hand.v1 import room_pb2
from hand_common.accounts import public_handle
from hand_engine import Options
from hand_ledger.consumer import LedgerConsumer
from hand_ledger.grpc_messages import sheet_to_proto
from hand_ledger.privacy import Viewer
from hand_ledger.reads import SeatInfo, Sheet
from hand_ledger.settings import DEV_HANDLE_SECRET
from hand_sim.matches import play_match

from .ledger_service_support import ledger, refused, signed_in  # noqa: F401 - fixture
from tests.ledger_support import scenario_runs  # noqa: F401 - fixture

ROOM = "room-fewer_penalty"  # seats: p0, p1


async def test_a_sheet_shows_the_callers_own_id_and_only_public_handles_of_the_others(ledger) -> None:
    stub = ledger.stub
    anonymous = (await stub.GetScoreSheet(pb.GetScoreSheetRequest(room_id=ROOM))).sheet
    as_p1 = (await stub.GetScoreSheet(pb.GetScoreSheetRequest(room_id=ROOM), metadata=signed_in("p1"))).sheet
    as_other = (await stub.GetScoreSheet(pb.GetScoreSheetRequest(room_id=ROOM),
                                         metadata=signed_in("someone-else"))).sheet
    handles = [s.handle for s in anonymous.seats]
    assert all(h.startswith("h-") and len(h) == 28 for h in handles) and len(set(handles)) == 2
    assert not any("p0" in h or "p1" in h for h in handles)
    assert [s.player_id for s in anonymous.seats] == ["", ""] == [s.player_id for s in as_other.seats]
    assert [s.player_id for s in as_p1.seats] == ["", "p1"]
    assert [s.handle for s in as_p1.seats] == handles == [s.handle for s in as_other.seats]
    assert not any(s.guest for s in anonymous.seats)
    for r in anonymous.rounds:
        assert [ln.player_id for ln in r.lines] == ["", ""] and [ln.handle for ln in r.lines] == handles
    assert [ln.player_id for ln in as_p1.rounds[0].lines] == ["", "p1"]
    result = (await stub.GetMatchResult(pb.GetMatchResultRequest(room_id=ROOM), metadata=signed_in("p0"))).result
    assert [list(s.player_ids) for s in result.standings] == [["p0"], [""]]
    assert [list(s.handles) for s in result.standings] == [[handles[0]], [handles[1]]]


async def test_stats_answer_for_ones_own_id_or_a_public_handle_never_anothers_id(ledger) -> None:
    stub = ledger.stub
    for metadata in ((), signed_in("p0")):
        code, name, _ = await refused(stub.GetPlayerStats(pb.GetPlayerStatsRequest(player_id="p1"),
                                                          metadata=metadata))
        assert (code, name) == (grpc.StatusCode.PERMISSION_DENIED, "ERROR_CODE_PLAYER_ID_PRIVATE")
    own = (await stub.GetPlayerStats(pb.GetPlayerStatsRequest(), metadata=signed_in("p1"))).stats
    assert own.player_id == "p1" and own.handle == public_handle(DEV_HANDLE_SECRET, "p1")
    public = (await stub.GetPlayerStats(pb.GetPlayerStatsRequest(handle=own.handle))).stats
    assert public.player_id == "" and public.handle == own.handle and public.matches == own.matches
    code, name, _ = await refused(stub.GetPlayerStats(pb.GetPlayerStatsRequest()))
    assert (code, name) == (grpc.StatusCode.UNAUTHENTICATED, "ERROR_CODE_UNAUTHENTICATED")


async def test_leaderboard_links_resolve_by_handle_and_show_no_ids_but_the_callers(ledger) -> None:
    stub = ledger.stub
    board = (await stub.GetLeaderboard(pb.GetLeaderboardRequest(page_size=200))).entries
    assert board and all(e.stats.player_id == "" and e.stats.handle for e in board)
    for e in board:
        linked = (await stub.GetPlayerStats(pb.GetPlayerStatsRequest(handle=e.stats.handle))).stats
        assert linked == e.stats
    mine = (await stub.GetLeaderboard(pb.GetLeaderboardRequest(page_size=200), metadata=signed_in("p0"))).entries
    assert [e.stats.player_id for e in mine if e.stats.player_id] == ["p0"]


async def test_bots_are_bots_and_guests_are_never_presented_as_accounts(ledger) -> None:
    run = await play_match("hand", 3, rounds=1, seed=8, room_id="room-guests", player_ids=["guest:ada", "p7", ""])
    await LedgerConsumer(ledger.server.store, None).record(run.events)
    stub = ledger.stub
    sheet = (await stub.GetScoreSheet(pb.GetScoreSheetRequest(room_id="room-guests"))).sheet
    assert [(s.guest, bool(s.handle), s.player_id) for s in sheet.seats] == [
        (True, False, ""), (False, True, ""), (True, False, "")]
    board = (await stub.GetLeaderboard(pb.GetLeaderboardRequest(page_size=200))).entries
    assert public_handle(DEV_HANDLE_SECRET, "p7") in {e.stats.handle for e in board}
    assert len(board) == len({e.stats.handle for e in board})  # guests: not ranked, no blank rows
    assert all(e.stats.handle for e in board)
    replay = await stub.GetReplay(pb.GetReplayRequest(room_id="room-guests"))
    assert replay.complete and all(not ev.seat_taken.player_id for ev in replay.events
                                   if ev.WhichOneof("event") == "seat_taken")
    # a bot seat: a bot, neither an account nor a guest
    bot = Sheet("r", "hand", Options(partnership=False), "finished",
                (SeatInfo(0, "bot", "", "bot-0"), SeatInfo(1, "human", "p1", "n1")), ())
    seats = sheet_to_proto(bot, Viewer(None, DEV_HANDLE_SECRET)).seats
    assert [(s.kind, s.guest, s.handle == "") for s in seats] == [
        (room_pb2.SEAT_KIND_BOT, False, True), (room_pb2.SEAT_KIND_HUMAN, False, False)]
