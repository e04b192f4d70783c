"""Scoring ledger: events ingested per second (SQLite and PostgreSQL) and replay reconstruction.

Workload: whole matches (4 seats, random legal play, ``hand`` preset) played
in-process through the room domain (``decide``), so the events are exactly
those the room service publishes (``hand.v1.RoomEvent`` bytes, private form);
the rooms' events are interleaved as one partition of ``hand.room-events``
would carry them.

* ingest: the ledger's consumer path without the broker — per-room ordering
  (``Hold``), then one transaction per batch of ``--batch`` events that
  writes each event's archive (tracking) row and every projection (sheets,
  results, statistics, ratings) — against a **baseline measured in the same
  run on the same database**: plain inserts of the same rows into a bare
  table, same batch size, one transaction per batch. "× bare" = ledger
  events/s ÷ bare rows/s of the same pass (median over passes; the rates
  are medians too). Passes alternate (bare, ledger, bare, ledger, …), each
  on a fresh database, so load bursts hit both alike.
* replay: rebuilding every step of a 5-round match from its archive
  (``hand_ledger.replay.fold``, which re-applies every move through the
  engine) and the full replay check (``check``: fold plus comparing every
  recomputed event), against the baseline of re-applying the same moves
  with ``hand_engine.apply`` alone (the engine work the match needed when it
  was played). "× apply" = time ÷ that baseline, CPU times, interleaved.

Markdown on stdout, progress on stderr, JSON in bench/results/ledger.json
(``--quick``: ledger-quick.json). PostgreSQL is a throwaway server
(``hand_infra.postgres.TempPostgres``), as in the tests.

    .venv/bin/python bench/bench_ledger.py [--quick] [--matches N] [--passes N] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as _dt
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "services", ROOT / "gen"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import structlog  # noqa: E402
from sqlalchemy import BigInteger, Column, LargeBinary, MetaData, String, Table, insert  # noqa: E402

from hand_engine import apply  # noqa: E402
from hand_infra._schema import SQLITE_BEGIN, make_engine  # noqa: E402
from hand_infra.postgres import TempPostgres, create_database, drop_database  # noqa: E402
from hand_ledger.consumer import LedgerConsumer  # noqa: E402
from hand_wire import Delivered, decode  # noqa: E402
from hand_ledger.replay import check, fold  # noqa: E402
from hand_ledger.store import LedgerStore  # noqa: E402
from hand_table import MoveMade, Recorded, evolve  # noqa: E402
from hand_sim.matches import play_match  # noqa: E402

RESULTS = ROOT / "bench" / "results"
raw_meta = MetaData()
raw = Table("bench_raw", raw_meta, Column("room_id", String(64), primary_key=True),
            Column("seq", BigInteger, primary_key=True, autoincrement=False),
            Column("kind", String(64), nullable=False), Column("payload", LargeBinary, nullable=False))


def progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ workload
async def workload(matches: int, rounds: int) -> list[Delivered]:
    """``matches`` random matches, their events interleaved room by room in turn."""
    runs = [await play_match("hand", 4, rounds=rounds, seed=100 + i, room_id=f"bench-{i}")
            for i in range(matches)]
    queues = [list(r.events) for r in runs]
    out: list[Delivered] = []
    while any(queues):
        for q in queues:
            out.extend(q[:7])
            del q[:7]
    return out


# ------------------------------------------------------------------ ingest
async def bare_pass(url: str, events: list[Delivered], batch: int) -> float:
    """Seconds to insert ``events`` as plain rows, one transaction per batch."""
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(raw_meta.create_all)
        t0 = time.perf_counter()
        for i in range(0, len(events), batch):
            async with engine.connect() as conn:
                conn = await conn.execution_options(**{SQLITE_BEGIN: "IMMEDIATE"})
                async with conn.begin():
                    await conn.execute(insert(raw), [
                        {"room_id": e.room_id, "seq": e.seq, "kind": e.kind, "payload": e.payload}
                        for e in events[i:i + batch]])
        return time.perf_counter() - t0
    finally:
        await engine.dispose()


async def ledger_pass(url: str, events: list[Delivered], batch: int) -> float:
    """Seconds for the ledger to order, record and project ``events``."""
    async with LedgerStore(url) as store:
        consumer = LedgerConsumer(store, None)
        t0 = time.perf_counter()
        for i in range(0, len(events), batch):
            await consumer.record(events[i:i + batch])
        elapsed = time.perf_counter() - t0
        assert consumer.recorded == len(events) and store.failed == 0
    return elapsed


async def bench_ingest(backend: str, new_url, events: list[Delivered], batch: int, passes: int
                       ) -> dict[str, Any]:
    bare, ledger = [], []
    for k in range(passes):
        bare.append(await bare_pass(await new_url(), events, batch))
        ledger.append(await ledger_pass(await new_url(), events, batch))
        progress(f"  ingest {backend}: pass {k + 1}/{passes}: bare {len(events) / bare[-1]:,.0f}/s, "
                 f"ledger {len(events) / ledger[-1]:,.0f}/s")
    b, led = statistics.median(bare), statistics.median(ledger)
    return {"backend": backend, "events": len(events), "batch": batch, "passes": passes,
            "bare_rows_per_s": len(events) / b, "ledger_events_per_s": len(events) / led,
            "ledger_x_bare": statistics.median(x / y for x, y in zip(bare, ledger)),
            "ledger_us_per_event": led / len(events) * 1e6}


# ------------------------------------------------------------------ replay
def apply_chain(archived: list[Recorded]) -> int:
    """The baseline: the match's moves re-applied with ``apply`` alone (deals from the record)."""
    room = None
    moves = 0
    for rec in archived:
        ev = rec.event
        if isinstance(ev, MoveMade):
            state, _ = apply(room.round, ev.seat, ev.action)
            room = evolve(room, rec, after=state)
            moves += 1
        else:
            room = evolve(room, rec)
    return moves


