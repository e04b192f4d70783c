"""A tournament's scheduled start on the real stack (issue 27, decision 0029): Tansu broker, a room
instance, the bot service and ledgers whose TournamentService makes the tables' rooms. A tournament
created with a start time a few seconds ahead stays open until then; the ledger that took it is
stopped before that time (the schedule lives in the store, not in its memory), and two other ledger
replicas on the same store find it due: it starts by itself exactly once (one replica's start wins),
the entrant is seated, bots fill every other seat and each table's deal is played to its end."""

from __future__ import annotations

import asyncio
import time

import grpc

from hand.v1 import options_pb2, room_pb2
from hand.v1 import room_service_pb2 as rpb
from hand.v1 import room_service_pb2_grpc as rpb_grpc
from hand.v1 import tournament_service_pb2 as pb
from hand.v1 import tournament_service_pb2_grpc as pb_grpc
from hand_bot.service import BotService
from hand_ledger import tournament_driver
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig

from .room_support import make_topics, start_instance, topics_for
from .test_tournament_stack import _session

LEAD_S = 4.0  # the start time, this long after the creation


async def test_a_scheduled_tournament_starts_by_itself_once_after_a_restart_with_two_replicas(
        broker, tmp_path, unique, monkeypatch) -> None:
    starts: list[str] = []
    real_start = tournament_driver.start

    async def counted(tables, t, **kw):
        won = await real_start(tables, t, **kw)
        if won:
            starts.append(t.tournament_id)
        return won

    monkeypatch.setattr(tournament_driver, "start", counted)
    topics = topics_for(unique)
    await make_topics(broker, topics)
    room = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}")
    bots = BotService(broker, group_id=f"bots-{unique}", topics=topics)

    def ledger() -> LedgerServer:
        config = LedgerConfig.from_env({
            "HAND_LEDGER_PORT": "0", "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'l.db'}",
            "HAND_LEDGER_GROUP": f"ledger-{unique}", "HAND_SHUTDOWN_GRACE_S": "0",
            "HAND_LEDGER_ROOM_ADDRESS": room.target})
        return LedgerServer(config, broker, topic=topics["events"])

    first = ledger()
    await asyncio.gather(bots.start(), first.start())  # each waits for its group's join: at once
    replicas: list[LedgerServer] = []
    room_channel = grpc.aio.insecure_channel(room.target)
    org, ada = _session("player-org"), _session("player-ada")
    try:
        async with grpc.aio.insecure_channel(first.target) as channel:
            stub = pb_grpc.TournamentServiceStub(channel)
            start_at = time.time() + LEAD_S
            t = (await stub.CreateTournament(pb.CreateTournamentRequest(
                name="Scheduled", organiser_name="Org", rules=options_pb2.RuleSelection(preset="hand"),
                rounds=1, seat_count=2, deals=1, tables=2, bot_level=room_pb2.BOT_LEVEL_BEGINNER,
                turn_seconds=60, start_at=start_at), metadata=org)).tournament
            tid = t.tournament_id
            assert t.start_at == start_at
            await stub.EnterTournament(pb.EnterTournamentRequest(tournament_id=tid, player_name="Ada"),
                                       metadata=ada)
            await asyncio.sleep(1.0)  # a few driver ticks: not before its time
            t = (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))).tournament
            assert t.status == pb.TOURNAMENT_STATUS_OPEN
        await first.stop()  # the ledger that took it goes away before the start time
        first = None
        replicas = [ledger(), ledger()]
        await asyncio.gather(*(r.start() for r in replicas))
        async with grpc.aio.insecure_channel(replicas[1].target) as channel:
            stub, rstub = pb_grpc.TournamentServiceStub(channel), rpb_grpc.RoomServiceStub(room_channel)
            deadline = time.monotonic() + LEAD_S + 30
            while time.monotonic() < deadline:
                t = (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))).tournament
                if t.status == pb.TOURNAMENT_STATUS_RUNNING:
                    break
                await asyncio.sleep(0.2)
            assert t.status == pb.TOURNAMENT_STATUS_RUNNING, t
            assert time.time() >= start_at
            assert [(e.table, e.seat, e.bot, e.name) for e in t.entrants] == [
                (1, 0, False, "Ada"), (1, 1, True, "Bot"), (2, 0, True, "Bot"), (2, 1, True, "Bot")]

            # Ada's table: its room plays, the other seat a bot's; she lets a bot play hers
            deadline = time.monotonic() + 30
            while not (mine := await stub.GetMyTable(pb.GetMyTableRequest(tournament_id=tid), metadata=ada)).rooms:
                assert time.monotonic() < deadline, "no room for Ada's table"
                await asyncio.sleep(0.2)
            info = (await rstub.GetRoom(rpb.GetRoomRequest(room_id=mine.rooms[0].room_id))).room
            assert info.status in (room_pb2.ROOM_STATUS_PLAYING, room_pb2.ROOM_STATUS_FINISHED)
            assert info.seats[1].kind == room_pb2.SEAT_KIND_BOT
            await rstub.LeaveRoom(rpb.LeaveRoomRequest(room_id=mine.rooms[0].room_id,
                                                       seat_token=mine.rooms[0].seat_token))
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                t = (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))).tournament
                if t.deals_played == 2:
                    break
                await asyncio.sleep(0.3)
            assert (t.deals_played, t.deals_total) == (2, 2), t
        assert starts == [tid]  # two replicas, one start
    finally:
        await room_channel.close()
        for r in replicas:
            await r.stop()
        if first is not None:
            await first.stop()
        await bots.stop()
        await room.stop(grace=0)
