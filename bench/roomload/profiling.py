"""Where the room service spends its time under load: py-spy or cProfile, summarized."""

from __future__ import annotations

import asyncio
import collections
import os
import re
import signal
from pathlib import Path
from typing import Any

from .stack import Stack, py_spy

_CATEGORIES = [  # (label, substrings of the leaf frame's file), first match wins
    ("gRPC (Python/Cython layer)", ("grpc/", "grpc_")),
    ("Kafka client (aiokafka)", ("aiokafka/", "kafka/")),
    ("SQL toolkit + driver (SQLAlchemy, aiosqlite, sqlite3)", ("sqlalchemy/", "aiosqlite/", "sqlite3/")),
    ("protobuf ↔ typed values (hand_wire: engine and room codecs)", ("hand_wire/",)),
    ("protobuf runtime", ("google/protobuf",)),
    ("rules engine (hand_engine)", ("hand_engine/",)),
    ("room service code (hand_room, hand_table, hand_infra)", ("hand_room/", "hand_table/", "hand_infra/")),
    ("logging (structlog, logging)", ("structlog/", "logging/")),
    ("JSON", ("json/",)),
    ("asyncio event loop", ("asyncio/", "selectors.py")),
    ("threads / queues (aiosqlite worker)", ("threading.py", "queue.py", "concurrent/")),
]


def _frame(text: str) -> tuple[str, str]:
    """``"fn (path:line)"`` → (fn, path)."""
    m = re.match(r"(.*) \((.*?)(?::\d+)?\)$", text)
    return (m.group(1), m.group(2)) if m else (text, "")


def _short(path: str) -> str:
    for key in ("site-packages/", "services/", "lib/python3.11/"):
        if key in path:
            return path.split(key, 1)[1]
    return path


_LOOP_FILES = ("asyncio/", "selectors.py", "contextvars", "runpy", "<frozen", "hand_room/__main__.py",
               "hand_rules/__main__.py")


def _activity(frames: list[tuple[str, str]]) -> str:
    """What a sample of the event-loop thread is doing: its innermost project function (``hand_*``)
    with everything it calls, else the library whose code the loop is running (no project frame)."""
    for fn, file in reversed(frames):
        if "hand_" in file and not any(k in file for k in _LOOP_FILES):
            return f"{fn} ({_short(file)})"
    for fn, file in frames:
        if not any(k in file for k in _LOOP_FILES):
            return f"[{_short(file).split('/')[0]}] (no project frame)"
    return "[asyncio event loop itself]"


def summarize_raw(path: Path, seconds: float, rate: int, top: int = 15) -> dict[str, Any]:
    """Hot spots of a py-spy ``--format raw`` (collapsed stacks) profile."""
    stacks: list[tuple[str, list[tuple[str, str]], int]] = []
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        parts = stack.split(";")
        thread = "?"
        if parts and parts[0].startswith("thread ("):
            thread = re.sub(r"\d+", "N", parts.pop(0).split(": ", 1)[-1])
        frames = [_frame(f) for f in parts if f and not f.startswith("process ")]
        stacks.append((thread, frames, int(count)))
    total = sum(c for _, _, c in stacks) or 1
    main = sum(c for t, _, c in stacks if t == "MainThread") or 1
    threads: collections.Counter[str] = collections.Counter()
    leaf: collections.Counter[str] = collections.Counter()
    incl: collections.Counter[str] = collections.Counter()
    cats: collections.Counter[str] = collections.Counter()
    where: collections.Counter[str] = collections.Counter()
    for thread, frames, count in stacks:
        threads[thread] += count
        if not frames:
            continue
        fn, file = frames[-1]
        leaf[f"{fn} ({_short(file)})"] += count
        if thread == "MainThread":
            cats[next((label for label, keys in _CATEGORIES if any(k in file for k in keys)), "other")] += count
        for name in {f"{f} ({_short(p)})" for f, p in frames if "hand_" in p and f not in ("<module>", "main")}:
            incl[name] += count
        if thread == "MainThread":
            where[_activity(frames)] += count
    share = lambda c, of=total: round(c / of, 4)  # noqa: E731
    return {
        "samples": total, "seconds": seconds, "rate_hz": rate,
        "busy_cores": round(total / (seconds * rate), 3),
        "main_thread_busy": round(main / (seconds * rate), 3),
        "by_thread": [[k, share(v)] for k, v in threads.most_common(6)],
        "main_thread_by_component": [[k, share(v, main)] for k, v in cats.most_common()],
        "main_thread_by_activity": [[k, share(v, main)] for k, v in where.most_common(top)],
        "top_self": [[k, share(v)] for k, v in leaf.most_common(top)],
        "top_project_inclusive": [[k, share(v)] for k, v in incl.most_common(top)],
    }


def summarize_pstats(path: Path, seconds: float, top: int = 15) -> dict[str, Any]:
    import pstats

    st = pstats.Stats(str(path))
    total = sum(v[2] for v in st.stats.values()) or 1.0  # type: ignore[attr-defined]
    rows = sorted(st.stats.items(), key=lambda kv: kv[1][2], reverse=True)  # type: ignore[attr-defined]
    cum = sorted(((k, v) for k, v in st.stats.items() if "hand_" in k[0]),  # type: ignore[attr-defined]
                 key=lambda kv: kv[1][3], reverse=True)
    name = lambda k: f"{k[2]} ({_short(k[0])})"  # noqa: E731
    return {"profiler": "cProfile (main thread only)", "seconds": seconds, "profiled_s": round(total, 2),
            "top_self": [[name(k), round(v[2] / total, 4)] for k, v in rows[:top]],
            "top_project_inclusive": [[name(k), round(v[3] / total, 4)] for k, v in cum[:top]]}


async def profile(stack: Stack, seconds: float) -> dict[str, Any]:
    spy = py_spy()
    if spy is None:  # cProfile hook in the room service
        assert stack.room is not None
        out = stack.dir / "room.pstats"
        stack.room.proc.send_signal(signal.SIGUSR1)
        await asyncio.sleep(seconds)
        stack.room.proc.send_signal(signal.SIGUSR2)
        for _ in range(100):
            if out.exists():
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)
        return {"room": summarize_pstats(out, seconds)}
    rate, result = 100, {}
    procs = {}
    for name in ("room", "rules"):
        out = stack.dir / f"{name}.spy"
        procs[name] = (out, await asyncio.create_subprocess_exec(
            spy, "record", "--pid", str(stack.pids()[name]), "--duration", str(int(seconds)),
            "--rate", str(rate), "--format", "raw", "--threads", "--output", str(out),
            # --native (grpcio's Cython frames) cannot sample without pausing the process
            *(["--native"] if os.environ.get("HAND_BENCH_SPY_NATIVE") else ["--nonblocking"]),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE))
    for name, (out, proc) in procs.items():
        _, err = await proc.communicate()
        if proc.returncode != 0 or not out.exists():
            result[name] = {"error": err.decode(errors="replace")[-500:]}
        else:
            if keep := os.environ.get("HAND_BENCH_SPY_KEEP"):  # the raw stacks, for a closer look
                Path(keep).mkdir(parents=True, exist_ok=True)
                (Path(keep) / out.name).write_bytes(out.read_bytes())
            result[name] = {"profiler": "py-spy (sampling, all non-idle threads)",
                            **summarize_raw(out, seconds, rate)}
    return result