def bench_replay(archived: list[Recorded], reps: int) -> dict[str, Any]:
    cpu = {"apply": [], "fold": [], "check": []}
    wall = {"apply": [], "fold": [], "check": []}
    jobs = {"apply": lambda: apply_chain(archived), "fold": lambda: fold(archived),
            "check": lambda: check(archived)}
    for _ in range(reps):
        for name, job in jobs.items():
            c0, w0 = time.process_time(), time.perf_counter()
            out = job()
            cpu[name].append(time.process_time() - c0)
            wall[name].append(time.perf_counter() - w0)
            if name == "check":
                assert out.ok, out.mismatch
    med = {k: statistics.median(v) for k, v in cpu.items()}
    return {"events": len(archived), "moves": sum(1 for e in archived if e.kind == "move_made"),
            "rounds": sum(1 for e in archived if e.kind == "round_scored"), "reps": reps,
            "apply_cpu_ms": med["apply"] * 1e3, "fold_cpu_ms": med["fold"] * 1e3,
            "check_cpu_ms": med["check"] * 1e3,
            "fold_wall_ms": statistics.median(wall["fold"]) * 1e3,
            "fold_x_apply": med["fold"] / med["apply"], "check_x_apply": med["check"] / med["apply"],
            "fold_us_per_event": med["fold"] / len(archived) * 1e6}


# ------------------------------------------------------------------ run and report
async def run(matches: int, rounds: int, passes: int, batch: int, replay_reps: int,
              replay_rounds: int) -> dict[str, Any]:
    started = time.perf_counter()
    progress(f"bench_ledger: playing {matches} matches of {rounds} rounds")
    events = await workload(matches, rounds)
    results: dict[str, Any] = {"ingest": []}
    with tempfile.TemporaryDirectory() as tmp:
        counter = iter(range(10**6))

        async def sqlite_url() -> str:
            return f"sqlite:///{tmp}/ledger-{next(counter)}.db"

        results["ingest"].append(await bench_ingest("sqlite", sqlite_url, events, batch, passes))
        with TempPostgres() as pg:
            made: list[str] = []

            async def pg_url() -> str:
                made.append(f"bench_{next(counter)}")
                return await create_database(pg.url, made[-1])

            try:
                results["ingest"].append(await bench_ingest("postgresql", pg_url, events, batch, passes))
            finally:
                for name in made:
                    await drop_database(pg.url, name)
    progress(f"bench_ledger: replay of a {replay_rounds}-round match")
    match = await play_match("hand", 4, rounds=replay_rounds, seed=7, room_id="replay")
    archived = [decode(e.payload) for e in match.events]  # as the archive gives them back
    results["replay"] = bench_replay(archived, replay_reps)
    results["meta"] = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "config": {"matches": matches, "rounds": rounds, "passes": passes, "batch": batch,
                   "replay_reps": replay_reps, "replay_rounds": replay_rounds},
        "seconds": time.perf_counter() - started,
    }
    return results


def markdown(res: dict[str, Any]) -> str:
    cfg, rp = res["meta"]["config"], res["replay"]
    out = [
        f"Run: {cfg['matches']} matches × {cfg['rounds']} rounds (4 seats, random legal play), "
        f"{res['ingest'][0]['events']:,} events interleaved across rooms, batches of {cfg['batch']}, "
        f"median of {cfg['passes']} alternating passes per backend; {res['meta']['seconds']:.0f} s.",
        "",
        "#### Ingest (ordering + archive/tracking rows + projections, one transaction per batch)",
        "",
        "| store | bare inserts/s (baseline) | ledger events/s | × bare | µs/event |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in res["ingest"]:
        out.append(f"| {r['backend']} | {r['bare_rows_per_s']:,.0f} | {r['ledger_events_per_s']:,.0f} | "
                   f"{r['ledger_x_bare']:.2f} | {r['ledger_us_per_event']:.0f} |")
    out += [
        "",
        f"#### Replay of a {cfg['replay_rounds']}-round match ({rp['events']:,} events, {rp['moves']:,} moves; "
        f"median CPU of {rp['reps']} interleaved repetitions)",
        "",
        "| what | CPU ms | × apply |",
        "|---|---:|---:|",
        f"| baseline: the moves re-applied with `apply` | {rp['apply_cpu_ms']:.0f} | 1.00 |",
        f"| rebuild every step (`fold`) | {rp['fold_cpu_ms']:.0f} | {rp['fold_x_apply']:.2f} |",
        f"| replay check (`check`: fold + compare every event) | {rp['check_cpu_ms']:.0f} | "
        f"{rp['check_x_apply']:.2f} |",
        "",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="tiny run (CI smoke)")
    p.add_argument("--matches", type=int)
    p.add_argument("--passes", type=int)
    p.add_argument("--json", type=Path)
    a = p.parse_args(argv)
    if a.quick:
        cfg = dict(matches=a.matches or 1, rounds=1, passes=a.passes or 1, batch=200, replay_reps=1,
                   replay_rounds=1)
    else:
        cfg = dict(matches=a.matches or 8, rounds=3, passes=a.passes or 3, batch=500, replay_reps=5,
                   replay_rounds=5)
    res = asyncio.run(run(**cfg))
    path = a.json or RESULTS / ("ledger-quick.json" if a.quick else "ledger.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res, indent=2))
    print(markdown(res))
    return res


if __name__ == "__main__":
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # errors only
    main()
