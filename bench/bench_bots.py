"""Bots: a strength table of every level against every level, expert duels, decision latency, ratings.

* **table** (``--rounds`` per mode): four-player tables of four of the five
  levels — expert, strong, middle, beginner, random — the level left out
  and the seats rotated with the seed, so every level plays every seat and
  meets every other level equally often. Per level: win rate (the seat that
  went out), mean round score (penalty points: lower is better), opening
  rate, Hand-finish rate, each with a 95 % confidence interval (Wilson for
  rates, normal for means); per pairing the share of the rounds they met in
  which the row level scored less than the column level (ties count half);
  each level's openskill rating through the ledger's own code
  (``hand_ledger.ratings.rate``), every round rated as a one-round match of
  four players placed by round score: in round order, and the bootstrap
  median with its 95 % interval (``bot_ratings``: one order alone moves an
  ordinal by about one point).
* **duels** (``--deals`` per mode, ``bots_duplicate``): expert against strong
  in duplicate format (the same deal twice, the levels' seats swapped), two
  seats each at a four-seat table in ``hand`` and ``saudi``, and as a team
  against a strong team in the partnership modes; rounds won, went out,
  mean score gain per round, expert's decision time per decision and turn.
* **curve** (``--curve-deals``): expert under CPU budgets of 25 / 50 / 100 /
  250 ms per decision (no sample or rollout cap: the potential's draws take up
  to 60 % of it, the rollouts the rest) against strong, hand mode.
* latency, per level (table rounds): p50/p99 of one decision (a request: the
  draw decision, or the rest of a turn) and of a whole turn, CPU time of the
  deciding thread and wall time. Goals: strong p99 per turn ≤ 100 ms; expert
  p99 per decision ≤ 250 ms. Rounds run in worker processes (``--workers``);
  on a shared machine wall time includes waits for a CPU, so read CPU.

Every request is exactly what a bot receives (the mover's ``perspective``
and its redacted events of the round); every action is applied on the true
position and a refused one aborts the benchmark (``hand_bot.arena``).
Markdown goes to stdout, progress to stderr, JSON to bench/results/bots.json
(``--quick``: bots-quick.json).

    .venv/bin/python bench/bench_bots.py [--quick] [--rounds N] [--deals D] [--curve-deals C]
        [--sections table duels curve] [--workers W] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from multiprocessing import get_context
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "services", ROOT, ROOT / "bench"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from bots_duplicate import Z, duel_rows, fmt_rate, mean_ci, one_deal, pct, summary  # noqa: E402
from hand_bot.arena import play_round  # noqa: E402
from hand_bot.expert import Budget  # noqa: E402
from hand_engine import resolve  # noqa: E402
from bot_ratings import ratings as bootstrap_ratings  # noqa: E402

LEVELS = ("expert", "strong", "middle", "beginner", "random")
SEATS = 4
MODES = ("hand", "saudi")
TEAM_MODES = ("partnership", "saudi-partnership")
CURVE_MS = (25.0, 50.0, 100.0, 250.0)
GOAL_MS = 100.0
EXPERT_GOAL_MS = 250.0
TIME_LIMIT_S = 14_400  # bench/run_all.py: a full run plays thousands of rounds of bots
RESULTS = ROOT / "bench" / "results"


def seat_levels(seed: int) -> list[str]:
    """Round ``seed``'s seats: level ``seed % 5`` sits out, the others rotate by ``seed // 5``."""
    playing = [lv for i, lv in enumerate(LEVELS) if i != seed % len(LEVELS)]
    shift = seed // len(LEVELS)
    return [playing[(i + shift) % SEATS] for i in range(SEATS)]


def one_round(args: tuple[str, int, Budget | None]) -> dict[str, Any]:
    mode, seed, budget = args
    levels = seat_levels(seed)
    budgets = {i: budget for i, lv in enumerate(levels) if lv == "expert"} if budget is not None else None
    out = play_round(resolve(mode), levels, seed, timed=True, budgets=budgets)
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


