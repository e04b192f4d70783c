"""A throwaway PostgreSQL server for tests and development.

Runs the machine's ``initdb`` and ``postgres`` (found on ``PATH`` or under
``/usr/lib/postgresql/*/bin``) in a temporary directory: trust auth for user
``hand``, 127.0.0.1 on a free port, the unix socket in the temp dir, and no
fsync (it is thrown away; commits still reach the OS before they return, so a
killed server loses none). PostgreSQL refuses to run as root, so as root the
server runs as the ``postgres`` user if it exists, else ``nobody``, and the
temp dir is given to that user.

    with TempPostgres() as pg:
        url = pg.url   # postgresql+asyncpg://hand@127.0.0.1:PORT/postgres

``kill()`` crashes it (SIGKILL) and ``restart()`` brings it back on the same port
and data (chaos tests).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import weakref
from pathlib import Path

import structlog

from hand_infra import _proc

log = structlog.get_logger("hand_infra.postgres")

USER = "hand"


def pg_binary(name: str) -> str:
    """Full path of a PostgreSQL server program (``initdb``, ``postgres``)."""
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise FileNotFoundError(f"PostgreSQL program {name!r} not found")
    return found


def _run_as() -> pwd.struct_passwd | None:
    """The unprivileged account to run as when we are root, else None."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root and no 'postgres' or 'nobody' user to run PostgreSQL")


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = Path(stat).read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(Path(stat).parent.name))
    return out


def _cleanup(proc: subprocess.Popen | None, tmp: Path) -> None:
    if proc is not None and proc.poll() is None:
        _proc.stop_process(proc, signal.SIGQUIT, timeout=5.0, what="postgres")
    shutil.rmtree(tmp, ignore_errors=True)


