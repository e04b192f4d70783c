"""Duplicate matches of two bot levels (used by bench_bots.py and research/botlab).

A *deal* is one seed: the same cards, dealer and stock rebuilds. Each deal is
played twice at a four-seat table, level A in seats 0 and 2 and B in 1 and 3,
then the other way round, so luck of the cards cancels out. In the
individual modes the side of a level is its two seats (a round is won by the
side with the lower summed score, ties count half; "went out" counts the
rounds a seat of the side went out); in partnership modes the two seats are a
team. Intervals are 95 %, normal, over deals (the two rounds of a deal are
paired, so that is the honest sample).

A round's winner is nearly lexicographic (docs/bots.md, "Where the rounds are
won"): the side with fewer seats that never opened (+100 each), and between
sides with as many, the side whose seat went out. ``summary``'s ``openings``
splits the rounds that way.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from hand_bot.arena import play_round
from hand_bot.expert import Budget
from hand_engine import resolve

Z = 1.96


def side_scores(result, a_seats: tuple[int, ...]) -> tuple[float, float]:
    if result.team_scores:
        a = result.team_scores[a_seats[0] % 2]
        return float(a), float(result.team_scores[1 - a_seats[0] % 2])
    a = sum(s.score for s in result.seats if s.seat in a_seats)
    b = sum(s.score for s in result.seats if s.seat not in a_seats)
    return float(a), float(b)


def one_deal(args: tuple[str, str, str, int, Budget | None], play=play_round) -> dict[str, Any]:
    """Both rounds of a deal: ``a`` seats 0/2 then 1/3 (``budget`` for ``a``'s search).

    ``play``: ``arena.play_round``, or the research's arena with its seams set
    (``research/botlab``)."""
    mode, a, b, seed, budget = args
    options = resolve(mode)
    out: dict[str, Any] = {"won": [], "out": [], "diff": [], "fewer_closed": [], "decisions": [], "turns": []}
    for a_seats in ((0, 2), (1, 3)):
        levels = [a if s in a_seats else b for s in range(4)]
        budgets = {s: budget for s in a_seats} if budget is not None else None
        r = play(options, levels, seed, timed=True, budgets=budgets)
        sa, sb = side_scores(r.result, a_seats)
        out["won"].append(1.0 if sa < sb else 0.5 if sa == sb else 0.0)
        w = r.result.winner
        out["out"].append(0.5 if w is None else 1.0 if w in a_seats else 0.0)
        out["diff"].append(sb - sa)
        a_closed = sum(not s.opened for s in r.result.seats if s.seat in a_seats)
        b_closed = sum(not s.opened for s in r.result.seats if s.seat not in a_seats)
        out["fewer_closed"].append((a_closed < b_closed) - (a_closed > b_closed))
        per_turn: dict[int, list[float]] = {}
        for level, turn, cpu, wall in r.timings:
            if level == a:
                out["decisions"].append((cpu, wall))
                acc = per_turn.setdefault(turn, [0.0, 0.0])
                acc[0] += cpu
                acc[1] += wall
        out["turns"] += [tuple(v) for v in per_turn.values()]
    return out


def mean_ci(xs: list[float]) -> tuple[float, float]:
    if not xs:
        return 0.0, 0.0
    m = statistics.fmean(xs)
    return m, (Z * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0)


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else 0.0


def openings(deals: list[dict[str, Any]]) -> dict[str, float]:
    """The rounds split by the sides' unopened seats: the share in which A had fewer
    (``fewer``) and more (``more``), and A's rate of rounds won where the counts were
    equal (``won_equal``) and where they differed (``won_differ``)."""
    rows = [(f, w) for d in deals for f, w in zip(d.get("fewer_closed", ()), d["won"])]
    if not rows:
        return {}
    equal = [w for f, w in rows if f == 0]
    differ = [w for f, w in rows if f != 0]
    return {"fewer": sum(f > 0 for f, _ in rows) / len(rows), "more": sum(f < 0 for f, _ in rows) / len(rows),
            "won_equal": statistics.fmean(equal) if equal else 0.0,
            "won_differ": statistics.fmean(differ) if differ else 0.0}


def summary(deals: list[dict[str, Any]]) -> dict[str, Any]:
    """Rates and means over deals (each deal's two rounds averaged), with 95 % intervals."""
    def per_deal(key: str) -> list[float]:
        return [statistics.fmean(d[key]) for d in deals]

    won, half = mean_ci(per_deal("won"))
    out_rate, out_half = mean_ci(per_deal("out"))
    diff, diff_half = mean_ci(per_deal("diff"))
    dec = [x for d in deals for x in d["decisions"]]
    trn = [x for d in deals for x in d["turns"]]
    return {
        "deals": len(deals), "rounds": 2 * len(deals),
        "won": [won, won - half, won + half], "went_out": [out_rate, out_rate - out_half, out_rate + out_half],
        "diff": [diff, diff_half],
        "decisions": len(dec),
        **{f"decision_{k}_p{p}_ms": 1000 * pct([x[j] for x in dec], p)
           for j, k in ((0, "cpu"), (1, "wall")) for p in (50, 99)},
        **{f"turn_{k}_p{p}_ms": 1000 * pct([x[j] for x in trn], p)
           for j, k in ((0, "cpu"), (1, "wall")) for p in (50, 99)},
        "decision_cpu_max_ms": 1000 * max((x[0] for x in dec), default=0.0),
        "openings": openings(deals),
    }


def fmt_rate(r: list[float]) -> str:
    return f"{100 * r[0]:.1f} % ({100 * r[1]:.1f}–{100 * r[2]:.1f})"


def _split(o: dict[str, float] | None) -> str:
    if not o:
        return "–"
    return f"{100 * o['fewer']:.1f} % / {100 * o['more']:.1f} %, {100 * o['won_equal']:.1f} %"


def duel_rows(duels: dict[str, dict[str, Any]]) -> list[str]:
    lines = ["| match | deals (rounds) | rounds won (95 % CI) | went out | score gain per round | "
             "fewer / more unopened seats, won where as many | "
             "decision CPU p50 / p99 / max ms | decision wall p50 / p99 ms | turn CPU p50 / p99 ms |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, s in duels.items():
        lines.append(
            f"| {name} | {s['deals']} ({s['rounds']}) | {fmt_rate(s['won'])} | {fmt_rate(s['went_out'])} | "
            f"{s['diff'][0]:+.1f} ± {s['diff'][1]:.1f} | {_split(s.get('openings'))} | {s['decision_cpu_p50_ms']:.0f} / "
            f"{s['decision_cpu_p99_ms']:.0f} / {s['decision_cpu_max_ms']:.0f} | "
            f"{s['decision_wall_p50_ms']:.0f} / {s['decision_wall_p99_ms']:.0f} | "
            f"{s['turn_cpu_p50_ms']:.0f} / {s['turn_cpu_p99_ms']:.0f} |")
    return lines
