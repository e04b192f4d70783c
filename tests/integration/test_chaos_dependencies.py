"""Chaos mid-match, the room's dependencies: a room service (a process) is killed out
from under neither its broker nor its owner but

- its **rules service** (``HAND_RULES_ADDRESS`` → ``python -m hand_rules``), SIGKILLed
  and restarted on its port: Acts fail fast with UNAVAILABLE and a retry hint while it
  is away, and the turn timer that fires meanwhile is re-armed, so the room moves on
  by itself when the rules are back;
- its **PostgreSQL** (the room's event store and the ledger's store on one server),
  SIGKILLed and restarted on its port and data dir: Acts fail fast with UNAVAILABLE,
  nothing accepted is lost.

Either way the match finishes and the store, every Watch stream and the ledger hold
the same seqs. The outage-recovery times (restart → next accepted move) are printed
as ``chaos: ...`` lines (docs/decisions/0010)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_infra import _proc
from hand_infra.broker import TansuBroker
from hand_infra.postgres import TempPostgres, create_database
from hand_infra.settings import KafkaSettings, kafka_settings
from hand_infra.topics import ensure_topics
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig

from .chaos_support import MatchDriver, assert_fast_unavailable, assert_stored_once, assert_streams_and_ledger_agree
from .failover_support import PARTITIONS, ROOT, Instance
from .room_support import Watcher, create_room, join_all, rule_error_of, wait_for

pytestmark = pytest.mark.skipif(not kafka_settings().embedded, reason="runs its own embedded broker")


class RulesProcess:
    """``python -m hand_rules`` on a fixed port, so it can be killed and started again there."""

    def __init__(self, log_dir: Path) -> None:
        self.port = _proc.free_port()
        self.log = log_dir / "rules.log"
        self.proc: subprocess.Popen | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self) -> float:
        env = {**os.environ, "HAND_RULES_PORT": str(self.port), "HAND_LOG_FORMAT": "json"}
        with self.log.open("a") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "hand_rules"], env=env, cwd=ROOT,
                                         stdout=out, stderr=subprocess.STDOUT)
        return await _proc.wait_ready_async(self.proc, lambda: _proc.accepts_connections("127.0.0.1", self.port),
                                            30, "hand_rules", self.log)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None:
            _proc.stop_process(self.proc, timeout=10, what="hand_rules")


@dataclasses.dataclass
class Match:
    """One 4-seat, one-round match on one room instance, streamed and archived."""

    room: Instance
    ledger: LedgerServer
    store_url: str
    channel: grpc.aio.Channel | None = None
    room_id: str = ""
    driver: MatchDriver | None = None

    async def start(self, seed: int, turn_seconds: int = 60) -> MatchDriver:
        await self.ledger.start()
        await self.room.ready()
        await wait_for(lambda: len(self.room.owned()) == PARTITIONS, 60)
        self.channel = grpc.aio.insecure_channel(self.room.target)
        stub = pb_grpc.RoomServiceStub(self.channel)
        created, players = await create_room(stub, "hand", seats=4, rounds=1, turn_seconds=turn_seconds)
        await join_all(stub, created, players, 4)
        self.room_id = created.room.room_id
        await stub.StartMatch(pb.StartMatchRequest(room_id=self.room_id, seat_token=players[0].token, seed=seed))
        watchers = {p.seat: Watcher(stub, self.room_id, p.token) for p in players}
        self.driver = MatchDriver(players, watchers, [stub])
        return self.driver

    async def finish_and_agree(self, deadline: float) -> None:
        await self.driver.play(deadline)
        assert self.driver.finished(), "the match did not finish"
        seqs = await assert_stored_once(self.store_url, self.room_id, self.driver.moves)
        await assert_streams_and_ledger_agree(self.driver.watchers, self.ledger, self.room_id, seqs)

    async def close(self) -> None:  # bounded: a stuck teardown must not hold the suite
        for w in (self.driver.watchers.values() if self.driver else ()):
            await asyncio.wait_for(w.close(), 10)
        if self.channel is not None:
            await asyncio.wait_for(self.channel.close(), 10)
        self.room.stop()
        await asyncio.wait_for(self.ledger.stop(grace=0), 20)


def ledger_for(url: str, store_url: str, kafka: KafkaSettings, unique: str) -> LedgerServer:
    return LedgerServer(LedgerConfig.from_env({
        "HAND_LEDGER_PORT": "0", "HAND_LEDGER_URL": url, "HAND_LEDGER_GROUP": f"l-{unique}",
        "HAND_LEDGER_EVENTSTORE_URL": store_url, "HAND_LEDGER_REPAIR_AFTER_S": "1"}), kafka)


def refused_timeouts(room: Instance) -> int:
    """Turn timers the owner fired and had refused as ROOM_UNAVAILABLE (then re-armed)."""
    n = 0
    for line in room.lines():
        if line.startswith("{"):
            rec = json.loads(line)
            n += (rec.get("event") == "command_refused" and rec.get("command") == "TurnTimeout"
                  and rec.get("code") == "ROOM_UNAVAILABLE")
    return n


@pytest.mark.timeout(120)
async def test_the_rules_service_killed_mid_match_fails_acts_fast_and_the_timer_goes_on(
        tmp_path: Path, unique: str) -> None:
    turn_s = 4
    rules = RulesProcess(tmp_path)
    async with TansuBroker() as broker:
        kafka = KafkaSettings(bootstrap_servers=broker.bootstrap_servers, partitions=PARTITIONS)
        await ensure_topics(kafka)
        await rules.start()
        store_url = f"sqlite:///{tmp_path / 'events.db'}"
        match = Match(Instance("room", broker.bootstrap_servers, store_url, tmp_path,
                               HAND_RULES_ADDRESS=rules.address),
                      ledger_for(f"sqlite:///{tmp_path / 'ledger.db'}", store_url, kafka, unique), store_url)
        try:
            driver = await match.start(seed=12, turn_seconds=turn_s)
            began = time.monotonic()
            deadline = began + 90
            await driver.play(deadline, until=lambda d: d.moves >= 8)
            rules.kill()
            # Acts in the gap: UNAVAILABLE with a retry hint, at once (no hang to a deadline)
            mover = driver.latest().view.turn.seat
            player, view = driver.by_seat[mover], driver.watchers[mover].latest.view
            for _ in range(3):
                t0 = time.monotonic()
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await player.act(player.choose(view)[0], action_id="during-the-outage")
                driver.refused.append((refused.value.code(), time.monotonic() - t0, rule_error_of(refused.value)))
            assert_fast_unavailable(driver.refused)
            # nobody acts: the turn timer fires into the outage, is refused, and is re-armed
            head = driver.head()
            await wait_for(lambda: refused_timeouts(match.room) >= 1, turn_s + 10)
            assert driver.head() == head
            restarted = time.monotonic()
            await rules.start()
            await wait_for(lambda: driver.head() > head, 30)  # the re-armed timer's move, nobody acting
            timer_s = time.monotonic() - restarted
            outage_ms = slowest_refusal_ms(driver)
            driver.refused.clear()
            await match.finish_and_agree(deadline)
            act_s = driver.first_accepted_after(restarted)
            assert_fast_unavailable(driver.refused)
            print(f"chaos: rules service restart → next accepted move {timer_s:.2f} s (the re-armed turn timer); "
                  f"→ next player move {act_s:.2f} s; refused Acts took ≤ {outage_ms} ms; "
                  f"{driver.moves} moves in {time.monotonic() - began:.1f} s")
        finally:
            await match.close()
            rules.stop()


@pytest.mark.timeout(120)
async def test_postgresql_killed_mid_match_fails_acts_fast_and_loses_nothing(tmp_path: Path, unique: str) -> None:
    with TempPostgres() as pg:
        store_url = await create_database(pg.url, "events")
        ledger_url = await create_database(pg.url, "ledger")
        async with TansuBroker() as broker:
            kafka = KafkaSettings(bootstrap_servers=broker.bootstrap_servers, partitions=PARTITIONS)
            await ensure_topics(kafka)
            match = Match(Instance("room", broker.bootstrap_servers, store_url, tmp_path),
                          ledger_for(ledger_url, store_url, kafka, unique), store_url)
            try:
                driver = await match.start(seed=14)
                began = time.monotonic()
                deadline = began + 90
                await driver.play(deadline, until=lambda d: d.moves >= 8)
                pg.kill()
                killed = time.monotonic()
                # players keep acting (retrying UNAVAILABLE with the same id); the server is back in 2 s
                restart = asyncio.get_running_loop().run_in_executor(None, _restart_after, pg, 2.0)
                await driver.play(deadline, until=lambda d: d.moves >= 12)
                restarted, ready_s = await restart
                assert driver.refused, "no Act was refused while PostgreSQL was down"
                assert_fast_unavailable(driver.refused)
                act_s = driver.first_accepted_after(restarted)
                refusals = len(driver.refused)
                await match.finish_and_agree(deadline)
                print(f"chaos: PostgreSQL down {restarted - killed:.2f} s, ready {ready_s:.2f} s after its "
                      f"restart; restart → next accepted move {act_s:.2f} s; {refusals} refused Acts, each "
                      f"≤ {slowest_refusal_ms(driver)} ms; {driver.moves} moves in {time.monotonic() - began:.1f} s")
            finally:
                await match.close()


def _restart_after(pg: TempPostgres, delay: float) -> tuple[float, float]:
    time.sleep(delay)
    at = time.monotonic()
    return at, pg.restart()


def slowest_refusal_ms(driver: MatchDriver) -> int:
    """The slowest refused Act so far, in ms."""
    return round(max((took for _, took, _ in driver.refused), default=0) * 1000)
