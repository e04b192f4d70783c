"""Issue 27 through the browser bridge (``hand_web``, Connect and gRPC-Web) on the real stack: a room
instance reading ratings from a ledger (``HAND_ROOM_LEDGER_ADDRESS``), the bot service, and the
ledger (tournaments at the room instance), both served to browsers by one web server.

- A signed-in player quits two matches (leaves after the start; a bot plays the seat to the end):
  the ledger counts the quits from the room's events, and the room's "play now" reads them — after
  one quit a ticket is not held, after two it is held by decision 0027's ladder (60 s) while a
  clean player in the same pool is seated (with a bot) at the bot-fill limit: the quitter ladder
  end to end. FindMatch, GetTicket, CancelTicket and a second ticket's refusal (its RuleError, in
  Arabic) go through Connect.
- ``VerifyDeal`` of a finished match through Connect and gRPC-Web: every round verified from the
  public record.
- ``TournamentService`` through both protocols: create, enter, list, get; standings hidden before
  the close (RuleError, Arabic), and the close refused while deals are unplayed."""

from __future__ import annotations

import asyncio
import socket
import time

import grpc
import pytest
from connectrpc.errors import ConnectError

from hand.v1 import errors_pb2, ledger_service_pb2 as lpb, options_pb2, room_pb2
from hand.v1 import room_service_pb2 as rpb
from hand.v1 import tournament_service_pb2 as tpb
from hand_auth.tokens import Signer
from hand_bot.service import BotService
from hand_common.config import IdentityConfig
from hand_common.sessionkeys import private_key
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig
from hand_web.adapter import method_info
from hand_web.server import WebServer
from hand_web.settings import WebConfig

from .room_support import make_topics, start_instance, topics_for
from .web_support import PROTOCOLS, client

ROOMS = rpb.DESCRIPTOR.services_by_name["RoomService"]
LEDGER = lpb.DESCRIPTOR.services_by_name["LedgerService"]
TOURNAMENTS = tpb.DESCRIPTOR.services_by_name["TournamentService"]
BOT_FILL_S = 2.0


