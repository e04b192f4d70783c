"""Small helpers for the child processes we start (Tansu, PostgreSQL).

Private: free ports, polling with a deadline, and a stop that escalates from
a polite signal to SIGKILL. Used by :mod:`hand_infra.broker` and
:mod:`hand_infra.postgres`; nothing here knows about either program.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import structlog

log = structlog.get_logger("hand_infra.proc")

POLL_S = 0.01


class ProcessStartError(RuntimeError):
    """A child process exited, or did not become ready, while we waited."""


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port that is free on ``host`` right now.

    Another process may take it before we use it; callers retry on a failed
    start.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def port_is_free(host: str, port: int) -> bool:
    """True if nothing listens on ``host:port`` right now.

    SO_REUSEADDR, as the brokers' own listeners do: connections of a stopped
    broker left in TIME_WAIT do not keep its port from being reused (a
    restart on the same port), a listening socket still does."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def accepts_connections(host: str, port: int) -> bool:
    """True if a TCP connect to ``host:port`` succeeds now."""
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def rss_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` (``OSError`` once it is gone)."""
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def log_tail(path: Path | None, limit: int = 2000) -> str:
    """The end of a child's log file, for error messages."""
    if path is None or not path.exists():
        return ""
    return path.read_text(errors="replace")[-limit:]


def _started(proc: subprocess.Popen, ready: Callable[[], bool], deadline: float, timeout: float,
             what: str, log_path: Path | None) -> bool:
    """One poll of a starting child: True when ready; ``ProcessStartError`` if it
    exited or ``deadline`` passed."""
    if proc.poll() is not None:
        raise ProcessStartError(
            f"{what} exited with {proc.returncode} while starting:\n"
            f"{log_tail(log_path)}"
        )
    if ready():
        return True
    if time.monotonic() > deadline:
        raise ProcessStartError(
            f"{what} not ready after {timeout} s:\n{log_tail(log_path)}"
        )
    return False


def wait_ready(
    proc: subprocess.Popen,
    ready: Callable[[], bool],
    timeout: float,
    what: str,
    log_path: Path | None = None,
) -> float:
    """Poll ``ready()`` until it is true; return the seconds it took.

    Raises :class:`ProcessStartError` if ``proc`` exits first or ``timeout``
    passes.
    """
    start = time.monotonic()
    while not _started(proc, ready, start + timeout, timeout, what, log_path):
        time.sleep(POLL_S)
    return time.monotonic() - start


async def wait_ready_async(
    proc: subprocess.Popen,
    ready: Callable[[], bool],
    timeout: float,
    what: str,
    log_path: Path | None = None,
) -> float:
    """Async twin of :func:`wait_ready`: sleeps with ``asyncio.sleep``."""
    start = time.monotonic()
    while not _started(proc, ready, start + timeout, timeout, what, log_path):
        await asyncio.sleep(POLL_S)
    return time.monotonic() - start


def stop_process(
    proc: subprocess.Popen,
    sig: int = signal.SIGTERM,
    timeout: float = 10.0,
    what: str = "process",
) -> float:
    """Send ``sig``, wait up to ``timeout`` s, then SIGKILL; return seconds.

    Always reaps the child, so its port and files are free on return.
    """
    start = time.monotonic()
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            log.warning("stop_timeout_kill", what=what, pid=proc.pid, timeout_s=timeout)
            proc.kill()
            proc.wait()
    return time.monotonic() - start


async def stop_process_async(
    proc: subprocess.Popen,
    sig: int = signal.SIGTERM,
    timeout: float = 10.0,
    what: str = "process",
) -> float:
    """Async twin of :func:`stop_process`: polls instead of blocking the loop."""
    start = time.monotonic()
    if proc.poll() is None:
        proc.send_signal(sig)
        deadline = start + timeout
        while proc.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(POLL_S)
        if proc.poll() is None:
            log.warning("stop_timeout_kill", what=what, pid=proc.pid, timeout_s=timeout)
            proc.kill()
            await asyncio.to_thread(proc.wait)
    return time.monotonic() - start
