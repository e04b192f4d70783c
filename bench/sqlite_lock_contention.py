"""Several processes writing to one SQLite file (room instances sharing the embedded
store): transactions per second and the wait for the write lock, when each writer waits
through SQLite's busy handler (``busy_timeout``: sleeps of 1, 2, 5 … 100 ms, nobody woken
when the lock frees) and when it tries again every 0.2–2 ms (``hand_infra.sqlite_thread.
polling``, what the event store's writer does). Same run, same machine, modes alternated.

Each writer loops: take the lock, insert one 300-byte event, commit, then ``--work-ms``
of other work (an instance's pass is not all store).

    .venv/bin/python bench/sqlite_lock_contention.py [--writers 1 4 8] [--seconds 4] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sqlite3
import tempfile
import time
from pathlib import Path

from hand_infra.sqlite_thread import polling


def _writer(path: str, mode: str, seconds: float, work_s: float, index: int, out: mp.Queue) -> None:
    conn = sqlite3.connect(path, isolation_level=None, timeout=0 if mode == "poll" else 5)
    conn.execute(f"PRAGMA busy_timeout={0 if mode == 'poll' else 5000}")
    done, waits = 0, []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.perf_counter()
        if mode == "poll":
            polling(lambda: conn.execute("BEGIN IMMEDIATE"), 5.0)
        else:
            conn.execute("BEGIN IMMEDIATE")
        waits.append(time.perf_counter() - began)
        conn.execute("INSERT INTO e VALUES (?, ?, ?)", (f"w{index}", done, b"x" * 300))
        conn.execute("COMMIT")
        done += 1
        time.sleep(work_s)
    waits.sort()
    out.put((done, waits[len(waits) // 2], waits[int(len(waits) * 0.99)]))


def run(mode: str, writers: int, seconds: float, work_s: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-sqlite-lock-") as tmp:
        path = str(Path(tmp) / "events.db")
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE e (room TEXT, seq INTEGER, payload BLOB, PRIMARY KEY (room, seq))")
        conn.close()
        out: mp.Queue = mp.Queue()
        procs = [mp.Process(target=_writer, args=(path, mode, seconds, work_s, i, out)) for i in range(writers)]
        for p in procs:
            p.start()
        results = [out.get() for _ in procs]
        for p in procs:
            p.join()
    return {"mode": mode, "writers": writers, "tx_per_s": round(sum(r[0] for r in results) / seconds),
            "lock_wait_p50_ms": round(max(r[1] for r in results) * 1000, 2),
            "lock_wait_p99_ms": round(max(r[2] for r in results) * 1000, 2)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--writers", type=int, nargs="+", default=[1, 4, 8])
    p.add_argument("--seconds", type=float, default=4.0)
    p.add_argument("--work-ms", type=float, default=1.0)
    p.add_argument("--rounds", type=int, default=2)
    a = p.parse_args()
    rows = []
    print("| writers | busy handler: tx/s | lock wait p50 / p99 ms | polling: tx/s | lock wait p50 / p99 ms | tx/s ratio |")
    print("|---:|---:|---|---:|---|---:|")
    for writers in a.writers:
        for _ in range(a.rounds):
            busy = run("busy_timeout", writers, a.seconds, a.work_ms / 1000)
            poll = run("poll", writers, a.seconds, a.work_ms / 1000)
            rows += [busy, poll]
            print(f"| {writers} | {busy['tx_per_s']} | {busy['lock_wait_p50_ms']} / {busy['lock_wait_p99_ms']} "
                  f"| {poll['tx_per_s']} | {poll['lock_wait_p50_ms']} / {poll['lock_wait_p99_ms']} "
                  f"| ×{poll['tx_per_s'] / max(busy['tx_per_s'], 1):.2f} |", flush=True)
    Path("bench/results").mkdir(parents=True, exist_ok=True)
    Path("bench/results/sqlite-lock-contention.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
