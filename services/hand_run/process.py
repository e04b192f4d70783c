"""``python -m hand_run`` as a child process on free ports, for end-to-end tests and benches.

``LocalStack(folder)`` starts the whole stack (every port 0, SQLite files and the development
signing key in ``folder``), waits
for the launcher's "listening on" lines and exposes the addresses it printed; ``stop()`` sends
SIGINT as Ctrl-C would. ``RoomInstance`` adds one more room-service instance beside it (tests of
several instances: a room's calls at its owner).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["LocalStack", "RoomInstance", "interrupt"]

ROOT = Path(__file__).resolve().parents[2]


def interrupt(proc: subprocess.Popen | None, timeout_s: float = 20) -> int | None:
    """Stop a child as Ctrl-C would (SIGINT), killing it if it is not gone in ``timeout_s``."""
    if proc is None or proc.poll() is not None:
        return proc.returncode if proc else None
    proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


class LocalStack:
    """The launcher as a subprocess; ``targets`` maps component name → ``host:port``, ``url`` the web app."""

    def __init__(self, folder: Path, env: dict[str, str] | None = None) -> None:
        self.folder = folder
        self.log = folder / "run.out"
        # nothing shared with `make run` or another stack: every port free, every file in ``folder``
        self.env = {**os.environ, "HAND_RULES_PORT": "0", "HAND_ROOM_PORT": "0", "HAND_LEDGER_PORT": "0",
                    "HAND_BOT_PORT": "0", "HAND_WEB_PORT": "0", "HAND_AUTH_PORT": "0", "HAND_BROKER_PORT": "0",
                    "HAND_LOG_FORMAT": "json", "HAND_LOG_LEVEL": "warning",
                    "HAND_EVENTSTORE_URL": f"sqlite:///{folder / 'events.db'}",
                    "HAND_LEDGER_URL": f"sqlite:///{folder / 'ledger.db'}",
                    "HAND_AUTH_URL": f"sqlite:///{folder / 'auth.db'}",
                    "HAND_AUTH_DEV_KEY_FILE": str(folder / "auth-dev.key"), **(env or {})}
        self.targets: dict[str, str] = {}
        self.url = ""
        self.proc: subprocess.Popen | None = None

    def start(self, timeout_s: float = 90) -> LocalStack:
        with self.log.open("w") as stdout:
            self.proc = subprocess.Popen([sys.executable, "-m", "hand_run"], env=self.env, cwd=ROOT,
                                         stdout=stdout, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while not self.url and time.monotonic() < deadline:
            for line in self.log.read_text().splitlines():
                name, _, rest = line.partition(": ")
                if rest.startswith("listening on "):
                    self.targets[name] = rest.removeprefix("listening on ")
                if rest.startswith("open ") and rest.endswith(" in a browser"):
                    self.url = rest.removeprefix("open ").removesuffix(" in a browser")
            if self.proc.poll() is not None:
                raise RuntimeError("hand_run exited: " + self.log.read_text()[-4000:])
            time.sleep(0.1)
        if not self.url:
            self.stop()
            raise RuntimeError("hand_run printed no 'web: open' line: " + self.log.read_text()[-4000:])
        return self

    def stop(self) -> int | None:
        return interrupt(self.proc)

    def __enter__(self) -> LocalStack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class RoomInstance:
    """One more room-service instance (``python -m hand_room``) beside a stack, on its broker and
    store: ``env`` names them (``KAFKA_BOOTSTRAP_SERVERS``, ``HAND_EVENTSTORE_URL``, the dev key…).
    ``start()`` waits for its "listening on" line (and for its web server's, with
    ``HAND_WEB_ENABLED=on``) and returns its gRPC address; ``stop()`` sends SIGINT."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env, self.log = env, log
        self.proc: subprocess.Popen | None = None

    def start(self, timeout_s: float = 60) -> str:
        web = self.env.get("HAND_WEB_ENABLED") == "on"
        with self.log.open("w") as stdout:
            self.proc = subprocess.Popen([sys.executable, "-m", "hand_room"], env=self.env, cwd=ROOT,
                                         stdout=stdout, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("hand_room exited: " + self.log.read_text()[-4000:])
            text = self.log.read_text()
            address = next((line.partition("room service listening on ")[2].strip()
                            for line in text.splitlines() if "room service listening on " in line), "")
            if address and (not web or '"services"' in text):  # hand_web's "listening" record
                return address
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"hand_room did not start in {timeout_s} s: " + self.log.read_text()[-4000:])

    def stop(self) -> int | None:
        return interrupt(self.proc)
