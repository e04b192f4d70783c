"""The bench's client load as K separate processes (``python -m roomload.loadproc``), each
with its share of the rooms: started, told when to go, their results collected."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path

from . import ROOT


class Clients:
    """K load processes, process ``i`` playing rooms ``i, i + K, i + 2K, …``; ``cfg`` goes to
    every process (loadproc.py lists its keys)."""

    def __init__(self, k: int, rooms: int, seeds: list[str], workdir: Path, **cfg) -> None:
        self.cfgs = [{**cfg, "seeds": seeds, "rooms": list(range(i, rooms, k)), "seed": i,
                      "out": str(workdir / f"client{i}.json")} for i in range(k)]
        self.workdir = workdir
        self.procs: list[asyncio.subprocess.Process] = []

    async def start(self) -> list[int]:
        """Start them; the rooms each made ready (both seats watching)."""
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "bench"), str(ROOT / "services"),
                                                            str(ROOT / "gen")])}
        for i, cfg in enumerate(self.cfgs):
            path = self.workdir / f"client{i}.cfg.json"
            path.write_text(json.dumps(cfg))
            with open(self.workdir / f"client{i}.log", "wb") as err:  # the child keeps its own copy
                self.procs.append(await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "roomload.loadproc", str(path), env=env, stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE, stderr=err))
        ready = []
        for p in self.procs:
            line = (await asyncio.wait_for(p.stdout.readline(), 600)).decode()
            if not line.startswith("ready"):
                raise RuntimeError(f"client process failed: {line!r}; see {self.workdir}/client*.log")
            ready.append(int(line.split()[1]))
        return ready

    def go(self, epoch: float) -> None:
        """Every process plays from ``epoch`` (wall clock)."""
        for p in self.procs:
            p.stdin.write(f"go {epoch}\n".encode())

    async def results(self, timeout: float) -> list[dict]:
        out = []
        for p, cfg in zip(self.procs, self.cfgs):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(p.stdout.readline(), timeout)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(p.wait(), 10)
            if p.returncode is None:
                p.kill()
                await p.wait()
            path = Path(cfg["out"])
            out.append(json.loads(path.read_text()) if path.exists() else {"failed": True})
        return out

    def kill(self) -> None:
        for p in self.procs:
            if p.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    p.kill()
