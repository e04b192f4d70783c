"""A duplicate tournament over two room instances (issue 27, "Done when": tournaments tested with
several room instances; decision 0029): one broker, one event store, two room instances in one
owners' group, the bot service, and a ledger given both addresses (``HAND_LEDGER_ROOM_ADDRESS``
``a,b``). The tables' rooms are owned by different instances, every table of a deal still deals
the same cards at every seat, the tournament plays every deal to its end and its standings come
out, and an address that does not answer is passed over for the next one. A room instance that
stops mid-tournament loses no table: its running rooms move to the other instance, and the next
deals are made there."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest

from hand.v1 import options_pb2, room_pb2
from hand.v1 import room_service_pb2 as rpb
from hand.v1 import room_service_pb2_grpc as rpb_grpc
from hand.v1 import tournament_service_pb2 as pb
from hand.v1 import tournament_service_pb2_grpc as pb_grpc
from hand_auth.tokens import Signer
from hand_bot.service import BotService
from hand_common.config import IdentityConfig
from hand_common.sessionkeys import private_key
from hand_infra.topics import partition_of
from hand_ledger.reads import load_events
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig
from hand_ledger.tournament_tables import Tables
from hand_table import RoundDealt

from .room_support import make_topics, start_instance, topics_for, wait_for

PARTITIONS = 8


def _session(player: str) -> tuple[tuple[str, str], ...]:
    token, _ = Signer(private_key(IdentityConfig()), "hand-auth", 600).sign(player)
    return (("authorization", f"Bearer {token}"),)


class TwoInstances:
    """Room instances a and b sharing the partitions, the bots, and a ledger that reaches both."""

    def __init__(self, a, b, ledger, channel) -> None:
        self.a, self.b, self.ledger, self.channel = a, b, ledger, channel
        self.b_stopped = False

    async def stop_b(self) -> None:
        await self.b.stop(grace=0)
        self.b_stopped = True


async def _all_deals_played(stub, tid: str, deals: int, timeout_s: float) -> None:
    """Until the tournament has played ``deals`` deals (its tables' bots play them)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        t = (await stub.GetTournament(pb.GetTournamentRequest(tournament_id=tid))).tournament
        if t.deals_played == deals:
            return
        await asyncio.sleep(0.3)
    assert t.deals_played == deals, t


@pytest.fixture
async def two(broker, tmp_path, unique):
    topics = topics_for(unique)
    await make_topics(broker, topics, partitions=PARTITIONS)
    url = f"sqlite:///{tmp_path / 'events.db'}"
    a = await start_instance(broker, unique, url)
    b = await start_instance(broker, unique, url)
    await wait_for(lambda: a.owner.owned and b.owner.owned and len(a.owner.owned | b.owner.owned) == PARTITIONS
                   and not (a.owner.owned & b.owner.owned), 60)
    bots = BotService(broker, group_id=f"bots-{unique}", topics=topics)
    config = LedgerConfig.from_env({"HAND_LEDGER_PORT": "0", "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'l.db'}",
                                    "HAND_LEDGER_GROUP": f"ledger-{unique}", "HAND_SHUTDOWN_GRACE_S": "0",
                                    "HAND_LEDGER_ROOM_ADDRESS": f"{a.target},{b.target}"})
    ledger = LedgerServer(config, broker, topic=topics["events"])
    await asyncio.gather(bots.start(), ledger.start())  # each waits for its group's join: at once
    channel = grpc.aio.insecure_channel(ledger.target)
    two = TwoInstances(a, b, ledger, channel)
    try:
        yield two
    finally:
        await channel.close()
        await ledger.stop()
        await bots.stop()
        await a.stop(grace=0)
        if not two.b_stopped:
            await b.stop(grace=0)


@pytest.mark.timeout(240)
async def test_a_tournaments_tables_are_owned_by_different_room_instances(two) -> None:
    a, b, ledger, channel = two.a, two.b, two.ledger, two.channel
    room_channel = grpc.aio.insecure_channel(a.target)
    org = _session("player-org")
    try:
        stub, rstub = pb_grpc.TournamentServiceStub(channel), rpb_grpc.RoomServiceStub(room_channel)
        t = (await stub.CreateTournament(pb.CreateTournamentRequest(
            name="Two instances", organiser_name="Org", rules=options_pb2.RuleSelection(preset="hand"),
            rounds=1, seat_count=2, deals=2, tables=2, bot_level=room_pb2.BOT_LEVEL_BEGINNER, turn_seconds=60),
            metadata=org)).tournament
        tid = t.tournament_id
        t = (await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid), metadata=org)).tournament
        assert t.status == pb.TOURNAMENT_STATUS_RUNNING and t.tables == 2 and t.deals_total == 4

        await _all_deals_played(stub, tid, 4, 150)
        closed = (await stub.CloseTournament(pb.CloseTournamentRequest(tournament_id=tid), metadata=org)).tournament
        assert closed.status == pb.TOURNAMENT_STATUS_CLOSED
        got = await stub.GetTournamentStandings(pb.GetTournamentStandingsRequest(tournament_id=tid))
        rooms = {(r.table, r.deal): r.room_id for r in got.rooms}
        assert sorted(rooms) == [(1, 1), (1, 2), (2, 1), (2, 2)]
        assert len(got.standings) == 4 and len(got.comparisons) == 4

        # table 1's rooms were made at instance a and are owned there, table 2's at b
        for (table, _), room_id in rooms.items():
            owner = a if table == 1 else b
            assert partition_of(room_id, PARTITIONS) in owner.owner.owned, (table, room_id)
            info = (await rstub.GetRoom(rpb.GetRoomRequest(room_id=room_id))).room
            assert info.owner.address == owner.target and info.status == room_pb2.ROOM_STATUS_FINISHED
        # the same cards at every seat of a deal, whichever instance dealt them
        deals: dict[int, set] = {1: set(), 2: set()}
        async with ledger.store.read() as conn:
            for (_, deal), room_id in rooms.items():
                dealt = [r.event for r in await load_events(conn, room_id) if isinstance(r.event, RoundDealt)]
                deals[deal].add((dealt[0].dealer, dealt[0].deck, dealt[0].events))
        assert len(deals[1]) == 1 and len(deals[2]) == 1 and deals[1] != deals[2]

        # an address that does not answer is passed over: table 1's room made at b instead
        tables = Tables(ledger.tables.store, f"127.0.0.1:1,{b.target}")
        try:
            made, created = await tables._create(1, rpb.CreateRoomRequest(
                rules=options_pb2.RuleSelection(preset="hand"), rounds=1, seat_count=2, player_name="x"))
            assert created.room.owner.address == b.target
        finally:
            await tables.close()
    finally:
        await room_channel.close()


