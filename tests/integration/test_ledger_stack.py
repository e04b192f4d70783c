"""The real stack: the room service publishes a whole match to its events topic and
a ledger (PostgreSQL store) consumes it; the ledger's sheet and result equal the
room's own standings, and the archive replays exactly (issue 5); its provably fair deals
verify through VerifyDeal and the command-line verifier (decision 0022), as version 2:
every round's server seed derived from the match secret committed before the first join
(decision 0034)."""

from __future__ import annotations

import asyncio
import hashlib
import sys
import time

import grpc

from hand.v1 import ledger_service_pb2 as lpb
from hand.v1 import ledger_service_pb2_grpc as lpb_grpc
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_auth.tokens import Signer
from hand_common.config import IdentityConfig
from hand_common.sessionkeys import private_key
from hand_infra.postgres import create_database, drop_database
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig
from hand_table import complete, for_seat, verify_deals
from hand_wire import decode, from_proto, to_proto

from .room_support import (
    Player, Watcher, create_room, join_all, make_topics, play_to_end, start_instance, topics_for,
)


async def test_a_match_played_through_the_room_service_reaches_the_ledger_exactly(
        broker, pg_url, tmp_path, unique) -> None:
    topics = topics_for(unique)
    await make_topics(broker, topics)
    room = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}")
    ledger_url = await create_database(pg_url, f"ledger_{unique}")
    config = LedgerConfig.from_env({"HAND_LEDGER_PORT": "0", "HAND_LEDGER_URL": ledger_url,
                                    "HAND_LEDGER_GROUP": f"ledger-{unique}", "HAND_SHUTDOWN_GRACE_S": "0"})
    ledger = LedgerServer(config, broker, topic=topics["events"])
    await ledger.start()
    room_channel = grpc.aio.insecure_channel(room.target)
    ledger_channel = grpc.aio.insecure_channel(ledger.target)
    try:
        stub, lstub = pb_grpc.RoomServiceStub(room_channel), lpb_grpc.LedgerServiceStub(ledger_channel)
        created, players = await create_room(stub, "partnership", seats=4, rounds=1)
        # seat 1 signs in (a session token from the auth service's key): the ledger knows it by
        # that player id; the others are guests whose own word is only a label ("guest:…")
        session, _ = Signer(private_key(IdentityConfig()), "hand-auth", 600).sign("player-ada")
        joined = await stub.JoinRoom(pb.JoinRoomRequest(join_code=created.room.join_code, player_name="ada",
                                                        player_id="p0"),
                                     metadata=(("authorization", f"Bearer {session}"),))
        ada = (("authorization", f"Bearer {session}"),)  # her seat opens with her session only (0011)
        players.append(Player(stub, created.room.room_id, joined.seat_token, joined.seat, players[0].options,
                              metadata=ada))
        await join_all(stub, created, players, 3)
        for i, p in enumerate(players[2:], start=2):  # join_all numbers its players from 1
            assert p.seat == i
        room_id = created.room.room_id
        watchers = {p.seat: Watcher(stub, room_id, p.token, metadata=p.metadata) for p in players}
        await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=players[0].token))
        await play_to_end(players, watchers)
        final = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room
        for w in watchers.values():
            await w.close()

        deadline = time.monotonic() + 60
        result = None
        while time.monotonic() < deadline:
            try:
                result = (await lstub.GetMatchResult(lpb.GetMatchResultRequest(room_id=room_id))).result
            except grpc.aio.AioRpcError as exc:
                assert exc.code() == grpc.StatusCode.NOT_FOUND
            if result is not None and result.over:
                break
            await asyncio.sleep(0.1)
        assert result is not None and result.over
        assert list(result.winners) == list(final.winners)
        assert [(s.unit, s.total, s.outs, s.penalty_points) for s in result.standings] == [
            (s.unit, s.total, s.outs, s.penalty_points) for s in final.standings]

        stored = await room.store.load(room_id)
        check = await lstub.CheckReplay(lpb.CheckReplayRequest(room_id=room_id))
        assert check.ok and check.events_checked == len(stored) and check.moves_checked > 0
        # a finished match's replay, as seat 1 (hand.room-events carries no token hashes: a seat
        # is named, not proven, once the match is over)
        replay = await lstub.GetReplay(lpb.GetReplayRequest(room_id=room_id, seat=1))
        assert replay.complete and replay.event_count == len(stored) and replay.seat == 1
        assert [e.WhichOneof("event") for e in replay.events] == [e.kind for e in stored]
        assert list(replay.events) == [to_proto(complete(decode(e.payload))) for e in stored]
        sheet = (await lstub.GetScoreSheet(lpb.GetScoreSheetRequest(room_id=room_id), metadata=ada)).sheet
        # ada sees her own account id; guests are guests, never accounts (docs/privacy.md)
        assert [s.player_id for s in sheet.seats] == ["", "player-ada", "", ""]
        assert [s.guest for s in sheet.seats] == [True, False, True, True]
        assert [bool(s.handle) for s in sheet.seats] == [False, True, False, False]
        assert [t.running_total for t in sheet.rounds[-1].teams] == [s.total for s in final.standings]
        stats = (await lstub.GetPlayerStats(lpb.GetPlayerStatsRequest(handle=sheet.seats[1].handle))).stats
        assert stats.matches == 1 and stats.rounds == len(sheet.rounds)
        deals = await lstub.VerifyDeal(lpb.VerifyDealRequest(room_id=room_id))
        assert deals.ok and [d.verdict for d in deals.rounds] == [lpb.DEAL_VERDICT_VERIFIED] * len(sheet.rounds)
        assert all(len(d.server_seed) == 32 and len(d.seat_seeds) == 4 for d in deals.rounds)
        # version 2, from the public record alone: the commitment of room_created (seq 0, before
        # any seat_taken) and the secret match_ended revealed
        public = await lstub.GetReplay(lpb.GetReplayRequest(room_id=room_id))
        created, ended = public.events[0].room_created, public.events[-1].match_ended
        assert public.events[1].WhichOneof("event") == "seat_taken"
        assert hashlib.sha256(ended.match_secret).digest() == created.deal_commitment
        assert all(d.deal_version == 2 and d.match_commitment == created.deal_commitment
                   and d.match_secret == ended.match_secret for d in deals.rounds)
        own = verify_deals(for_seat(from_proto(e), None) for e in public.events)
        assert [c.verdict for c in own] == ["verified"] * len(sheet.rounds)
        cli = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "hand_verify", "--ledger", ledger.target, room_id,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await cli.communicate()
        assert cli.returncode == 0, (out, err)
        assert out.decode().count(": verified (hand-deal/2)") == len(sheet.rounds)
    finally:
        await ledger_channel.close()
        await room_channel.close()
        await ledger.stop(0)
        await room.stop(grace=0)
        await drop_database(pg_url, f"ledger_{unique}")