def strength(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    per: dict[str, dict[str, list]] = {lv: defaultdict(list) for lv in LEVELS}
    beats: dict[tuple[str, str], float] = defaultdict(float)
    met: dict[tuple[str, str], int] = defaultdict(int)
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
                    met[(a, b)] += 1
                    sa, sb = r["scores"][i], r["scores"][k]
                    beats[(a, b)] += 1.0 if sa < sb else 0.5 if sa == sb else 0.0
    table = {}
    for lv in LEVELS:
        n = len(per[lv]["score"])
        m, half = mean_ci(per[lv]["score"]) if n else (0.0, 0.0)
        table[lv] = {"rounds": n, "mean_score": m, "score_ci": half,
                     **{f"{key}_rate": wilson(sum(per[lv][key]), n) for key in ("won", "opened", "hand")}}
    pairs = {f"{a}>{b}": wilson(beats[(a, b)], met[(a, b)]) for a in LEVELS for b in LEVELS if a != b}
    finishes = defaultdict(int)
    for r in rounds:
        finishes[r["finish"]] += 1
    return {"levels": table, "pairs": pairs, "finishes": dict(finishes), "ratings": ratings(rounds)}


def ratings(rounds: list[dict[str, Any]]) -> dict[str, dict[str, list[float]]]:
    """Each level's openskill rating with the ledger's ``rate`` (``bot_ratings``): every round a
    one-round match of its four seats, placed by round score; chronological and bootstrapped."""
    return bootstrap_ratings(rounds, LEVELS)


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
def table_md(res: dict[str, Any], meta: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for mode in meta["modes"]:
        s = res["strength"][mode]
        fin = ", ".join(f"{k} {v}" for k, v in sorted(s["finishes"].items()))
        lines += [f"#### Strength — {mode} mode ({meta['rounds']:,} rounds; finishes: {fin})", "",
                  "| level | rounds | win rate | mean round score (lower is better) | opening rate | "
                  "Hand-finish rate | rating μ / σ / ordinal (bootstrap median) | ordinal 95 % | "
                  "ordinal in round order |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for lv in LEVELS:
            t = s["levels"][lv]
            rt = s["ratings"][lv]
            mu, sigma, ordinal = rt["median"]
            lo, hi = rt["ordinal_ci"]
            lines.append(f"| **{lv}** | {t['rounds']:,} | {fmt_rate(t['won_rate'])} | {t['mean_score']:.1f} ± "
                         f"{t['score_ci']:.1f} | {fmt_rate(t['opened_rate'])} | {fmt_rate(t['hand_rate'])} | "
                         f"{mu:.1f} / {sigma:.2f} / {ordinal:.1f} | {lo:.1f}–{hi:.1f} | "
                         f"{rt['chronological'][2]:.1f} |")
        lines += ["", f"Pairings ({mode}): share of the rounds they met in which the row level scored less "
                      "than the column level (ties count half), 95 % CI.", "",
                  "| row beats column | " + " | ".join(LEVELS) + " |", "|---|" + "---:|" * len(LEVELS)]
        for a in LEVELS:
            cells = ["–" if a == b else fmt_rate(s["pairs"][f"{a}>{b}"]) for b in LEVELS]
            lines.append(f"| **{a}** | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [f"#### Latency (table rounds, all modes; goals: strong p99 per turn ≤ {GOAL_MS:.0f} ms, "
              f"expert p99 per decision ≤ {EXPERT_GOAL_MS:.0f} ms)", "",
              "A decision answers one request (the draw decision, or the rest of the turn); a turn is its "
              "requests together. CPU = the deciding thread's CPU time; wall includes waits for a CPU.", "",
              "| level | decisions | decision CPU p50 / p99 ms | turn CPU p50 / p99 / max ms | "
              "turn wall p50 / p99 ms |", "|---|---:|---:|---:|---:|"]
    for lv in LEVELS:
        t = res["latency"][lv]
        lines.append(f"| **{lv}** | {t['decisions']:,} | {t['decision_cpu_p50_ms']:.1f} / "
                     f"{t['decision_cpu_p99_ms']:.1f} | {t['turn_cpu_p50_ms']:.1f} / {t['turn_cpu_p99_ms']:.1f} / "
                     f"{t['turn_cpu_max_ms']:.0f} | {t['turn_wall_p50_ms']:.1f} / {t['turn_wall_p99_ms']:.1f} |")
    return lines + [""]


def markdown(res: dict[str, Any]) -> str:
    meta = res["meta"]
    lines = [f"Run: {meta['label']} — {meta['workers']} worker processes; {meta['seconds']:.0f} s. "
             f"Sections: {', '.join(meta['sections'])}.", ""]
    if "table" in meta["sections"]:
        lines += table_md(res, meta)
    if res.get("duels"):
        lines += [f"#### Expert against strong, duplicate deals ({meta['deals']} deals per match)", "",
                  "Individual modes: expert in two seats, strong in the other two; partnership modes: an "
                  "expert team against a strong team. Each deal is played twice with the seats swapped; "
                  "rounds won = the side with the lower summed (team) score; score gain = strong side's "
                  "score minus expert side's, per round; 95 % CI over deals. Times are expert's.", "",
                  *duel_rows(res["duels"]), ""]
    if res.get("curve"):
        lines += [f"#### Strength against budget (hand mode, {meta['curve_deals']} deals per budget; "
                  "expert with a CPU budget per decision and no rollout cap, against strong)", "",
                  *duel_rows(res["curve"]), ""]
    return "\n".join(lines) + "\n"


def run_table(mapper, modes: list[str], rounds: int, res: dict[str, Any], budget: Budget | None) -> None:
    every: list[dict[str, Any]] = []
    for mode in modes:
        done: list[dict[str, Any]] = []
        for r in mapper(one_round, [(mode, seed, budget) for seed in range(rounds)]):
            done.append(r)
            if len(done) % 50 == 0:
                print(f"table {mode}: {len(done)}/{rounds} rounds", file=sys.stderr, flush=True)
        res["strength"][mode] = strength(done)
        res["table_rounds"][mode] = [{k: r[k] for k in ("levels", "scores", "winner", "finish", "opened")}
                                     for r in done]
        every += done
    res["latency"] = latency(every)


def run_duels(mapper, jobs: dict[str, tuple[str, Budget | None]], deals: int, first: int = 0
              ) -> dict[str, Any]:
    out = {}
    for name, (mode, budget) in jobs.items():
        seeds = range(10_000 + first, 10_000 + first + deals)
        done = list(mapper(one_deal, [(mode, "expert", "strong", seed, budget) for seed in seeds]))
        out[name] = {**summary(done), "first_deal": first,
                     "per_deal": [{k: d[k] for k in ("won", "out", "diff", "fewer_closed")} for d in done]}
        print(f"{name}: {deals} deals", file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a few rounds (CI smoke)")
    p.add_argument("--rounds", type=int, help="table rounds per mode (default 2000; --quick 5)")
    p.add_argument("--deals", type=int, help="duplicate deals per duel (default 2000; --quick 1)")
    p.add_argument("--curve-deals", type=int, help="deals per budget of the curve (default 500; --quick 1)")
    p.add_argument("--sections", nargs="+", default=["table", "duels", "curve"],
                   choices=["table", "duels", "curve"])
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2; 0: in-process)")
    p.add_argument("--modes", nargs="*", default=list(MODES), help="table and individual duel modes")
    p.add_argument("--team-modes", nargs="*", default=list(TEAM_MODES), help="partnership duel modes")
    p.add_argument("--first-deal", type=int, default=0, help="deal number to start the duels at (more deals)")
    p.add_argument("--expert-rollouts", type=int, help="expert's rollout budget (default: the level's)")
    p.add_argument("--json", type=Path)
    a = p.parse_args(argv)
    budget = Budget(rollouts=a.expert_rollouts, cpu_ms=None) if a.expert_rollouts else None
    rounds = a.rounds or (5 if a.quick else 2000)
    deals = a.deals or (1 if a.quick else 2000)
    curve_deals = a.curve_deals or (1 if a.quick else 500)
    started = time.perf_counter()
    res: dict[str, Any] = {"strength": {}, "latency": {}, "duels": {}, "curve": {}, "table_rounds": {}}
    pool = get_context("fork").Pool(a.workers) if a.workers > 0 else None
    mapper = pool.imap if pool is not None else map
    try:
        if "table" in a.sections:
            run_table(mapper, a.modes, rounds, res, budget)
        if "duels" in a.sections:
            jobs = {f"expert vs strong, {m}": (m, budget) for m in a.modes}
            jobs |= {f"expert team vs strong team, {m}": (m, budget) for m in a.team_modes}
            res["duels"] = run_duels(mapper, jobs, deals, a.first_deal)
        if "curve" in a.sections:
            jobs = {f"expert {ms:.0f} ms vs strong": ("hand", Budget(rollouts=None, cpu_ms=ms, draws=None)) for ms in CURVE_MS}
            res["curve"] = run_duels(mapper, jobs, curve_deals, a.first_deal)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    res["meta"] = {"label": "quick" if a.quick else "full", "rounds": rounds, "deals": deals,
                   "curve_deals": curve_deals, "modes": a.modes, "team_modes": a.team_modes,
                   "sections": a.sections, "expert_budget": str(budget or "default"), "workers": a.workers,
                   "seconds": time.perf_counter() - started,
                   "goal_ms": GOAL_MS, "expert_goal_ms": EXPERT_GOAL_MS}
    out = a.json or RESULTS / ("bots-quick.json" if a.quick else "bots.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1))
    print(markdown(res))
    return res


if __name__ == "__main__":
    main()
