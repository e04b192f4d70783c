"""A service started directly (``python -m hand_room``, no launcher setting anything) runs
grpc core the way the image does: its servers' sockets on the iomgr path (decision 0044).

Observed, not assumed: with ``GRPC_TRACE=tcp`` grpc core logs every read and write of an
iomgr socket from ``tcp_posix.cc``, and logs none from there when the EventEngine's
endpoints carry the bytes — so a child that makes one call to its own server shows which
path its server took.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: the child: optionally import a service's entry module (what ``python -m`` runs first),
#: then serve one call on a fresh aio server and make it
_CHILD = """
import asyncio, importlib, sys
if sys.argv[1] != "-":
    importlib.import_module(sys.argv[1])
from grpc import aio

async def main():
    server = aio.server()
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            await channel.unary_unary("/probe.Probe/Call")(b"", timeout=5)
        except aio.AioRpcError:
            pass  # UNIMPLEMENTED: the bytes went both ways, which is all that is asked
    await server.stop(None)

asyncio.run(main())
"""

ENTRY_MODULES = ["hand_room.__main__", "hand_rules.__main__", "hand_ledger.__main__",
                 "hand_auth.__main__", "hand_bot.__main__", "hand_run.__main__"]


def _server_io_on_iomgr(entry: str, extra_env: dict[str, str] | None = None) -> dict[str, bool]:
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT / "services"), str(ROOT / "gen")]),
               GRPC_VERBOSITY="debug", GRPC_TRACE="tcp", **(extra_env or {}))
    done = subprocess.run([sys.executable, "-c", _CHILD, entry], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return {"iomgr": "tcp_posix.cc" in done.stderr}


def test_without_the_entry_module_grpc_runs_its_default_path() -> None:
    """The control: nothing set, grpc's EventEngine endpoints (no tcp_posix lines)."""
    assert _server_io_on_iomgr("-") == {"iomgr": False}


@pytest.mark.parametrize("entry", ENTRY_MODULES)
def test_a_service_started_directly_takes_the_services_grpc_experiments(entry: str) -> None:
    assert _server_io_on_iomgr(entry) == {"iomgr": True}


def test_an_operators_own_value_wins() -> None:
    """``GRPC_EXPERIMENTS=`` (empty) set by the operator: grpc's defaults, as documented."""
    assert _server_io_on_iomgr("hand_room.__main__", {"GRPC_EXPERIMENTS": ""}) == {"iomgr": False}


def test_too_late_to_set_once_grpc_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a process where grpc is already imported (this one) nothing is set: grpc would
    not read it, and the caller is told."""
    import grpc  # noqa: F401

    from hand_common.grpc_core import use_services_io

    monkeypatch.delenv("GRPC_EXPERIMENTS", raising=False)
    assert use_services_io() is False
    assert "GRPC_EXPERIMENTS" not in os.environ
