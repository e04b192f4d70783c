"""Logging set-up: JSON off a terminal, console on one, context on every line."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog
from structlog.testing import capture_logs

from hand_common.config import LogConfig
from hand_common.logging import bind_game, configure_logging, game_context, renders_json


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """Each test configures logging; put structlog and the root logger back afterwards."""
    root = logging.getLogger()
    handlers, level, config = list(root.handlers), root.level, structlog.get_config()
    structlog.contextvars.clear_contextvars()
    yield
    structlog.contextvars.clear_contextvars()
    structlog.configure(**config)  # as found (tests/conftest.py's plain tracebacks)
    root.handlers[:] = handlers
    root.setLevel(level)


def _json_lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_auto_format_is_json_when_not_a_terminal() -> None:
    assert renders_json(LogConfig(format="auto"), io.StringIO())
    assert not renders_json(LogConfig(format="auto"), _Tty())


def test_an_explicit_format_wins_over_terminal_detection() -> None:
    assert renders_json(LogConfig(format="json"), _Tty())
    assert not renders_json(LogConfig(format="console"), io.StringIO())


def test_json_lines_carry_level_iso_timestamp_and_bound_context() -> None:
    stream = io.StringIO()
    configure_logging(LogConfig(format="auto", level="info"), stream)
    bind_game(room_id="r1", seat=2)
    structlog.get_logger().info("action_applied", kind="draw")
    [line] = _json_lines(stream)
    assert line["event"] == "action_applied"
    assert line["level"] == "info"
    assert line["room_id"] == "r1" and line["seat"] == 2 and line["kind"] == "draw"
    assert "match_id" not in line and "seq" not in line
    timestamp = str(line["timestamp"])
    assert timestamp.endswith("Z") and "T" in timestamp


def test_lines_below_the_configured_level_are_dropped() -> None:
    stream = io.StringIO()
    configure_logging(LogConfig(format="json", level="warning"), stream)
    log = structlog.get_logger()
    log.info("quiet")
    log.warning("loud")
    assert [line["event"] for line in _json_lines(stream)] == ["loud"]


def test_console_format_is_not_json_and_shows_context() -> None:
    stream = io.StringIO()
    configure_logging(LogConfig(format="console", level="info"), stream)
    with game_context(room_id="room-7"):
        structlog.get_logger().info("seat_joined")
    text = stream.getvalue()
    assert "seat_joined" in text and "room-7" in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_standard_library_loggers_share_the_json_format_and_context() -> None:
    stream = io.StringIO()
    configure_logging(LogConfig(format="json", level="info"), stream)
    with game_context(match_id="m1"):
        logging.getLogger("aiokafka").warning("rebalancing %s", "group")
    [line] = _json_lines(stream)
    assert line["event"] == "rebalancing group"
    assert line["level"] == "warning"
    assert line["logger"] == "aiokafka"
    assert line["match_id"] == "m1"


def test_configuring_twice_does_not_duplicate_standard_library_lines() -> None:
    stream = io.StringIO()
    configure_logging(LogConfig(format="json"), stream)
    configure_logging(LogConfig(format="json"), stream)
    logging.getLogger("grpc").warning("once")
    assert len(_json_lines(stream)) == 1


def test_exceptions_are_structured_in_json() -> None:
    stream = io.StringIO()
    configure_logging(LogConfig(format="json"), stream)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        structlog.get_logger().exception("failed")
    [line] = _json_lines(stream)
    assert line["exception"][0]["exc_type"] == "RuntimeError"  # type: ignore[index]


def test_game_context_binds_only_within_the_block() -> None:
    configure_logging(LogConfig(format="json"), io.StringIO())
    with capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs:
        log = structlog.get_logger()
        with game_context(room_id="r", match_id="m", seat=0, seq=12):
            log.info("inside")
        log.info("outside")
    inside, outside = logs
    assert {k: inside[k] for k in ("room_id", "match_id", "seat", "seq")} == {
        "room_id": "r",
        "match_id": "m",
        "seat": 0,
        "seq": 12,
    }
    assert "room_id" not in outside


def test_game_context_restores_outer_values() -> None:
    configure_logging(LogConfig(format="json"), io.StringIO())
    bind_game(room_id="outer", seq=1)
    with capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs:
        with game_context(seq=2):
            structlog.get_logger().info("inner")
        structlog.get_logger().info("after")
    assert [(e["room_id"], e["seq"]) for e in logs] == [("outer", 2), ("outer", 1)]


def test_seat_zero_is_bound_not_dropped() -> None:
    bind_game(seat=0)
    assert structlog.contextvars.get_contextvars() == {"seat": 0}


class _Context:
    def invocation_metadata(self):
        return ()

    async def abort(self, code, details, trailing_metadata=()):
        raise RuntimeError("aborted")


@pytest.mark.parametrize("calls,logged", [("all", ["OK", "NOT_YOURS"]), ("refused", ["NOT_YOURS"])])
def test_hand_log_calls_keeps_an_ok_calls_line_at_debug(calls: str, logged: list[str]) -> None:
    """``HAND_LOG_CALLS=refused``: a call that ended OK logs its ``rpc`` line at debug, every
    other call at info; ``all`` (the default): every call at info."""
    import asyncio

    import grpc

    from hand_common.rpc import Refused, plain_status, rpc

    stream = io.StringIO()
    configure_logging(LogConfig(format="json", calls=calls), stream)
    log = structlog.get_logger("test")

    def refuse(exc, lang):
        return Refused("NOT_YOURS", plain_status(grpc.StatusCode.PERMISSION_DENIED, "no"))

    class Servicer:
        @rpc(log, refuse=refuse)
        async def Act(self, request, context):
            if request == "bad":
                raise ValueError("refused")
            return "done"

    async def calls_made() -> None:
        assert await Servicer().Act("good", _Context()) == "done"
        with pytest.raises(RuntimeError):
            await Servicer().Act("bad", _Context())

    asyncio.run(calls_made())
    lines = [line for line in _json_lines(stream) if line["event"] == "rpc"]
    assert [line["code"] for line in lines] == logged and all(line["level"] == "info" for line in lines)
    configure_logging(LogConfig(format="json"), io.StringIO())
