"""The rules service over real gRPC: an in-process grpc.aio server on port 0, and
``python -m hand_rules`` as a subprocess (health, SIGTERM)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status

import hand_engine
from hand.v1 import actions_pb2, cards_pb2, errors_pb2, options_pb2, views_pb2
from hand.v1 import rules_service_pb2 as pb
from hand.v1 import rules_service_pb2_grpc as pb_grpc
from hand_common.healthcheck import check
from hand_common.status import from_status
from hand_engine import parse_cards, resolve
from hand_wire import action_from_proto, state_from_proto, state_to_proto
from hand_rules.server import RulesServer
from hand_rules.settings import RulesConfig
from hand_sim.positions import build

LIMIT = 64 * 1024  # HAND_GRPC_MAX_MESSAGE_BYTES of the in-process server
ROOT = Path(__file__).resolve().parents[2]
SERVING = health_pb2.HealthCheckResponse.SERVING
AR = (("accept-language", "ar"),)


@pytest.fixture
async def stub() -> AsyncIterator[pb_grpc.RulesServiceStub]:
    """A RulesService client of a fresh in-process server on a free port."""
    config = RulesConfig.from_env(
        {"HAND_RULES_PORT": "0", "HAND_GRPC_MAX_MESSAGE_BYTES": str(LIMIT)}
    )
    server = RulesServer(config.server)
    await server.start()
    assert server.port > 0
    try:
        async with grpc.aio.insecure_channel(server.target) as channel:
            yield pb_grpc.RulesServiceStub(channel)
    finally:
        await server.stop(0)


async def refused(call) -> tuple[grpc.StatusCode, errors_pb2.RuleError | None, str]:
    """The status code, RuleError detail and message of a call that must fail."""
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    error = info.value
    return error.code(), from_status(rpc_status.from_call(error)), error.details()


async def still_answers(stub: pb_grpc.RulesServiceStub) -> None:
    assert (await stub.Echo(pb.EchoRequest(payload=b"ping"))).payload == b"ping"


async def started(stub, preset: str = "hand", seats: int = 4, seed: int = 7) -> pb.StartRoundResponse:
    return await stub.StartRound(
        pb.StartRoundRequest(rules=options_pb2.RuleSelection(preset=preset), seats=seats, seed=seed)
    )


def discard(card: int) -> actions_pb2.Action:
    return actions_pb2.Action(discard=actions_pb2.Discard(card=card + 1))  # wire id = engine id + 1


# ---------------------------------------------------------------- StartRound
async def test_start_round_from_a_seed_deals_a_consistent_reproducible_round(stub) -> None:
    first, again = await started(stub, "kout-saudi", 3, 42), await started(stub, "kout-saudi", 3, 42)
    assert first == again
    state = state_from_proto(first.state)
    hand_engine.check_state(state)
    assert state.options == resolve("kout-saudi", {"seat_count": 3}) and state.seed == 42  # its 3 seats inside
    assert [e.WhichOneof("event") for e in first.events] == ["round_started", "turn_started"]
    assert first.events[0].round_started.HasField("seed")  # unredacted for the room owner


async def test_start_round_from_an_explicit_deck_deals_as_rules_section_2(stub) -> None:
    deck = list(range(105, -1, -1))
    n, dealer = 3, 1
    reply = await stub.StartRound(pb.StartRoundRequest(
        seats=n, dealer=dealer, deck=cards_pb2.DeckOrder(cards=[c + 1 for c in deck], seed=5), round_no=2
    ))
    state = state_from_proto(reply.state)
    starter = (dealer + 1) % n
    for seat in range(n):
        dealt = [deck[k] for k in range(14 * n + 1) if (starter + k) % n == seat]
        assert state.seats[seat].hand == tuple(sorted(dealt))
    assert len(state.seats[starter].hand) == 15
    assert list(state.stock) == deck[14 * n + 1:] and state.pile == ()
    assert (state.dealer, state.seed, state.round_no, state.turn.seat) == (dealer, 5, 2, starter)


async def test_start_round_refuses_a_missing_deal_and_bad_options(stub) -> None:
    code, error, _ = await refused(stub.StartRound(pb.StartRoundRequest(seats=4)))
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert error.code == errors_pb2.ERROR_CODE_INVALID_ARGUMENT
    code, error, _ = await refused(stub.StartRound(pb.StartRoundRequest(
        rules=options_pb2.RuleSelection(preset="partnership"), seats=3, seed=1
    )))
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert error.code == errors_pb2.ERROR_CODE_INVALID_OPTIONS


# --------------------------------------------------------------- ApplyAction
async def test_a_legal_move_returns_the_new_state_and_its_events(stub) -> None:
    start = await started(stub)
    state = state_from_proto(start.state)
    seat, card = state.turn.seat, state.seats[state.turn.seat].hand[0]
    reply = await stub.ApplyAction(pb.ApplyActionRequest(state=start.state, seat=seat, action=discard(card)))
    expected, events = hand_engine.apply(state, seat, hand_engine.Discard(card))
    assert state_from_proto(reply.state) == expected
    assert [e.WhichOneof("event") for e in reply.events] == ["card_discarded", "turn_started"]
    assert reply.events[0].card_discarded.card == card + 1 and len(events) == 2


async def test_an_illegal_move_is_failed_precondition_with_its_error_code(stub) -> None:
    start = await started(stub)
    state = state_from_proto(start.state)
    other = (state.turn.seat + 1) % state.n
    request = pb.ApplyActionRequest(state=start.state, seat=other, action=discard(state.seats[other].hand[0]))
    code, error, details = await refused(stub.ApplyAction(request))
    assert code is grpc.StatusCode.FAILED_PRECONDITION
    assert error.code == errors_pb2.ERROR_CODE_NOT_YOUR_TURN
    assert error.params["seat"] == str(state.turn.seat)
    assert details == error.message and error.message.startswith("It is not your turn")
    draw = pb.ApplyActionRequest(
        state=start.state, seat=state.turn.seat, action=actions_pb2.Action(draw_stock=actions_pb2.DrawStock())
    )
    code, error, details = await refused(stub.ApplyAction(draw, metadata=AR))
    assert code is grpc.StatusCode.FAILED_PRECONDITION
    assert error.code == errors_pb2.ERROR_CODE_OPENING_DISCARD_ONLY
    assert error.message == details == "في الدور الأول للبادئ يُسمح بالرمي فقط."


def _tampered_state(msg) -> None:
    """A card in two hands: the 106 cards are no longer each accounted for once."""
    msg.seats[1].hand.append(msg.seats[0].hand[0])


@pytest.mark.parametrize(
    "change, error_code",
    [
        (lambda r: r.action.CopyFrom(discard(999)), errors_pb2.ERROR_CODE_UNKNOWN_CARD),
        (lambda r: r.action.CopyFrom(actions_pb2.Action(lay_melds=actions_pb2.LayMelds(melds=[
            actions_pb2.MeldSpec(cards=[1, 2, 3]), actions_pb2.MeldSpec(cards=[3, 16, 29])
        ]))), errors_pb2.ERROR_CODE_DUPLICATE_CARD),
        (lambda r: _tampered_state(r.state), errors_pb2.ERROR_CODE_INVALID_STATE),
        (lambda r: r.state.stock.pop(), errors_pb2.ERROR_CODE_INVALID_STATE),
        (lambda r: setattr(r, "seat", 7), errors_pb2.ERROR_CODE_INVALID_ARGUMENT),
        (lambda r: r.ClearField("state"), errors_pb2.ERROR_CODE_INVALID_ARGUMENT),
        (lambda r: r.ClearField("action"), errors_pb2.ERROR_CODE_INVALID_ARGUMENT),
    ],
    ids=["card 999", "duplicated card", "card in two hands", "card missing", "seat 7",
         "no state", "no action"],
)
async def test_malformed_input_is_invalid_argument_and_the_server_still_answers(
    stub, change, error_code
) -> None:
    start = await started(stub)
    state = state_from_proto(start.state)
    request = pb.ApplyActionRequest(
        state=start.state, seat=state.turn.seat, action=discard(state.seats[state.turn.seat].hand[0])
    )
    change(request)
    code, error, _ = await refused(stub.ApplyAction(request, metadata=AR))
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert error.code == error_code and error.message
    await still_answers(stub)


async def test_a_message_over_the_size_limit_is_resource_exhausted(stub) -> None:
    code, error, _ = await refused(stub.Echo(pb.EchoRequest(payload=b"x" * (LIMIT + 1))))
    assert code is grpc.StatusCode.RESOURCE_EXHAUSTED and error is None
    await still_answers(stub)
    big = (await stub.Echo(pb.EchoRequest(payload=b"y" * (LIMIT - 16)))).payload
    assert len(big) == LIMIT - 16


async def _logged(logs: list, n: int, timeout: float = 5.0) -> None:
    """Until ``n`` ``rpc`` summary lines are captured: the server logs a call's line as
    it finishes, which a loaded machine may run after the client has its answer."""
    deadline = time.monotonic() + timeout
    while sum(e["event"] == "rpc" for e in logs) < n and time.monotonic() < deadline:
        await asyncio.sleep(0.01)


async def test_an_unexpected_error_is_internal_logged_and_the_server_keeps_serving(
    stub, monkeypatch
) -> None:
    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(hand_engine, "view", broken)
    start = await started(stub)
    with structlog.testing.capture_logs() as logs:
        code, error, details = await refused(stub.GetView(pb.GetViewRequest(state=start.state, seat=0)))
        await _logged(logs, 1)
    assert code is grpc.StatusCode.INTERNAL and error is None
    assert details == "internal error" and "boom" not in details
    failed = [e for e in logs if e["event"] == "rpc failed"]
    assert failed and failed[0]["exc_info"] is True and failed[0]["log_level"] == "error"
    assert any(e["event"] == "rpc" and e["code"] == "INTERNAL" for e in logs)
    await still_answers(stub)


async def test_every_call_logs_one_summary_line_with_method_seat_round_code_and_duration(stub) -> None:
    start = await started(stub)
    state = state_from_proto(start.state)
    seat = state.turn.seat
    with structlog.testing.capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs:
        await stub.ApplyAction(pb.ApplyActionRequest(
            state=start.state, seat=seat, action=discard(state.seats[seat].hand[0])
        ))
        await refused(stub.ApplyAction(pb.ApplyActionRequest(state=start.state, seat=seat, action=discard(999))))
        await _logged(logs, 2)
    lines = [e for e in logs if e["event"] == "rpc"]
    assert [(e["method"], e["seat"], e["round_no"], e["code"]) for e in lines] == [
        ("ApplyAction", seat, 1, "OK"), ("ApplyAction", seat, 1, "INVALID_ARGUMENT")
    ]
    assert lines[1]["error"] == "UNKNOWN_CARD"
    assert all(e["duration_ms"] >= 0 for e in lines)


# ------------------------------------------------------ staging, suggestions
def _eram_position() -> hand_engine.RoundState:
    return build(
        resolve("eram-hand"),
        ["5S 6S 7S 8S 7H 7D 7C KH 2C 9D 3D JC QH 4C", "2S 3S 4S 9S 10S 2H 3H 4H 5H 6H 8H 9H 10H JH"],
        turn_seat=0, phase="play",
    )


async def test_evaluate_staging_reproduces_the_eram_counter_47_of_51(stub) -> None:
    state = _eram_position()
    candidates = [parse_cards(c) for c in ("5S 6S 7S 8S", "7H 7D 7C", "KH", "2C 9D")]
    reply = await stub.EvaluateStaging(pb.EvaluateStagingRequest(
        state=state_to_proto(state), seat=0,
        candidates=[views_pb2.StagingCandidate(cards=[x + 1 for x in c]) for c in candidates],
    ))
    ev = reply.evaluation
    assert (ev.show_counter, ev.total, ev.threshold, ev.missing) == (True, 47, 51, 4)
    assert [v.colour for v in ev.verdicts] == [
        views_pb2.STAGING_COLOUR_GREEN, views_pb2.STAGING_COLOUR_GREEN,
        views_pb2.STAGING_COLOUR_NEUTRAL, views_pb2.STAGING_COLOUR_RED,
    ]
    assert [v.value for v in ev.verdicts[:2]] == [26, 21]
    code, error, _ = await refused(stub.EvaluateStaging(pb.EvaluateStagingRequest(
        state=state_to_proto(state), seat=0,
        candidates=[views_pb2.StagingCandidate(cards=[x + 1 for x in candidates[0]]),
                    views_pb2.StagingCandidate(cards=[candidates[0][0] + 1])],
    )))
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert error.code == errors_pb2.ERROR_CODE_STAGING_OVERLAP


async def test_suggest_melds_returns_disjoint_melds_from_the_hand_with_their_values(stub) -> None:
    state = _eram_position()
    reply = await stub.SuggestMelds(pb.SuggestMeldsRequest(
        state=state_to_proto(state), seat=0, goal=pb.SUGGESTION_GOAL_OPENING
    ))
    cards = [c - 1 for m in reply.melds for c in m.cards]
    assert len(cards) == len(set(cards)) and set(cards) <= set(state.seats[0].hand)
    assert reply.total == sum(reply.values) >= 47 and reply.threshold == 51
    assert reply.reaches_threshold == (reply.total >= 51)
    staged = await stub.EvaluateStaging(pb.EvaluateStagingRequest(
        state=state_to_proto(state), seat=0,
        candidates=[views_pb2.StagingCandidate(cards=m.cards) for m in reply.melds],
    ))
    assert staged.evaluation.total == reply.total


# ------------------------------------------------------------------ GetView
async def test_a_seat_view_shows_no_other_hand_and_a_spectator_view_no_hand(stub) -> None:
    start = await started(stub, seats=3)
    state = state_from_proto(start.state)
    for seat in range(3):
        v = (await stub.GetView(pb.GetViewRequest(state=start.state, seat=seat))).view
        assert v.seat == seat and tuple(c - 1 for c in v.hand) == state.seats[seat].hand
        visible = {c - 1 for c in [*v.hand, *v.pile, *(x for m in v.melds for x in m.cards)]}
        others = {c for i, s in enumerate(state.seats) if i != seat for c in s.hand}
        assert not visible & others
        assert [s.hand_size for s in v.seats] == [len(s.hand) for s in state.seats]
    spectator = (await stub.GetView(pb.GetViewRequest(state=start.state))).view
    assert not spectator.HasField("seat") and list(spectator.hand) == []
    assert not {"deck", "stock", "seed"} & set(views_pb2.SeatView.DESCRIPTOR.fields_by_name)
    code, _, _ = await refused(stub.GetView(pb.GetViewRequest(state=start.state, seat=3)))
    assert code is grpc.StatusCode.INVALID_ARGUMENT


# ---------------------------------------------------- AutoTurn, whole round
async def test_auto_turn_actions_apply_legally(stub) -> None:
    start = await started(stub, "eram-saudi", 4, 3)
    state_msg = start.state
    for _ in range(6):  # a few turns, each applied move by move
        seat = state_from_proto(state_msg).turn.seat
        actions = (await stub.AutoTurn(pb.AutoTurnRequest(state=state_msg))).actions
        assert actions and actions[-1].WhichOneof("action") == "discard"
        for action in actions:
            state_msg = (await stub.ApplyAction(
                pb.ApplyActionRequest(state=state_msg, seat=seat, action=action)
            )).state
        assert state_from_proto(state_msg).turn.seat != seat


async def test_a_whole_round_plays_to_the_end_over_grpc(stub) -> None:
    """Every turn from AutoTurn, every move through ApplyAction; the engine agrees move by move."""
    start = await started(stub, "hand", 4, 2024)
    state_msg, local = start.state, state_from_proto(start.state)
    calls = 0
    while not state_msg.HasField("result"):
        seat = state_msg.turn.seat
        for action in (await stub.AutoTurn(pb.AutoTurnRequest(state=state_msg))).actions:
            reply = await stub.ApplyAction(pb.ApplyActionRequest(state=state_msg, seat=seat, action=action))
            local, _ = hand_engine.apply(local, seat, action_from_proto(action))
            state_msg = reply.state
            calls += 1
        assert state_from_proto(state_msg) == local
    assert local.result is not None and calls > 50
    code, error, _ = await refused(stub.AutoTurn(pb.AutoTurnRequest(state=state_msg)))
    assert code is grpc.StatusCode.FAILED_PRECONDITION
    assert error.code == errors_pb2.ERROR_CODE_ROUND_OVER


# ---------------------------------------------------- Echo, health, reflection
async def test_echo_returns_the_payload_unchanged(stub) -> None:
    payload = bytes(range(256)) * 4
    assert (await stub.Echo(pb.EchoRequest(payload=payload))).payload == payload


async def test_health_is_serving_and_reflection_lists_the_service() -> None:
    config = RulesConfig.from_env({"HAND_RULES_PORT": "0"})
    server = RulesServer(config.server)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.target) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            for service in ("", "hand.v1.RulesService"):
                reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
                assert reply.status == SERVING
            reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
            call = reflection.ServerReflectionInfo()
            await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
            reply = await call.read()
            await call.done_writing()
            names = {s.name for s in reply.list_services_response.service}
            assert {"hand.v1.RulesService", "grpc.health.v1.Health"} <= names
    finally:
        await server.stop(0)


# ------------------------------------------------------ python -m hand_rules
def test_the_module_serves_health_and_exits_0_promptly_on_sigterm(tmp_path: Path) -> None:
    log_path = tmp_path / "rules.log"
    env = {**os.environ, "HAND_RULES_PORT": "0", "HAND_LOG_FORMAT": "json", "HAND_SHUTDOWN_GRACE_S": "2"}
    with log_path.open("w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "hand_rules"], env=env, cwd=ROOT, stderr=log)
    try:
        address = _wait_for_listening(log_path, proc)
        assert check(address) == "SERVING"
        assert check(address, "hand.v1.RulesService") == "SERVING"
        proc.send_signal(signal.SIGTERM)
        t0 = time.monotonic()
        assert proc.wait(timeout=10) == 0
        assert time.monotonic() - t0 < 5
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    events = [json.loads(line)["event"] for line in log_path.read_text().splitlines()]
    assert events[0] == "listening" and events[-1] == "stopped"


def test_the_module_exits_1_with_a_log_line_when_its_port_is_taken() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env = {**os.environ, "HAND_RULES_PORT": str(taken.getsockname()[1]), "HAND_LOG_FORMAT": "json"}
        done = subprocess.run([sys.executable, "-m", "hand_rules"], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    assert [r["event"] for r in lines] == ["cannot start"]


def _wait_for_listening(log_path: Path, proc: subprocess.Popen) -> str:
    """The bound address from the "listening" line (port 0 became a real port)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for line in log_path.read_text().splitlines():
            record = json.loads(line)
            if record["event"] == "listening":
                host, _, port = record["address"].rpartition(":")
                assert int(port) > 0
                return record["address"]
        assert proc.poll() is None, log_path.read_text()
        time.sleep(0.05)
    raise AssertionError("the rules service did not log 'listening' in time")