def _bearer(player: str) -> dict[str, str]:
    token, _ = Signer(private_key(IdentityConfig()), "hand-auth", 600).sign(player)
    return {"authorization": f"Bearer {token}"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rule(error: ConnectError) -> errors_pb2.RuleError:
    return errors_pb2.RuleError.FromString(error.details[0].message_bytes)


async def _call(browser, service, name: str, request, headers: dict[str, str] | None = None):
    return await browser.execute_unary(request=request, method=method_info(service, name), headers=headers or {})


async def _quit_a_match(browser, ledger_browser, who: dict[str, str]) -> str:
    """``who`` hosts a 2-seat room, a bot takes the other seat, the match starts (a provably fair
    deal: no seed) and ``who`` leaves at once: a bot plays the seat to the end. The room id, once
    the ledger has the match's result."""
    created = await _call(browser, ROOMS, "CreateRoom", rpb.CreateRoomRequest(
        rules=options_pb2.RuleSelection(preset="hand"), rounds=1, seat_count=2, turn_seconds=60,
        player_name="Quitter", visibility=room_pb2.ROOM_VISIBILITY_PRIVATE), who)
    room_id, token = created.room.room_id, created.seat_token
    await _call(browser, ROOMS, "FillWithBots", rpb.FillWithBotsRequest(
        room_id=room_id, seat_token=token, level=room_pb2.BOT_LEVEL_BEGINNER), who)
    await _call(browser, ROOMS, "StartMatch", rpb.StartMatchRequest(room_id=room_id, seat_token=token), who)
    await _call(browser, ROOMS, "LeaveRoom", rpb.LeaveRoomRequest(room_id=room_id, seat_token=token), who)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            got = await _call(ledger_browser, LEDGER, "GetMatchResult", lpb.GetMatchResultRequest(room_id=room_id))
            if got.result.over:
                assert got.result.human_left and list(got.result.left_seats) == [0]
                return room_id
        except ConnectError as exc:
            assert exc.code.name == "NOT_FOUND", exc
        await asyncio.sleep(0.2)
    raise AssertionError("the quit match did not reach the ledger in time")


async def _recent_quits(browser, who: dict[str, str], n: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        stats = (await _call(browser, LEDGER, "GetPlayerStats", lpb.GetPlayerStatsRequest(), who)).stats
        if stats.recent_quits == n:
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"recent_quits never reached {n}")


@pytest.mark.timeout(300)
async def test_fair_play_tournaments_and_play_now_through_the_browser_bridge(broker, tmp_path, unique) -> None:
    topics = topics_for(unique)
    await make_topics(broker, topics)
    room_port = _free_port()
    config = LedgerConfig.from_env({"HAND_LEDGER_PORT": "0", "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'l.db'}",
                                    "HAND_LEDGER_GROUP": f"ledger-{unique}", "HAND_SHUTDOWN_GRACE_S": "0",
                                    "HAND_LEDGER_ROOM_ADDRESS": f"127.0.0.1:{room_port}"})
    ledger = LedgerServer(config, broker, topic=topics["events"])
    await ledger.start()
    bots = BotService(broker, group_id=f"bots-{unique}", topics=topics)
    room, _ = await asyncio.gather(  # each waits for its group's join: at once
        start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}",
                       HAND_ROOM_PORT=str(room_port), HAND_ROOM_LEDGER_ADDRESS=ledger.target,
                       HAND_MATCH_BOT_FILL_S=str(BOT_FILL_S), HAND_MATCH_TICK_MS="100"),
        bots.start())
    web = WebServer(WebConfig.from_env({"HAND_WEB_PORT": "0"}), [room.browser_service, *ledger.browser_services])
    await web.start()
    quitter, ar = _bearer("player-quitter"), {"accept-language": "ar"}
    try:
        async with client(web, PROTOCOLS[0]) as browser:
            # one quit: the next "play now" is not held (0-1 quits: no wait)
            first = await _quit_a_match(browser, browser, quitter)
            await _recent_quits(browser, quitter, 1)
            found = await _call(browser, ROOMS, "FindMatch", rpb.FindMatchRequest(
                preset="hand", seat_count=3, player_name="Quitter"), quitter)
            assert found.ticket.bots_in_ms <= BOT_FILL_S * 1000, found.ticket
            # one ticket at a time: a second is refused with the first's id, in Arabic when asked
            with pytest.raises(ConnectError) as refused:
                await _call(browser, ROOMS, "FindMatch", rpb.FindMatchRequest(
                    preset="hand", seat_count=2, player_name="Quitter"), {**quitter, **ar})
            rule = _rule(refused.value)
            assert refused.value.code.name == "ALREADY_EXISTS" and rule.code == errors_pb2.ERROR_CODE_TICKET_EXISTS
            assert rule.params["ticket_id"] == found.ticket.ticket_id
            assert any("\u0600" <= ch <= "\u06ff" for ch in rule.message), rule.message
            gone = await _call(browser, ROOMS, "CancelTicket", rpb.CancelTicketRequest(
                ticket_id=found.ticket.ticket_id, seat_token=found.seat_token))
            assert gone.ticket.status == rpb.TICKET_STATUS_CANCELLED

            # two quits: held 60 s (the ladder's second step) before the ticket counts as waiting
            await _quit_a_match(browser, browser, quitter)
            await _recent_quits(browser, quitter, 2)
            held = await _call(browser, ROOMS, "FindMatch", rpb.FindMatchRequest(
                preset="hand", seat_count=2, player_name="Quitter"), quitter)
            assert held.ticket.bots_in_ms >= 60_000 - 1_000, held.ticket
            clean = await _call(browser, ROOMS, "FindMatch", rpb.FindMatchRequest(
                preset="hand", seat_count=2, player_name="Clean"), _bearer("player-clean"))
            deadline = time.monotonic() + 30
            while True:
                got = (await _call(browser, ROOMS, "GetTicket", rpb.GetTicketRequest(
                    ticket_id=clean.ticket.ticket_id, seat_token=clean.seat_token))).ticket
                if got.status == rpb.TICKET_STATUS_SEATED:
                    break
                assert time.monotonic() < deadline, got
                await asyncio.sleep(0.1)
            table = (await _call(browser, ROOMS, "GetRoom", rpb.GetRoomRequest(room_id=got.room_id))).room
            assert [s.kind for s in table.seats] == [room_pb2.SEAT_KIND_HUMAN, room_pb2.SEAT_KIND_BOT]
            still = (await _call(browser, ROOMS, "GetTicket", rpb.GetTicketRequest(
                ticket_id=held.ticket.ticket_id, seat_token=held.seat_token))).ticket
            assert still.status == rpb.TICKET_STATUS_WAITING and still.bots_in_ms > 50_000, still
            await _call(browser, ROOMS, "CancelTicket", rpb.CancelTicketRequest(
                ticket_id=held.ticket.ticket_id, seat_token=held.seat_token))

        org, ada = _bearer("player-org"), _bearer("player-ada")
        for protocol in PROTOCOLS:
            async with client(web, protocol) as browser:
                # the finished match's deal verifies from the public record
                verdict = await _call(browser, LEDGER, "VerifyDeal", lpb.VerifyDealRequest(room_id=first))
                assert verdict.ok and verdict.rounds, verdict
                assert all(r.verdict == lpb.DEAL_VERDICT_VERIFIED and r.deal_version == 2 for r in verdict.rounds)
                # tournaments: create, enter, list, get; standings hidden and the close refused until played
                t = (await _call(browser, TOURNAMENTS, "CreateTournament", tpb.CreateTournamentRequest(
                    name=f"Web {protocol.name}", organiser_name="Org", rules=options_pb2.RuleSelection(preset="hand"),
                    rounds=1, seat_count=2, deals=1, tables=1, bot_level=room_pb2.BOT_LEVEL_BEGINNER,
                    turn_seconds=60), org)).tournament
                assert t.you_organise and t.status == tpb.TOURNAMENT_STATUS_OPEN
                t = (await _call(browser, TOURNAMENTS, "EnterTournament", tpb.EnterTournamentRequest(
                    tournament_id=t.tournament_id, player_name="Ada"), ada)).tournament
                assert [(e.name, e.you) for e in t.entrants] == [("Ada", True)]
                listed = await _call(browser, TOURNAMENTS, "ListTournaments", tpb.ListTournamentsRequest())
                assert t.tournament_id in [x.tournament_id for x in listed.tournaments]
                got_t = (await _call(browser, TOURNAMENTS, "GetTournament", tpb.GetTournamentRequest(
                    tournament_id=t.tournament_id))).tournament
                assert got_t.name == f"Web {protocol.name}"
                started = (await _call(browser, TOURNAMENTS, "StartTournament", tpb.StartTournamentRequest(
                    tournament_id=t.tournament_id), org)).tournament
                assert started.status == tpb.TOURNAMENT_STATUS_RUNNING
                with pytest.raises(ConnectError) as hidden:
                    await _call(browser, TOURNAMENTS, "GetTournamentStandings", tpb.GetTournamentStandingsRequest(
                        tournament_id=t.tournament_id), ar)
                rule = _rule(hidden.value)
                assert hidden.value.code.name == "FAILED_PRECONDITION"
                assert errors_pb2.ErrorCode.Name(rule.code) == "ERROR_CODE_TOURNAMENT_RESULTS_HIDDEN"
                assert any("\u0600" <= ch <= "\u06ff" for ch in rule.message), rule.message
                mine = await _call(browser, TOURNAMENTS, "GetMyTable", tpb.GetMyTableRequest(
                    tournament_id=t.tournament_id), ada)
                assert (mine.table, mine.seat) == (1, 0)
    finally:
        await web.stop()
        await bots.stop()
        await room.stop(grace=0)
        await ledger.stop()
