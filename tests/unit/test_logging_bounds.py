"""Log lines are bounded and carry no secret: cut values, redacted keys, no frame locals (issue 11)."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog

from hand_common.config import LogConfig
from hand_common.logging import MAX_VALUE, bound_values, configure_logging

SEAT_TOKEN = "Zq3xSeatTokenThatMustNeverBeLogged0"


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level, config = list(root.handlers), root.level, structlog.get_config()
    yield
    structlog.configure(**config)  # as found (tests/conftest.py's plain tracebacks)
    root.handlers[:] = handlers
    root.setLevel(level)


def _fail_with_a_token_in_a_local(token: str) -> None:
    seat_token = token  # noqa: F841 — the local the old traceback renderer printed
    raise RuntimeError("unexpected")


@pytest.mark.parametrize("fmt", ["json", "console"])
def test_a_traceback_shows_no_frame_locals(fmt: str) -> None:
    stream = io.StringIO()
    configure_logging(LogConfig(format=fmt), stream)
    try:
        _fail_with_a_token_in_a_local(SEAT_TOKEN)
    except RuntimeError:
        structlog.get_logger().exception("rpc failed")
    text = stream.getvalue()
    assert "RuntimeError" in text and "_fail_with_a_token_in_a_local" in text
    assert SEAT_TOKEN[:8] not in text


@pytest.mark.parametrize("fmt", ["json", "console"])
def test_long_values_are_cut_and_secret_keys_redacted(fmt: str) -> None:
    stream = io.StringIO()
    configure_logging(LogConfig(format=fmt), stream)
    structlog.get_logger().info("rpc", room_id="r" * 600_000, seat_token=SEAT_TOKEN,
                                authorization="Bearer " + SEAT_TOKEN, ids=list(range(10_000)))
    text = stream.getvalue()
    assert len(text) < 4 * MAX_VALUE + 1000
    assert SEAT_TOKEN[:8] not in text and "[redacted]" in text
    assert "+599488 chars" in text


def test_standard_library_lines_are_cut_too() -> None:
    stream = io.StringIO()
    configure_logging(LogConfig(format="json"), stream)
    logging.getLogger("grpc").warning("bad request %s", "x" * 100_000)
    [line] = [json.loads(raw) for raw in stream.getvalue().splitlines()]
    assert len(line["event"]) < MAX_VALUE + 40


def test_bound_values_cuts_what_is_long_keeps_what_is_plain_and_redacts_any_secret() -> None:
    class Name(str):
        pass

    line = {"event": "rpc", "code": "OK", "duration_ms": 1.5, "seat": 0, "ok": True, "none": None,
            "exact": "x" * MAX_VALUE, "over": "y" * (MAX_VALUE + 1), "sub": Name("z" * (MAX_VALUE + 5)),
            "nested": {"deep": "w" * (MAX_VALUE + 2)}, "api_token": 12345, "Password": "", "secret": None}
    out = bound_values(None, "info", dict(line))
    assert {k: out[k] for k in ("event", "code", "duration_ms", "seat", "ok", "none", "exact")} == \
        {k: line[k] for k in ("event", "code", "duration_ms", "seat", "ok", "none", "exact")}
    assert out["over"].startswith("y" * MAX_VALUE) and out["over"].endswith("…[+1 chars]")
    assert out["sub"].endswith("…[+5 chars]") and out["nested"]["deep"].endswith("…[+2 chars]")
    assert out["api_token"] == "[redacted]" and out["Password"] == "" and out["secret"] is None