@pytest.mark.timeout(240)
async def test_a_room_instance_that_stops_mid_tournament_loses_no_table(two) -> None:
    a, b, channel = two.a, two.b, two.channel
    org = _session("player-org")
    stub = pb_grpc.TournamentServiceStub(channel)
    t = (await stub.CreateTournament(pb.CreateTournamentRequest(
        name="An instance stops", organiser_name="Org", rules=options_pb2.RuleSelection(preset="hand"),
        rounds=1, seat_count=2, deals=2, tables=2, bot_level=room_pb2.BOT_LEVEL_BEGINNER, turn_seconds=60),
        metadata=org)).tournament
    tid = t.tournament_id
    await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid), metadata=org)
    # the tables' rooms are made after the start answers: b stops once table 2's first room
    # is made there (stopped earlier, CreateRoom at b was cancelled and the room made at a:
    # seen once under the full suite, 2026-12-07)
    async def table_2_first_room_made() -> bool:
        t = await two.ledger.tables.store.load(tid)
        return any((r.table, r.deal) == (2, 1) and r.room_id for r in t.rooms)

    await wait_for(table_2_first_room_made, 60)
    b_owned = set(b.owner.owned)
    await two.stop_b()  # table 2's first room (owned by b) is mid-play
    await _all_deals_played(stub, tid, 4, 180)
    await stub.CloseTournament(pb.CloseTournamentRequest(tournament_id=tid), metadata=org)
    got = await stub.GetTournamentStandings(pb.GetTournamentStandingsRequest(tournament_id=tid))
    rooms = {(r.table, r.deal): r.room_id for r in got.rooms}
    assert sorted(rooms) == [(1, 1), (1, 2), (2, 1), (2, 2)] and len(got.standings) == 4
    assert partition_of(rooms[2, 1], PARTITIONS) in b_owned  # played on at a after b stopped
    # table 2's second deal was made at a (b did not answer), and a, the one instance left, holds
    # every room: waited for, as a rebalance may still be settling (CI 2026-12-07 read a's partitions
    # as {1, 3, 5, 7} once, between two assignments)
    await wait_for(lambda: a.owner.owned == set(range(PARTITIONS)), 30)
    async with grpc.aio.insecure_channel(a.target) as a_channel:
        info = (await rpb_grpc.RoomServiceStub(a_channel).GetRoom(rpb.GetRoomRequest(room_id=rooms[2, 2]))).room
    assert info.owner.address == a.target and info.status == room_pb2.ROOM_STATUS_FINISHED
