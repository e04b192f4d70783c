"""A duplicate tournament on the real stack (decision 0029): Tansu broker, a room
instance, the bot service, and a ledger whose TournamentService makes the tables'
rooms through the room service's gRPC API. 3 tables x 2 deals, two seats each,
one signed-in entrant (the rest bots): every seat of a deal gets the same hand at
every table, results stay hidden until the close, and the standings equal a hand
calculation from the ledger's recorded score sheets."""

from __future__ import annotations

import asyncio
import time

import grpc

from hand.v1 import ledger_service_pb2 as lpb
from hand.v1 import ledger_service_pb2_grpc as lpb_grpc
from hand.v1 import options_pb2, room_pb2
from hand.v1 import room_service_pb2 as rpb
from hand.v1 import room_service_pb2_grpc as rpb_grpc
from hand.v1 import tournament_service_pb2 as pb
from hand.v1 import tournament_service_pb2_grpc as pb_grpc
from hand_auth.tokens import Signer
from hand_bot.service import BotService
from hand_common.config import IdentityConfig
from hand_common.sessionkeys import private_key
from hand_ledger.reads import load_events
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig
from hand_table import RoundDealt

from .room_support import make_topics, name, refusal, start_instance, topics_for


def _session(player: str) -> tuple[tuple[str, str], ...]:
    token, _ = Signer(private_key(IdentityConfig()), "hand-auth", 600).sign(player)
    return (("authorization", f"Bearer {token}"),)


