"""Progress lines, percentiles, and what a process costs (CPU, memory) from /proc."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from hand_infra._proc import rss_bytes  # noqa: F401 (the benches' one way to a process's memory)

CLK_TCK = os.sysconf("SC_CLK_TCK")


def progress(text: str) -> None:
    print(f"bench_rooms: {text}", file=sys.stderr, flush=True)


def pct(values: list[float], p: float) -> float | None:
    """The p-th percentile of ``values`` (seconds) in ms, None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000


def cpu_s(pid: int) -> float:
    """utime + stime of every thread of ``pid``, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def main_thread_sched(pid: int) -> tuple[float, float]:
    """Seconds the process's main (event-loop) thread has run on a CPU, and waited runnable for one."""
    run_ns, wait_ns, _ = Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()
    return int(run_ns) / 1e9, int(wait_ns) / 1e9


def machine_busy_s() -> float:
    """CPU seconds used by everything on the machine (all CPUs) since boot, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / CLK_TCK  # minus idle and iowait




def run_and_report(run: Coroutine[Any, Any, dict], path: Path, markdown: Callable[[dict], str]) -> dict:
    """Run a bench's coroutine with quiet service logs (SIGTERM stops it like Ctrl-C, so its
    processes are cleaned up), write its results to ``path`` and print its markdown."""
    from hand_common.config import LogConfig
    from hand_common.logging import configure_logging

    configure_logging(LogConfig(format="console", level="warning"), stream=sys.stderr)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    res = asyncio.run(run)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res, indent=1) + "\n")
    print(markdown(res))
    return res
