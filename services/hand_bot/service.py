"""Consumes ``hand.bot-requests`` (consumer group: any number of replicas) and
sends each bot's actions back to ``hand.room-commands`` like any client.

Stateless: a request carries the seat's perspective (``hand_engine.perspective``:
exactly what a human in the seat sees), the level and the turn's coordinates;
the seed comes from those coordinates, so a bot's game replays exactly.
"""

from __future__ import annotations

import hashlib
import time

import structlog
from aiokafka import AIOKafkaProducer

from dataclasses import dataclass
from typing import Any

from hand.v1 import room_bus_pb2
from hand_engine import options_to_dict
from hand_engine import PERSPECTIVE_FORMAT as FORMAT
from hand_engine import view_to_json
from hand_infra.broker_port import BrokerPort, kafka_or
from hand_infra.client_lifecycle import start_client
from hand_infra.consumer_loop import ConsumerLoop
from hand_infra.kafka_metrics import LagProbe
from hand_infra.kafka_trace import consume_span, headers
from hand_infra.settings import KafkaSettings
from hand_infra.topics import BOT_REQUESTS, ROOM_COMMANDS
from hand_table import BotTurn, Command
from hand_wire import LEVEL_NAMES, encode_command, event_from_proto, options_from_proto, view_from_proto

from .metrics import DECISION_SECONDS, DECISIONS, REQUESTS_WAITING
from .policy import choose_moves

log = structlog.get_logger("hand_bot")


@dataclass(frozen=True)
class BotAsk:
    """A decoded ``hand.v1.BotRequest``: exactly what a person in the seat knows."""

    room_id: str
    seat: int
    level: str
    round_no: int
    turn_no: int
    seq: int
    perspective: dict[str, Any]  # hand_engine.perspective format (the seat's view)
    history: tuple[Any, ...] = ()  # the round's engine events, redacted for the seat


def ask_from_proto(msg: room_bus_pb2.BotRequest) -> BotAsk:
    options = options_from_proto(msg.options, msg.view.n)
    perspective = {"format": FORMAT, "options": options_to_dict(options),
                   "view": view_to_json(view_from_proto(msg.view))}
    return BotAsk(msg.room_id, msg.seat, LEVEL_NAMES.get(msg.level, "beginner"), msg.round_no, msg.turn_no,
                  msg.seq, perspective, tuple(event_from_proto(e) for e in msg.history))


def request_seed(req: BotAsk) -> int:
    """A seed fixed by the request, so a bot's game replays exactly."""
    key = f"{req.room_id}:{req.round_no}:{req.turn_no}:{req.seq}"
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


def answer(req: BotAsk) -> Command:
    """The ``bot_turn`` command answering bot request ``req`` (pure)."""
    actions = choose_moves(req.perspective, req.level, request_seed(req), history=req.history or None)
    return Command(req.room_id, BotTurn(seat=req.seat, round_no=req.round_no, turn_no=req.turn_no,
                                        actions=tuple(actions), asked_seq=req.seq))


class BotService:
    name = "bot"

    def __init__(self, settings: KafkaSettings, *, group_id: str,
                 topics: dict[str, str] | None = None, broker: BrokerPort | None = None) -> None:
        self.settings, self.group_id = settings, group_id
        self.broker = kafka_or(broker, settings)  # aiokafka's clients, or an in-memory broker
        t = topics or {}
        self.t_requests = t.get("bots", BOT_REQUESTS)
        self.t_commands = t.get("commands", ROOM_COMMANDS)
        self.consumer = ConsumerLoop(settings, name="bot", topics=[self.t_requests], group_id=group_id,
                                     broker=self.broker,
                                     handle=self._on_batch, poll_ms=200, max_records=200)
        self._producer: AIOKafkaProducer | None = None
        self.decided = 0
        self._lag = LagProbe(group_id)

    async def start(self) -> None:
        self._producer = await start_client(self.broker.producer(self.settings))  # kept once started
        await self.consumer.start()

    async def stop(self) -> None:
        await self.consumer.stop()
        if self._producer is not None:
            await self._producer.stop()

    @property
    def last_poll(self) -> float:
        """time.monotonic() of the consumer loop's latest poll."""
        return self.consumer.last_poll

    def healthy(self, max_silence_s: float = 30.0) -> bool:
        """The consumer loop runs and has polled the broker recently."""
        return self.consumer.running(max_silence_s)

    async def _on_batch(self, batch: dict) -> None:
        """Each request of a batch in turn (the loop commits after a non-empty one)."""
        await self._lag(self.consumer.consumer)
        REQUESTS_WAITING.set(sum(map(len, batch.values())))
        for msgs in batch.values():
            for msg in msgs:
                with consume_span("bot.decide", msg):
                    await self._handle(msg.value)
                REQUESTS_WAITING.dec()

    async def _handle(self, raw: bytes) -> None:
        started = time.perf_counter()
        try:
            req = ask_from_proto(room_bus_pb2.BotRequest.FromString(raw))
        except Exception:
            log.warning("bad_bot_request_dropped")
            return
        with structlog.contextvars.bound_contextvars(room_id=req.room_id, seat=req.seat):
            decide_started = time.perf_counter()
            try:
                cmd = answer(req)
            except Exception:  # the room's turn timer plays the safe automatic turn instead
                log.exception("bot_decision_failed")
                DECISIONS.labels(req.level, "failed").inc()
                return
            DECISION_SECONDS.labels(req.level).observe(time.perf_counter() - decide_started)
            DECISIONS.labels(req.level, "ok").inc()
            await self._producer.send(self.t_commands, key=req.room_id.encode(), value=encode_command(cmd),
                                      headers=headers())
            self.decided += 1
            log.info("bot_turn", level=req.level, actions=len(cmd.body.actions), round_no=req.round_no,
                     turn_no=req.turn_no, asked_seq=req.seq,
                     ms=round((time.perf_counter() - started) * 1000, 2))