async def test_a_tournament_of_three_tables_and_two_deals_with_bots(broker, tmp_path, unique) -> None:
    topics = topics_for(unique)
    await make_topics(broker, topics)
    room = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}")
    bots = BotService(broker, group_id=f"bots-{unique}", topics=topics)
    config = LedgerConfig.from_env({"HAND_LEDGER_PORT": "0", "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'l.db'}",
                                    "HAND_LEDGER_GROUP": f"ledger-{unique}", "HAND_SHUTDOWN_GRACE_S": "0",
                                    "HAND_LEDGER_ROOM_ADDRESS": room.target})
    ledger = LedgerServer(config, broker, topic=topics["events"])
    await asyncio.gather(bots.start(), ledger.start())  # each waits for its group's join: at once
    channel = grpc.aio.insecure_channel(ledger.target)
    room_channel = grpc.aio.insecure_channel(room.target)
    org, ada = _session("player-org"), _session("player-ada")
    try:
        stub, lstub = pb_grpc.TournamentServiceStub(channel), lpb_grpc.LedgerServiceStub(channel)
        rstub = rpb_grpc.RoomServiceStub(room_channel)
        # the tables' options are checked as CreateRoom checks them (hand_wire.table_options): a
        # "hand" table has at most 4 seats, a partnership exactly 4
        for preset, seats, rounds, field in [("hand", 5, 1, "seat_count"), ("partnership", 3, 1, "seat_count"),
                                             ("hand", 2, 4, "rounds"), ("nope", 2, 1, "rules.preset")]:
            code, detail = await refusal(stub.CreateTournament(pb.CreateTournamentRequest(
                name="Bad", organiser_name="Org", rules=options_pb2.RuleSelection(preset=preset), rounds=rounds,
                seat_count=seats, deals=1), metadata=org))
            assert (code, name(detail), detail.params["field"]) == (
                grpc.StatusCode.INVALID_ARGUMENT, "INVALID_OPTIONS", field)
        t = (await stub.CreateTournament(pb.CreateTournamentRequest(
            name="Friday duplicate", organiser_name="Org", rules=options_pb2.RuleSelection(preset="hand"),
            rounds=1, seat_count=2, deals=2, tables=3, bot_level=room_pb2.BOT_LEVEL_BEGINNER, turn_seconds=60),
            metadata=org)).tournament
        tid = t.tournament_id
        assert t.status == pb.TOURNAMENT_STATUS_OPEN and t.you_organise
        t = (await stub.EnterTournament(pb.EnterTournamentRequest(tournament_id=tid, player_name="Ada"),
                                        metadata=ada)).tournament
        assert [(e.name, e.you, bool(e.handle)) for e in t.entrants] == [("Ada", True, True)]
        code, detail = await refusal(stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid),
                                                          metadata=ada))
        assert name(detail) == "TOURNAMENT_NOT_ORGANISER"

        t = (await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid), metadata=org)).tournament
        assert t.status == pb.TOURNAMENT_STATUS_RUNNING and t.tables == 3 and t.deals_total == 6
        assert [(e.table, e.seat, e.bot) for e in t.entrants] == [(1, 0, False), (1, 1, True), (2, 0, True),
                                                                  (2, 1, True), (3, 0, True), (3, 1, True)]
        # results stay hidden until the close, and the close waits for every deal
        code, detail = await refusal(stub.GetTournamentStandings(pb.GetTournamentStandingsRequest(tournament_id=tid)))
        assert (code, name(detail)) == (grpc.StatusCode.FAILED_PRECONDITION, "TOURNAMENT_RESULTS_HIDDEN")
        code, detail = await refusal(stub.CloseTournament(pb.CloseTournamentRequest(tournament_id=tid), metadata=org))
        assert name(detail) == "TOURNAMENT_WRONG_STATE"

        # Ada lets a bot play her seat: she leaves each of her table's rooms once it starts
        left: set[str] = set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            mine = await stub.GetMyTable(pb.GetMyTableRequest(tournament_id=tid), metadata=ada)
            assert (mine.table, mine.seat) == (1, 0)
            for r in mine.rooms:
                if r.room_id not in left:
                    assert r.seat_token
                    await rstub.LeaveRoom(rpb.LeaveRoomRequest(room_id=r.room_id, seat_token=r.seat_token))
                    left.add(r.room_id)
            t = (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))).tournament
            if t.deals_played == 6:
                break
            await asyncio.sleep(0.2)
        assert t.deals_played == 6, t
        assert len(left) == 2

        closed = (await stub.CloseTournament(pb.CloseTournamentRequest(tournament_id=tid), metadata=org)).tournament
        assert closed.status == pb.TOURNAMENT_STATUS_CLOSED
        got = await stub.GetTournamentStandings(pb.GetTournamentStandingsRequest(tournament_id=tid), metadata=ada)
        rooms = {(r.table, r.deal): r.room_id for r in got.rooms}
        assert sorted(rooms) == [(t_, d) for t_ in (1, 2, 3) for d in (1, 2)]
        assert not any(r.seat_token for r in got.rooms)

        # every seat position of a deal holds the same cards (same deck, dealer, deal) at every table
        deals: dict[int, set] = {1: set(), 2: set()}
        async with ledger.store.read() as conn:
            for (_, deal), room_id in rooms.items():
                dealt = [r.event for r in await load_events(conn, room_id)
                         if isinstance(r.event, RoundDealt)]
                deals[deal].add((dealt[0].dealer, dealt[0].deck, dealt[0].events))
        assert len(deals[1]) == 1 and len(deals[2]) == 1 and deals[1] != deals[2]

        # standings = a hand calculation from the recorded score sheets
        raw = {}
        for (table, deal), room_id in rooms.items():
            sheet = (await lstub.GetScoreSheet(lpb.GetScoreSheetRequest(room_id=room_id))).sheet
            for seat in (0, 1):
                raw[table, deal, seat] = sum(r.lines[seat].score for r in sheet.rounds if not r.playoff)
        mp = {}
        for (table, deal, seat), score in raw.items():
            others = [raw[o, deal, seat] for o in (1, 2, 3) if o != table]
            mp[table, deal, seat] = sum(1 if score < o else 0.5 if score == o else 0 for o in others)
        for c in got.comparisons:
            assert [(x.table, x.score, x.matchpoints) for x in c.results] == [
                (tb, raw[tb, c.deal, c.seat], mp[tb, c.deal, c.seat]) for tb in (1, 2, 3)]
        totals = {(tb, s): (sum(mp[tb, d, s] for d in (1, 2)), sum(raw[tb, d, s] for d in (1, 2)))
                  for tb in (1, 2, 3) for s in (0, 1)}
        order = sorted(totals, key=lambda k: (-totals[k][0], totals[k][1], k))
        assert [(s.entrant.table, s.entrant.seat) for s in got.standings] == order
        assert [(s.matchpoints, s.raw_total) for s in got.standings] == [totals[k] for k in order]
        assert got.standings[[k for k in order].index((1, 0))].entrant.you
        # each table's replay is there once the tournament is closed
        replay = await lstub.GetReplay(lpb.GetReplayRequest(room_id=rooms[2, 1], seat=0))
        assert replay.complete
    finally:
        await channel.close()
        await room_channel.close()
        await ledger.stop()
        await bots.stop()
        await room.stop(grace=0)
