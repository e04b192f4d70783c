"""Bots: decision latency per level and a strength table (Hand and Saudi modes).

Every round seats the four levels — strong, middle, beginner, random — at a
four-player table, one seat each, rotated with the seed so each level plays
every seat equally often (and, with it, every dealer position). So every
round is a round of every pairing. Each bot request is exactly what the
room service sends (the mover's ``perspective``); every action is applied
on the true position and a refused one aborts the benchmark
(``hand_bot.arena``).

* strength, per level: win rate (the seat that went out), mean round score
  (penalty points: lower is better), opening rate, Hand-finish rate (rounds
  the level won with a Hand), each with a 95 % confidence interval (Wilson
  for rates, normal for means); and per pairing the share of rounds in which
  the row level scored less than the column level (ties count half);
* latency, per level: p50/p99 of one decision (a request: the draw decision,
  or the rest of a turn) and of a whole turn (its requests together), in
  CPU time of the deciding thread and in wall time. Goal: strong p99 per
  turn ≤ 100 ms. Rounds run in worker processes (``--workers``); on a shared
  machine wall time includes waits for a CPU, so read the CPU columns.

Markdown goes to stdout, progress to stderr, JSON to bench/results/bots.json
(``--quick``: bots-quick.json).

    .venv/bin/python bench/bench_bots.py [--quick] [--rounds N] [--workers W] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from multiprocessing import get_context
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "services", ROOT):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from hand_bot.arena import play_round  # noqa: E402
from hand_engine import resolve  # noqa: E402

LEVELS = ("strong", "middle", "beginner", "random")
MODES = ("hand", "saudi")
GOAL_MS = 100.0
TIME_LIMIT_S = 14_400  # bench/run_all.py: a full run plays 4,000 rounds of bots
RESULTS = ROOT / "bench" / "results"
Z = 1.96


def seat_levels(seed: int) -> list[str]:
    return [LEVELS[(i + seed) % len(LEVELS)] for i in range(len(LEVELS))]


def one_round(args: tuple[str, int]) -> dict[str, Any]:
    mode, seed = args
    levels = seat_levels(seed)
    out = play_round(resolve(mode), levels, seed, timed=True)
    r = out.result
    turns: dict[tuple[str, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for level, turn, cpu, wall in out.timings:
        turns[(level, turn)][0] += cpu
        turns[(level, turn)][1] += wall
    return {
        "levels": levels, "finish": r.finish, "winner": r.winner,
        "scores": [s.score for s in r.seats], "opened": [s.opened for s in r.seats],
        "decisions": [(lv, cpu, wall) for lv, _, cpu, wall in out.timings],
        "turns": [(lv, cpu, wall) for (lv, _), (cpu, wall) in turns.items()],
    }


# ------------------------------------------------------------------ statistics
def wilson(k: float, n: int) -> tuple[float, float, float]:
    if n == 0:
        return 0.0, 0.0, 0.0
    p = k / n
    d = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / d
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d
    return p, max(0.0, centre - half), min(1.0, centre + half)


def mean_ci(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    return m, (Z * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0)


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else 0.0


def strength(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    per: dict[str, dict[str, list]] = {lv: defaultdict(list) for lv in LEVELS}
    beats: dict[tuple[str, str], float] = defaultdict(float)
    for r in rounds:
        by_level = {lv: i for i, lv in enumerate(r["levels"])}
        for lv, i in by_level.items():
            won = r["winner"] == i
            per[lv]["score"].append(r["scores"][i])
            per[lv]["won"].append(won)
            per[lv]["opened"].append(r["opened"][i])
            per[lv]["hand"].append(won and r["finish"] == "hand")
        for a, i in by_level.items():
            for b, k in by_level.items():
                if a != b:
                    sa, sb = r["scores"][i], r["scores"][k]
                    beats[(a, b)] += 1.0 if sa < sb else 0.5 if sa == sb else 0.0
    n = len(rounds)
    table = {}
    for lv in LEVELS:
        m, half = mean_ci(per[lv]["score"])
        table[lv] = {"rounds": n, "mean_score": m, "score_ci": half,
                     **{f"{key}_rate": wilson(sum(per[lv][key]), n) for key in ("won", "opened", "hand")}}
    pairs = {f"{a}>{b}": wilson(beats[(a, b)], n) for a in LEVELS for b in LEVELS if a != b}
    finishes = defaultdict(int)
    for r in rounds:
        finishes[r["finish"]] += 1
    return {"levels": table, "pairs": pairs, "finishes": dict(finishes)}


def latency(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    out = {}
    for lv in LEVELS:
        dec = [(c, w) for r in rounds for (x, c, w) in r["decisions"] if x == lv]
        trn = [(c, w) for r in rounds for (x, c, w) in r["turns"] if x == lv]
        out[lv] = {
            "decisions": len(dec), "turns": len(trn),
            **{f"decision_{k}_p{p}_ms": 1000 * pct([d[j] for d in dec], p)
               for j, k in ((0, "cpu"), (1, "wall")) for p in (50, 99)},
            **{f"turn_{k}_p{p}_ms": 1000 * pct([t[j] for t in trn], p)
               for j, k in ((0, "cpu"), (1, "wall")) for p in (50, 99)},
            "turn_cpu_max_ms": 1000 * max((t[0] for t in trn), default=0.0),
        }
    return out


# ------------------------------------------------------------------ report
def fmt_rate(r: tuple[float, float, float]) -> str:
    return f"{100 * r[0]:.1f} % ({100 * r[1]:.1f}–{100 * r[2]:.1f})"


def markdown(res: dict[str, Any]) -> str:
    meta = res["meta"]
    lines = [f"Run: {meta['label']} — {meta['rounds']:,} rounds per mode, 4 players (one seat per level, "
             f"rotated), {meta['workers']} worker processes; {meta['seconds']:.0f} s.", ""]
    for mode in meta["modes"]:
        s = res["strength"][mode]
        fin = ", ".join(f"{k} {v}" for k, v in sorted(s["finishes"].items()))
        lines += [f"#### Strength — {mode} mode ({meta['rounds']:,} rounds; finishes: {fin})", "",
                  "| level | win rate | mean round score (lower is better) | opening rate | Hand-finish rate |",
                  "|---|---:|---:|---:|---:|"]
        for lv in LEVELS:
            t = s["levels"][lv]
            lines.append(f"| **{lv}** | {fmt_rate(t['won_rate'])} | {t['mean_score']:.1f} ± {t['score_ci']:.1f} | "
                         f"{fmt_rate(t['opened_rate'])} | {fmt_rate(t['hand_rate'])} |")
        lines += ["", f"Pairings ({mode}): share of rounds in which the row level scored less than the "
                      "column level (ties count half), 95 % CI.", "",
                  "| row beats column | " + " | ".join(LEVELS) + " |", "|---|" + "---:|" * len(LEVELS)]
        for a in LEVELS:
            cells = ["–" if a == b else fmt_rate(s["pairs"][f"{a}>{b}"]) for b in LEVELS]
            lines.append(f"| **{a}** | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [f"#### Latency (all modes; goal: strong p99 per turn ≤ {GOAL_MS:.0f} ms)", "",
              "A decision answers one request (the draw decision, or the rest of the turn); a turn is its "
              "requests together. CPU = the deciding thread's CPU time; wall includes waits for a CPU.", "",
              "| level | decisions | decision CPU p50 / p99 ms | turn CPU p50 / p99 / max ms | "
              "turn wall p50 / p99 ms | meets goal (CPU p99) |", "|---|---:|---:|---:|---:|---|"]
    for lv in LEVELS:
        t = res["latency"][lv]
        ok = "yes" if t["turn_cpu_p99_ms"] <= GOAL_MS else "no"
        lines.append(f"| **{lv}** | {t['decisions']:,} | {t['decision_cpu_p50_ms']:.1f} / "
                     f"{t['decision_cpu_p99_ms']:.1f} | {t['turn_cpu_p50_ms']:.1f} / {t['turn_cpu_p99_ms']:.1f} / "
                     f"{t['turn_cpu_max_ms']:.0f} | {t['turn_wall_p50_ms']:.1f} / {t['turn_wall_p99_ms']:.1f} | "
                     f"{ok if lv == 'strong' else ''} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a few rounds (CI smoke)")
    p.add_argument("--rounds", type=int, help="rounds per mode (default 2000; --quick 6)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2; 0: in-process)")
    p.add_argument("--modes", nargs="+", default=list(MODES))
    p.add_argument("--json", type=Path)
    a = p.parse_args(argv)
    rounds = a.rounds or (6 if a.quick else 2000)
    started = time.perf_counter()
    res: dict[str, Any] = {"strength": {}, "latency": {}}
    every: list[dict[str, Any]] = []
    pool = get_context("fork").Pool(a.workers) if a.workers > 0 else None
    mapper = pool.imap if pool is not None else map
    try:
        for mode in a.modes:
            done: list[dict[str, Any]] = []
            for r in mapper(one_round, [(mode, seed) for seed in range(rounds)]):
                done.append(r)
                if len(done) % 100 == 0:
                    print(f"{mode}: {len(done)}/{rounds} rounds", file=sys.stderr, flush=True)
            res["strength"][mode] = strength(done)
            every += done
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    res["latency"] = latency(every)
    res["meta"] = {"label": "quick" if a.quick else "full", "rounds": rounds, "modes": a.modes,
                   "workers": a.workers, "seconds": time.perf_counter() - started, "goal_ms": GOAL_MS}
    out = a.json or RESULTS / ("bots-quick.json" if a.quick else "bots.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1))
    print(markdown(res))
    return res


if __name__ == "__main__":
    main()
