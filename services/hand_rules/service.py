"""The RulesService handlers: decode, call the engine, encode — nothing else.

Each handler is a plain function of the request; ``_rpc`` makes it an async
gRPC method that turns a ``RuleViolation`` into a status with a
``RuleError`` detail, any other exception into ``INTERNAL`` (logged with its
traceback; the server keeps serving), and logs one summary line per call.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, TypeVar

import grpc
import structlog

import hand_engine as engine
from hand.v1 import rules_service_pb2 as pb
from hand.v1 import rules_service_pb2_grpc
from hand_common.rpc import rpc
from hand_common.status_map import StatusMap
from hand_engine import Code, RoundState, RuleViolation

import hand_wire as wire
from hand_wire import EnumCodec

log = structlog.get_logger("hand_rules")
_GOAL = EnumCodec(pb.SuggestionGoal.DESCRIPTOR)
_Req = TypeVar("_Req")


def _state(request: Any) -> RoundState:
    """The request's client-supplied state, decoded and checked (``INVALID_STATE``)."""
    if not request.HasField("state"):
        raise RuleViolation(Code.INVALID_ARGUMENT, "state: missing", field="state")
    state = wire.state_from_proto(request.state)
    engine.check_state(state)
    return state


def _seat(seat: int, state: RoundState) -> int:
    if not 0 <= seat < state.n:
        raise RuleViolation(Code.INVALID_ARGUMENT, f"no seat {seat}", seat=seat, field="seat", min=0, max=state.n - 1)
    return seat


def _log_context(request: Any) -> dict[str, int]:
    """``round_no`` and ``seat`` of a request, bound to the log lines of its call."""
    fields = request.DESCRIPTOR.fields_by_name
    has_state = "state" in fields and request.HasField("state")
    out: dict[str, int] = {}
    if has_state:
        out["round_no"] = request.state.round_no
    elif "round_no" in fields:
        out["round_no"] = request.round_no or 1
    if "seat" in fields:
        if not fields["seat"].has_presence or request.HasField("seat"):  # else a spectator
            out["seat"] = request.seat
    elif has_state:
        out["seat"] = request.state.turn.seat  # AutoTurn: the seat to play
    return out


#: engine codes only; the summary line's ``code`` is the gRPC status name, ``error`` the engine code
STATUS = StatusMap(log, internal_detail=False, log_grpc_code=True, failed_event="rpc failed")


def _rpc(handler: Callable[[Any, _Req], Any]) -> Callable[..., Any]:
    """``handler(self, request)`` as a gRPC method, run inline or on the service's executor."""

    async def run(self: RulesService, request: _Req, context: grpc.aio.ServicerContext) -> Any:
        if self._executor is None:
            return handler(self, request)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, contextvars.copy_context().run, handler, self, request)

    run.__name__, run.__doc__ = handler.__name__, handler.__doc__
    return rpc(log, refuse=STATUS.refuse, bind=_log_context, name_key="method", digits=3)(run)


class RulesService(rules_service_pb2_grpc.RulesServiceServicer):
    """hand.v1.RulesService over ``hand_engine``; stateless, so one instance serves all calls.

    Engine calls run inline on the event loop (they take well under a
    millisecond at the median; see docs/rules-service.md). An ``executor``
    moves them to threads instead, for comparison in bench/bench_rules_grpc.py.
    """

    def __init__(self, executor: Executor | None = None) -> None:
        self._executor = executor

    @_rpc
    def StartRound(self, request: pb.StartRoundRequest) -> pb.StartRoundResponse:
        options = wire.table_options(request.rules, request.seats, seats_field="seats")
        deal = request.WhichOneof("deal")
        if deal is None:
            raise RuleViolation(Code.INVALID_ARGUMENT, "deal: set seed or deck", field="deal", allowed="seed,deck")
        state, events = engine.start_round(
            options, request.seats,
            seed=request.deck.seed if deal == "deck" else request.seed,
            dealer=request.dealer if request.HasField("dealer") else None,
            deck=wire.cards_in(request.deck.cards, Code.INVALID_ARGUMENT, "deck.cards") if deal == "deck" else None,
            round_no=request.round_no or 1,
            fair=engine.DealSeeds(request.fair.server_seed, tuple(request.fair.seat_seeds),
                                  request.fair.deal_version or 1)
            if request.HasField("fair") else None,
        )
        return pb.StartRoundResponse(
            state=wire.state_to_proto(state), events=[wire.event_to_proto(e) for e in events]
        )

    @_rpc
    def ApplyAction(self, request: pb.ApplyActionRequest) -> pb.ApplyActionResponse:
        state = _state(request)
        seat = _seat(request.seat, state)
        action = wire.action_from_proto(request.action)
        state, events = engine.apply(state, seat, action)
        return pb.ApplyActionResponse(
            state=wire.state_to_proto(state), events=[wire.event_to_proto(e) for e in events]
        )

    @_rpc
    def EvaluateStaging(self, request: pb.EvaluateStagingRequest) -> pb.EvaluateStagingResponse:
        state = _state(request)
        seat = _seat(request.seat, state)
        staging = engine.evaluate_staging(state, seat, [wire.cards_in(c.cards, field="candidates.cards")
                                                                for c in request.candidates])
        return pb.EvaluateStagingResponse(evaluation=wire.staging_to_proto(staging))

    @_rpc
    def SuggestMelds(self, request: pb.SuggestMeldsRequest) -> pb.SuggestMeldsResponse:
        state = _state(request)
        seat = _seat(request.seat, state)
        goal = _GOAL.decode_optional(request.goal) or "opening"
        return wire.suggestion_to_proto(engine.suggest(state, seat, goal))

    @_rpc
    def GetView(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        state = _state(request)
        seat = _seat(request.seat, state) if request.HasField("seat") else None
        return pb.GetViewResponse(view=wire.view_to_proto(engine.view(state, seat), state.options))

    @_rpc
    def AutoTurn(self, request: pb.AutoTurnRequest) -> pb.AutoTurnResponse:
        state = _state(request)
        if state.result is not None:
            raise RuleViolation(Code.ROUND_OVER, "the round is over")
        actions = engine.auto_turn(state)
        return pb.AutoTurnResponse(actions=[wire.action_to_proto(a) for a in actions])

    @_rpc
    def Echo(self, request: pb.EchoRequest) -> pb.EchoResponse:
        return pb.EchoResponse(payload=request.payload)