class TempPostgres:
    """One PostgreSQL server in a temp dir; removed with its data on stop."""

    def __init__(self, start_timeout: float = 30.0, stop_timeout: float = 10.0) -> None:
        self.start_timeout, self.stop_timeout = start_timeout, stop_timeout
        self.port: int | None = None
        self._frozen: list[int] = []  # pids stopped by freeze()
        self._tmp: Path | None = None
        self._proc: subprocess.Popen | None = None
        self._finalizer: weakref.finalize | None = None
        self._ids: dict = {}

    @property
    def url(self) -> str:
        """SQLAlchemy URL of the ``postgres`` database (asyncpg driver)."""
        return self.url_for("postgres")

    def url_for(self, database: str) -> str:
        """SQLAlchemy URL of ``database`` on this server."""
        if self.port is None:
            raise RuntimeError("postgres not started")
        return f"postgresql+asyncpg://{USER}@127.0.0.1:{self.port}/{database}"

    def _ready(self) -> bool:
        # pg_ctl's own test: line 8 of postmaster.pid says "ready", then TCP.
        try:
            lines = (self._tmp / "data" / "postmaster.pid").read_text().splitlines()
        except (FileNotFoundError, PermissionError):
            return False
        return (len(lines) >= 8 and lines[7].strip() == "ready"
                and _proc.accepts_connections("127.0.0.1", self.port))

    def start(self) -> None:
        """initdb, start the server, wait until it accepts connections."""
        user = _run_as()
        self._ids = {} if user is None else {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        base = tempfile.gettempdir()
        if user is not None and not os.stat(base).st_mode & 0o001:
            base = "/tmp"  # the server's user must be able to enter the parent
        self._tmp = Path(tempfile.mkdtemp(prefix="hand-pg-", dir=base))
        if user is not None:
            os.chown(self._tmp, user.pw_uid, user.pw_gid)
        self._finalizer = weakref.finalize(self, _cleanup, None, self._tmp)
        initdb = subprocess.run(
            [pg_binary("initdb"), "-D", str(self._tmp / "data"), "-U", USER, "--auth=trust", "-E", "UTF8",
             "--locale=C", "--no-sync", "--no-instructions"],
            cwd=self._tmp, env=self._env(), capture_output=True, text=True, **self._ids)
        if initdb.returncode != 0:
            raise _proc.ProcessStartError(f"initdb failed: {initdb.stderr[-2000:]}")
        for _ in range(3):  # a free port can be taken before we bind it
            self.port = _proc.free_port()
            try:
                took = self._launch()
            except _proc.ProcessStartError:
                if self._proc.poll() is None or "could not bind" not in _proc.log_tail(self._log):
                    raise
                continue
            log.info("postgres_started", port=self.port, pid=self._proc.pid,
                     run_as=user.pw_name if user else None, ready_ms=round(took * 1000, 1))
            return
        raise _proc.ProcessStartError("postgres: no free port after 3 attempts")

    @property
    def _log(self) -> Path:
        return self._tmp / "postgres.log"

    @staticmethod
    def _env() -> dict[str, str]:
        return {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}

    def _launch(self) -> float:
        """Start ``postgres`` on ``self.port`` and the data dir; wait until ready."""
        with open(self._log, "ab") as out:
            self._proc = subprocess.Popen(
                [pg_binary("postgres"), "-D", str(self._tmp / "data"), "-p", str(self.port),
                 "-k", str(self._tmp), "-c", "listen_addresses=127.0.0.1",
                 "-c", "fsync=off",  # a killed server keeps every commit (the OS has it)
                 "-c", "full_page_writes=off", "-c", "max_connections=200"],
                cwd=self._tmp, env=self._env(), stdin=subprocess.DEVNULL, stdout=out,
                stderr=subprocess.STDOUT, **self._ids)
        if self._finalizer is not None:
            self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _cleanup, self._proc, self._tmp)
        return _proc.wait_ready(self._proc, self._ready, self.start_timeout, "postgres", self._log)

    def kill(self) -> None:
        """Crash the server (SIGKILL of the postmaster; its backends exit on their own):
        the data dir and port stay for :meth:`restart`. For chaos tests."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
            log.info("postgres_killed", port=self.port)

    def freeze(self) -> None:
        """Stop the server and its backends (SIGSTOP), connections open: a database that
        hangs instead of failing (a frozen VM, a cut-off network). For chaos tests."""
        assert self._proc is not None and self._proc.poll() is None
        self._frozen = [self._proc.pid, *_children(self._proc.pid)]
        for pid in self._frozen:
            os.kill(pid, signal.SIGSTOP)
        log.info("postgres_frozen", port=self.port, processes=len(self._frozen))

    def thaw(self) -> None:
        """Let a frozen server run again (SIGCONT)."""
        for pid in self._frozen:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self._frozen = []
        log.info("postgres_thawed", port=self.port)

    def restart(self, timeout: float = 30.0) -> float:
        """Start the server again on the same port and data dir (crash recovery runs);
        return the seconds until it accepts connections. Retries while the killed
        server's backends still hold its shared memory or its port."""
        began = time.monotonic()
        while True:
            try:
                self._launch()
                break
            except _proc.ProcessStartError:
                if time.monotonic() - began > timeout:
                    raise
                time.sleep(0.2)
        took = time.monotonic() - began
        log.info("postgres_restarted", port=self.port, ready_ms=round(took * 1000, 1))
        return took

    def stop(self) -> None:
        """Fast shutdown (SIGINT; SIGKILL after ``stop_timeout``), delete the files."""
        if self._frozen:
            self.thaw()
        if self._proc is not None:
            took = _proc.stop_process(self._proc, signal.SIGINT, self.stop_timeout, "postgres")
            log.info("postgres_stopped", port=self.port, stop_ms=round(took * 1000, 1))
            self._proc = None
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None

    def __enter__(self) -> TempPostgres:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


async def _execute(server_url: str, sql: str) -> None:
    import asyncpg
    from sqlalchemy.engine import make_url

    url = make_url(server_url)
    conn = await asyncpg.connect(host=url.host, port=url.port, user=url.username,
                                 password=url.password, database=url.database)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def create_database(server_url: str, name: str) -> str:
    """Create database ``name`` on the server of ``server_url``; return its URL."""
    from sqlalchemy.engine import make_url

    await _execute(server_url, f'CREATE DATABASE "{name}"')
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


async def drop_database(server_url: str, name: str) -> None:
    """Drop database ``name`` (closing its sessions) on ``server_url``'s server."""
    await _execute(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
