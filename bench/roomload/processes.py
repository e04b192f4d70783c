"""Child processes of a bench: a service (``python -m ...``) and the embedded broker,
each made to die with the bench; waiting and stopping are ``hand_infra._proc``'s."""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import re
import signal
import subprocess
import tempfile
from pathlib import Path

from hand_infra import _proc
from hand_infra.broker import TansuBroker, tansu_binary


def _die_with_parent() -> None:
    """In the child: get SIGTERM if the bench dies (even by SIGKILL)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _child_setup(cpus: frozenset[int] | None):
    """The child's set-up before ``exec``: die with the bench, and run only on ``cpus`` (if
    given) — set before any thread exists, so every thread of the service inherits it."""
    def setup() -> None:
        _die_with_parent()
        if cpus:
            os.sched_setaffinity(0, cpus)
    return setup


_CHILDREN: list[subprocess.Popen] = []


@atexit.register
def _reap_children() -> None:
    """Last resort (an exception before the orderly stop): never leave a process behind."""
    for proc in _CHILDREN:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class Service:
    """``python -m MODULE`` with its stdout and stderr in files; ready when ``pattern`` shows up."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], logdir: Path, pattern: str = "",
                 target: str = "", cpus: frozenset[int] | None = None) -> None:
        self.name, self.pattern = name, re.compile(pattern) if pattern else None
        self.out_path, self.err_path = logdir / f"{name}.out", logdir / f"{name}.log"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                         preexec_fn=_child_setup(cpus))
        _CHILDREN.append(self.proc)
        self.target = target  # known up front, or read from the output with ``pattern``

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _seen(self) -> bool:
        if self.pattern is None:
            host, port = self.target.rsplit(":", 1)
            return _proc.accepts_connections(host, int(port))
        for path in (self.out_path, self.err_path):
            m = self.pattern.search(path.read_text(errors="replace"))
            if m:
                self.target = m.group(1)
                return True
        return False

    async def ready(self, timeout: float = 60.0) -> str:
        """The service's address once it listens (``ProcessStartError`` if it exits or times out)."""
        await _proc.wait_ready_async(self.proc, self._seen, timeout, self.name, self.err_path)
        return self.target

    async def stop(self, timeout: float = 15.0) -> None:
        await _proc.stop_process_async(self.proc, timeout=timeout, what=self.name)
        self.proc.wait()


class Tansu(TansuBroker):
    """The project's embedded broker, made to die with the bench if the bench is killed."""

    def _spawn(self, port: int) -> subprocess.Popen:
        url = f"tcp://{self.host}:{port}"
        fd, name = tempfile.mkstemp(prefix="bench-tansu-", suffix=".log")
        self._log_path = Path(name)
        try:
            proc = subprocess.Popen(
                [str(tansu_binary()), "broker", "--listener-url", url, "--advertised-listener-url", url,
                 "--storage-engine", "memory://tansu/"],
                stdin=subprocess.DEVNULL, stdout=fd, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        finally:
            os.close(fd)
        _CHILDREN.append(proc)
        return proc

    @property
    def pid(self) -> int:
        assert self._proc is not None
        return self._proc.pid
