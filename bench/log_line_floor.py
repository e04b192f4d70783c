"""What one log line costs a service: the ``rpc`` line every call ends with (``HAND_LOG_CALLS=all``,
the default), through the processors ``hand_common.logging`` configures (JSON, to /dev/null so
that the write is the kernel's cheapest), with the call's context bound as the room service binds
it. The baseline, in the same run: the context bound and unbound alone, no line.

    .venv/bin/python bench/log_line_floor.py [--lines 50000] [--rounds 3]

Prints µs per call for each, per round (the rounds alternate), and their medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "services"), str(ROOT / "gen")]

import structlog  # noqa: E402

from hand_common.config import LogConfig  # noqa: E402
from hand_common.logging import configure_logging  # noqa: E402

ROOM_ID = "1f4df07a2dfa4dbfa39c5bebfe104c92"


def per_call_us(log, lines: int, with_line: bool) -> float:
    bind = structlog.contextvars.bound_contextvars
    began = time.perf_counter()
    for _ in range(lines):
        with bind(rpc="Act", room_id=ROOM_ID, seat=1):
            if with_line:
                log.info("rpc", code="OK", duration_ms=1.23)
    return (time.perf_counter() - began) / lines * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=50_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with open(os.devnull, "w") as sink:
        configure_logging(LogConfig.from_env({"HAND_LOG_FORMAT": "json", "HAND_LOG_LEVEL": "info"}), stream=sink)
        log = structlog.get_logger("hand_room.gateway")
        bound, line = [], []
        with structlog.contextvars.bound_contextvars(instance="f991fd0218ee"):
            for _ in range(args.rounds):
                bound.append(per_call_us(log, args.lines, False))
                line.append(per_call_us(log, args.lines, True))
    print(f"context bound alone: {[round(x, 2) for x in bound]} µs, median {statistics.median(bound):.2f}")
    print(f"bound + rpc line:    {[round(x, 2) for x in line]} µs, median {statistics.median(line):.2f}")
    print(f"the line itself:     median {statistics.median(line) - statistics.median(bound):.2f} µs")


if __name__ == "__main__":
    main()
