"""The floor under the room service's publish: what aiokafka's producer alone costs to send
one pass's events at human pace (issue 24's ≤ 1 ms goal; ``grpc_floor.py`` is the
transport's).

A pass of the room bench at 150 act/s is one room's move: about two events, each sent to
``hand.room-events`` and ``hand.room-events-public`` keyed by the room, right after the
commit (``OutboxRelay.publish_direct``). Here a process (uvloop, as the services run)
does exactly that and nothing else against the embedded Tansu broker, ``--passes`` times
a second over 300 rooms and 32 partitions, in rounds that alternate the variants:

- ``pace``: the pacing loop alone (no send) — the baseline subtracted;
- ``send``: ``producer.send`` per record, as the relay does (linger 0);
- ``linger20`` / ``linger100``: the same with a 20 / 100 ms linger (fewer produce requests);
- ``batch``: one ``create_batch`` / ``send_batch`` per topic a pass (one call a partition).

Per variant: this process's CPU per pass, less the ``pace`` baseline of the same round.

    .venv/bin/python bench/kafka_publish_floor.py [--passes 150] [--window 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "services"), str(ROOT / "gen")]

from aiokafka import AIOKafkaProducer  # noqa: E402

from hand_common.event_loop import run  # noqa: E402
from hand_infra.broker import TansuBroker  # noqa: E402
from hand_infra.settings import KafkaSettings  # noqa: E402
from hand_infra.topics import ensure_topics, partition_of  # noqa: E402

TOPICS = ("bench.events", "bench.events-public")
PARTITIONS, ROOMS, EVENTS = 32, 300, 2
VALUE = bytes(200)  # about a stored event
VARIANTS = ("pace", "send", "linger20", "linger100", "batch")


async def one(kafka: KafkaSettings, variant: str, passes: float, window: float) -> float:
    """CPU seconds of this process per pass, for ``window`` s of ``variant``."""
    linger = {"linger20": 20, "linger100": 100}.get(variant, 0)
    producer = AIOKafkaProducer(**{**kafka.producer_kwargs(), "linger_ms": linger})
    await producer.start()
    rooms = [f"room-{i:04d}-{'x' * 12}" for i in range(ROOMS)]
    pending: list[asyncio.Future] = []
    began, cpu0, n = time.monotonic(), time.process_time(), 0
    try:
        while time.monotonic() - began < window:
            room = rooms[n % ROOMS]
            key = room.encode()
            for topic in TOPICS if variant != "pace" else ():
                if variant == "batch":
                    batch = producer.create_batch()
                    for _ in range(EVENTS):
                        batch.append(key=key, value=VALUE, timestamp=None)
                    pending.append(await producer.send_batch(batch, topic, partition=partition_of(room, PARTITIONS)))
                else:
                    for _ in range(EVENTS):
                        pending.append(await producer.send(topic, key=key, value=VALUE))
            n += 1
            if len(pending) > 500:
                await asyncio.gather(*pending)
                pending = []
            await asyncio.sleep(max(0.0, began + n / passes - time.monotonic()))
        await asyncio.gather(*pending)
        return (time.process_time() - cpu0) / n
    finally:
        await producer.stop()


async def main(args: argparse.Namespace) -> dict:
    async with TansuBroker() as broker:
        kafka = KafkaSettings(bootstrap_servers=broker.bootstrap_servers)
        await ensure_topics(kafka, TOPICS, partitions=PARTITIONS)
        rounds = []
        for r in range(args.rounds):
            got = {v: await one(kafka, v, args.passes, args.window) for v in VARIANTS}
            rounds.append(got)
            print(f"round {r + 1}: " + ", ".join(f"{v} {got[v] * 1e6:.0f} µs" for v in VARIANTS), file=sys.stderr)
    net = {v: [(g[v] - g["pace"]) * 1e3 for g in rounds] for v in VARIANTS if v != "pace"}
    return {"passes_per_s": args.passes, "records_per_pass": EVENTS * len(TOPICS),
            "pace_ms": [round(g["pace"] * 1e3, 3) for g in rounds],
            "net_ms_per_pass": {v: [round(x, 3) for x in xs] for v, xs in net.items()},
            "median_ms_per_pass": {v: round(statistics.median(xs), 3) for v, xs in net.items()}}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passes", type=float, default=150.0, help="passes (rooms' moves) a second")
    parser.add_argument("--window", type=float, default=10.0, help="seconds per variant")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every variant, alternated")
    print(json.dumps(run(main(parser.parse_args()), "uvloop"), indent=1))
