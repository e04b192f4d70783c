"""Engine speed: random-legal rounds per preset, ``apply`` and ``suggest`` latency.

Machines are shared and noisy, so every figure also comes as a ratio to a
baseline measured in the same run: one *baseline op* is
``sorted(DATA, key=_key)`` on a fixed, shuffled list of the 106 card ids
with a pure-Python key function (interpreted calls and tuples, like the
engine). Baseline blocks are interleaved with the work (after every round,
every sweep of apply batches and every suggest hand, each ~10 % of the
work's time); a section's yardstick is the CPU time of one op over its
blocks (CPU time leaves out waits for a CPU, which vary far more on a
shared machine than the speed of the CPU once running). "× op" = a time
divided by that: the figure to compare across machines and runs. Presets
and apply cases are interleaved too (round-robin), so load bursts hit them
alike; the kout-* presets have the same rules as the four modes, so their
rows show the run's noise.

* rounds: random-legal play (``random_step``) of whole rounds, 4 players,
  seeds 0..N-1, for every preset (the four modes first);
* apply: p50/p99 of one ``apply`` call for a stock draw, a discard and a
  three-meld opening on built positions (``apply`` is pure: the same state
  is re-applied every repetition);
* suggest: p50/p99 of ``suggest`` for random 15-card hands holding both
  jokers (seeded), goals "opening" and "shed"; goal: p99 ≤ 20 ms.

GC stays enabled (it is part of real latency); it is collected before each
section. Markdown goes to stdout, progress to stderr, JSON to
bench/results/engine.json (``--quick``: engine-quick.json).

    .venv/bin/python bench/bench_engine.py [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "services",):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from hand_engine import (  # noqa: E402
    MODES, PRESETS, Discard, DrawStock, LayMelds, MeldSpec, RoundState, apply, format_cards,
    parse_cards, random_step, resolve, start_round, suggest,
)
from hand_sim.positions import build  # noqa: E402

SUGGEST_GOAL_MS = 20.0
PLAYERS = 4
RESULTS = ROOT / "bench" / "results"


@dataclass(frozen=True)
class Config:
    rounds: int = 20  # random rounds per preset
    reps: int = 10_000  # apply repetitions per (move, mode)
    hands: int = 400  # random hands per (goal, mode) for suggest
    baseline_share: float = 0.1  # baseline block after each piece of work: this share of its time
    presets: tuple[str, ...] = field(default_factory=lambda: ordered_presets())
    modes: tuple[str, ...] = MODES  # modes for the apply and suggest sections
    seed: int = 2024  # suggest hands
    label: str = "full"


def ordered_presets() -> tuple[str, ...]:
    return (*MODES, *sorted(p for p in PRESETS if p not in MODES))


QUICK = Config(rounds=1, reps=300, hands=30, label="quick")
FULL = Config()


# ------------------------------------------------------------------ baseline
_BASE_RNG = random.Random(106)
DATA: list[int] = list(range(106))
_BASE_RNG.shuffle(DATA)
BASELINE_OP = "sorted(DATA, key=_key): 106 shuffled ints, def _key(c): return (c % 13, c // 13)"


def _key(c: int) -> tuple[int, int]:
    return (c % 13, c // 13)


class Baseline:
    """Blocks of baseline ops interleaved with the measured work.

    After each piece of work (a round, a sweep of apply batches, a hand's
    suggest calls) ``after(seconds)`` runs a block sized to ``share`` of
    that work's time. A section's yardstick, ``op_seconds``, is the CPU
    time of one op over the blocks run inside it: CPU time leaves out the
    time the process waited for a CPU, which on a shared machine varies
    far more than the speed of the CPU it gets.
    """

    def __init__(self, share: float, warmup_ops: int = 300, min_ops: int = 20) -> None:
        self.share, self.min_ops = share, min_ops
        self.blocks: list[tuple[int, float, float]] = []  # (ops, wall s, CPU s)
        self.block(warmup_ops)
        self.blocks.clear()  # the warm-up block does not count

    def block(self, ops: int) -> None:
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(ops):
            sorted(DATA, key=_key)
        self.blocks.append((ops, time.perf_counter() - w0, time.process_time() - c0))
        self.last = ops / self.blocks[-1][1]

    def after(self, seconds: float) -> None:
        self.block(max(self.min_ops, round(seconds * self.share * self.last)))

    def mark(self) -> int:
        return len(self.blocks)

    def op_seconds(self, since: int = 0) -> float:
        """CPU seconds of one op over the blocks from ``since`` on."""
        blocks = self.blocks[since:]
        return sum(b[2] for b in blocks) / sum(b[0] for b in blocks)

    def wall_rate(self, since: int = 0) -> float:
        blocks = self.blocks[since:]
        return sum(b[0] for b in blocks) / sum(b[1] for b in blocks)

    def summary(self) -> dict[str, Any]:
        rates = sorted(ops / cpu for ops, _, cpu in self.blocks if cpu > 0)
        return {
            "op": BASELINE_OP, "ops_per_s": 1 / self.op_seconds(), "wall_ops_per_s": self.wall_rate(),
            "blocks": len(self.blocks), "block_p5": pct(rates, 5), "block_median": statistics.median(rates),
            "block_p95": pct(rates, 95),
        }


# ------------------------------------------------------------------ helpers
def pct(values: Sequence[float], p: int) -> float:
    """The p-th percentile (inclusive method) of ``values``."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def timer_overhead_s(n: int = 20_000) -> float:
    pc = time.perf_counter
    t0 = pc()
    for _ in range(n):
        pc() - pc()
    return (pc() - t0) / n


class Section:
    """Wall and CPU time of a section, and the baseline blocks run inside it."""

    def __init__(self, base: Baseline) -> None:
        self.base, self.since = base, base.mark()
        self.wall0, self.cpu0 = time.perf_counter(), time.process_time()

    def done(self) -> dict[str, float]:
        wall = time.perf_counter() - self.wall0
        op = self.base.op_seconds(self.since)
        return {"seconds": wall, "cpu_share": (time.process_time() - self.cpu0) / wall,
                "baseline_ops_per_s": 1 / op, "baseline_op_us": op * 1e6}


# ------------------------------------------------------------------ (a) rounds
def play_round(preset: str, seed: int) -> int:
    """One random-legal round; returns the number of moves applied."""
    state, _ = start_round(resolve(preset), PLAYERS, seed=seed)
    rng = random.Random(seed)
    moves = 0
    while state.result is None:
        state, _, _ = random_step(state, rng)
        moves += 1
    return moves


def bench_rounds(cfg: Config, base: Baseline) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Sweeps of one round (seed k) per preset, each round followed by a baseline block."""
    seconds = dict.fromkeys(cfg.presets, 0.0)
    cpu = dict.fromkeys(cfg.presets, 0.0)
    moves = dict.fromkeys(cfg.presets, 0)
    pc, ct = time.perf_counter, time.process_time
    gc.collect()
    sec = Section(base)
    for seed in range(cfg.rounds):
        for preset in cfg.presets:
            c0, t0 = ct(), pc()
            moves[preset] += play_round(preset, seed)
            dt = pc() - t0
            cpu[preset] += ct() - c0
            seconds[preset] += dt
            base.after(dt)
        progress(f"  rounds: sweep {seed + 1}/{cfg.rounds}")
    info = sec.done()
    op = info["baseline_op_us"] / 1e6
    rows = []
    for preset in cfg.presets:
        per_round = seconds[preset] / cfg.rounds
        rows.append({
            "preset": preset, "mode": preset in MODES, "players": PLAYERS, "rounds": cfg.rounds,
            "moves": moves[preset], "seconds": seconds[preset], "rounds_per_s": 1 / per_round,
            "moves_per_s": moves[preset] / seconds[preset], "ms_per_round": per_round * 1e3,
            "cpu_ms_per_round": cpu[preset] / cfg.rounds * 1e3,
            "round_x_op": cpu[preset] / cfg.rounds / op,
        })
    return rows, info


# ------------------------------------------------------------------ (b) apply
OTHERS = tuple(" ".join(f"{c}#2" for c in h.split()) for h in (  # second copies
    "2D 3D 6D 9D JD QD KD 2C 3C 8C 9C 10C QC KC",
    "AH 2H 4H 5H 6H 9H 10H AD 4D 5D 8D 10D AC 7S",
    "AS 3S 4S 6S 8S 9S 10S 3H 7C JH QH KH 5C JC",
))
OPENER = "KS QS JS 7H 7D 7C 4C 5C 6C 2S 9D 3H 8H JD 5S"  # 66 points in three melds
OPENING = ("KS QS JS", "7H 7D 7C", "4C 5C 6C")
BATCH = 100  # apply calls per (move, mode) between baseline blocks


def apply_positions(mode: str) -> dict[str, tuple[RoundState, Any]]:
    """Built positions (seat 0 to move, drawn already unless drawing) and the move timed."""
    o = resolve(mode)
    hand14 = OPENER.rsplit(" ", 1)[0]
    draw = build(o, [hand14, *OTHERS], phase="draw")
    play = build(o, [OPENER, *OTHERS], phase="play")
    lay = LayMelds(tuple(MeldSpec(tuple(parse_cards(m))) for m in OPENING))
    return {
        "draw_stock": (draw, DrawStock()),
        "discard": (play, Discard(parse_cards("9D")[0])),
        "open_3_melds": (play, lay),
    }


def bench_apply(cfg: Config, base: Baseline) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Sweeps of BATCH calls per (move, mode), each sweep followed by a baseline block."""
    cases = [(kind, mode, state, action) for mode in cfg.modes
             for kind, (state, action) in apply_positions(mode).items()]
    for _, _, state, action in cases:  # warm-up; raises if a position is wrong
        for _ in range(20):
            apply(state, 0, action)
    lat: dict[tuple[str, str], list[float]] = {(k, m): [] for k, m, _, _ in cases}
    cpu = {(k, m): 0.0 for k, m, _, _ in cases}
    pc, ct = time.perf_counter, time.process_time
    gc.collect()
    sec = Section(base)
    left = cfg.reps
    while left > 0:
        n = min(BATCH, left)
        s0 = pc()
        for kind, mode, state, action in cases:
            out = lat[kind, mode]
            c0 = ct()
            for _ in range(n):
                t0 = pc()
                apply(state, 0, action)
                out.append(pc() - t0)
            cpu[kind, mode] += ct() - c0
        base.after(pc() - s0)
        left -= n
    info = sec.done()
    op = info["baseline_op_us"] / 1e6
    rows = []
    for (kind, mode), xs in lat.items():
        p50, p99 = pct(xs, 50), pct(xs, 99)
        rows.append({
            "move": kind, "mode": mode, "reps": len(xs),
            "p50_us": p50 * 1e6, "p99_us": p99 * 1e6, "mean_us": statistics.fmean(xs) * 1e6,
            "cpu_mean_us": cpu[kind, mode] / len(xs) * 1e6,
            "p50_x_op": p50 / op, "p99_x_op": p99 / op, "cpu_mean_x_op": cpu[kind, mode] / len(xs) / op,
        })
    progress("  apply: done")
    return rows, info


# ------------------------------------------------------------------ (c) suggest
def random_hands(count: int, seed: int) -> list[tuple[int, ...]]:
    """``count`` 15-card hands: 13 random natural cards and both jokers."""
    rng = random.Random(seed)
    return [tuple(sorted(rng.sample(range(104), 13) + [104, 105])) for _ in range(count)]


def suggest_position(mode: str, hand: tuple[int, ...]) -> RoundState:
    """Seat 0 holds ``hand`` in its play step; the other seats 14 random cards each."""
    rest = [c for c in range(104) if c not in hand]
    random.Random(",".join(map(str, hand))).shuffle(rest)
    others = [format_cards(sorted(rest[14 * i:14 * i + 14])) for i in range(PLAYERS - 1)]
    return build(resolve(mode), [format_cards(hand), *others], phase="play")


GOALS = ("opening", "shed")


def bench_suggest(cfg: Config, base: Baseline) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Per hand, one call per (goal, mode), then a baseline block."""
    hands = random_hands(cfg.hands, cfg.seed)
    cases = [(goal, mode) for mode in cfg.modes for goal in GOALS]
    states = {mode: [suggest_position(mode, h) for h in hands] for mode in cfg.modes}
    for goal, mode in cases:  # warm-up
        suggest(states[mode][0], 0, goal)
    lat: dict[tuple[str, str], list[float]] = {c: [] for c in cases}
    cpu: dict[tuple[str, str], list[float]] = {c: [] for c in cases}
    pc, ct = time.perf_counter, time.thread_time
    gc.collect()
    sec = Section(base)
    for i in range(len(hands)):
        s0 = pc()
        for goal, mode in cases:
            s = states[mode][i]
            c0, t0 = ct(), pc()
            suggest(s, 0, goal)
            lat[goal, mode].append(pc() - t0)
            cpu[goal, mode].append(ct() - c0)
        base.after(pc() - s0)
    info = sec.done()
    op = info["baseline_op_us"] / 1e6
    rows = []
    for (goal, mode), xs in lat.items():
        worst = max(range(len(xs)), key=xs.__getitem__)
        p50, p99 = pct(xs, 50), pct(xs, 99)
        cpu99 = pct(cpu[goal, mode], 99)
        rows.append({
            "goal": goal, "mode": mode, "hands": len(xs),
            "p50_ms": p50 * 1e3, "p99_ms": p99 * 1e3, "max_ms": xs[worst] * 1e3,
            "cpu_p50_ms": pct(cpu[goal, mode], 50) * 1e3, "cpu_p99_ms": cpu99 * 1e3,
            "slowest_hand": format_cards(hands[worst]),
            "p50_x_op": p50 / op, "p99_x_op": p99 / op, "cpu_p99_x_op": cpu99 / op,
            "goal_ms": SUGGEST_GOAL_MS, "meets_goal": p99 * 1e3 <= SUGGEST_GOAL_MS,
            "cpu_meets_goal": cpu99 * 1e3 <= SUGGEST_GOAL_MS,
        })
    progress("  suggest: done")
    return rows, info


# ------------------------------------------------------------------ run and report
def machine() -> dict[str, Any]:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count()
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpus": cpus, "cpu_model": model, "platform": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "loadavg": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


def run(cfg: Config) -> dict[str, Any]:
    """Every section in ``cfg``; the JSON-ready results."""
    started = time.perf_counter()
    meta: dict[str, Any] = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "config": asdict(cfg), "machine": machine(), "timer_overhead_us": timer_overhead_s() * 1e6,
    }
    base = Baseline(cfg.baseline_share)
    progress(f"bench_engine ({cfg.label}): baseline {base.last:,.0f} ops/s (wall)")
    rounds, rounds_info = bench_rounds(cfg, base)
    applies, apply_info = bench_apply(cfg, base)
    suggests, suggest_info = bench_suggest(cfg, base)
    meta["seconds"] = time.perf_counter() - started
    meta["sections"] = {"rounds": rounds_info, "apply": apply_info, "suggest": suggest_info}
    return {"meta": meta, "baseline": base.summary(), "rounds": rounds, "apply": applies,
            "suggest": suggests}


def _section_note(info: dict[str, float]) -> str:
    return (f"{info['seconds']:.1f} s, baseline op {info['baseline_op_us']:.1f} µs CPU, "
            f"CPU share {info['cpu_share']:.0%}")


def markdown(res: dict[str, Any]) -> str:
    meta, b = res["meta"], res["baseline"]
    cfg, sec = meta["config"], meta["sections"]
    out = [
        f"Run: {cfg['label']} — {cfg['rounds']} rounds per preset, {cfg['reps']:,} apply calls per "
        f"move and mode, {cfg['hands']} suggest hands per goal and mode; {meta['seconds']:.0f} s.",
        "",
        f"Baseline: **{b['ops_per_s']:,.0f} ops/s** of CPU time ({b['wall_ops_per_s']:,.0f} per wall "
        f"second) over {b['blocks']} blocks interleaved with the work (block rates p5–p95 "
        f"{b['block_p5']:,.0f}–{b['block_p95']:,.0f}); one op = `{b['op']}`. "
        "**× op** = a time divided by the CPU time of one baseline op in the same section: compare "
        "those across machines and runs (rounds use CPU time per round; latencies are wall-clock). "
        "CPU share = process CPU time ÷ wall time: below 100 % the process waited for a CPU, which "
        "shows in wall-clock p99s. The kout-* presets have the same rules as the four modes: their "
        "rows show the run's noise.",
        "",
        f"#### Random legal play ({PLAYERS} players, seeds 0..{cfg['rounds'] - 1}; "
        f"{_section_note(sec['rounds'])})",
        "",
        "| preset | rounds | moves/round | rounds/s | ms/round | CPU ms/round | × op per round |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in res["rounds"]:
        name = f"**{r['preset']}**" if r["mode"] else r["preset"]
        out.append(f"| {name} | {r['rounds']} | {r['moves'] / r['rounds']:.0f} | {r['rounds_per_s']:.1f} "
                   f"| {r['ms_per_round']:.1f} | {r['cpu_ms_per_round']:.1f} | {r['round_x_op']:,.0f} |")
    out += [
        "",
        f"#### apply latency (built position re-applied; {_section_note(sec['apply'])})",
        "",
        "| move | mode | calls | p50 µs | p99 µs | CPU mean µs | p50 × op | p99 × op |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in res["apply"]:
        out.append(f"| {r['move']} | {r['mode']} | {r['reps']:,} | {r['p50_us']:.1f} | {r['p99_us']:.1f} "
                   f"| {r['cpu_mean_us']:.1f} | {r['p50_x_op']:.2f} | {r['p99_x_op']:.2f} |")
    out += [
        "",
        f"#### suggest latency (random 15-card hands with both jokers, play step; goal p99 ≤ "
        f"{SUGGEST_GOAL_MS:g} ms; {_section_note(sec['suggest'])})",
        "",
        f"| goal | mode | hands | p50 ms | p99 ms | max ms | CPU p99 ms | p50 × op | p99 × op "
        f"| p99 ≤ {SUGGEST_GOAL_MS:g} ms (wall / CPU) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|:---:|",
    ]
    for r in res["suggest"]:
        ok = "/".join("yes" if r[k] else "**NO**" for k in ("meets_goal", "cpu_meets_goal"))
        out.append(f"| {r['goal']} | {r['mode']} | {r['hands']} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} "
                   f"| {r['max_ms']:.2f} | {r['cpu_p99_ms']:.2f} | {r['p50_x_op']:,.0f} | {r['p99_x_op']:,.0f} "
                   f"| {ok} |")
    return "\n".join(out) + "\n"


def parse_args(argv: Sequence[str] | None) -> tuple[Config, Path]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="CI smoke size (< 10 s)")
    p.add_argument("--rounds", type=int, help="random rounds per preset")
    p.add_argument("--reps", type=int, help="apply repetitions per move and mode")
    p.add_argument("--hands", type=int, help="suggest hands per goal and mode")
    p.add_argument("--presets", nargs="+", choices=sorted(PRESETS), help="presets for the rounds section")
    p.add_argument("--modes", nargs="+", choices=MODES, help="modes for the apply and suggest sections")
    p.add_argument("--json", type=Path, help="results file (default bench/results/engine[-quick].json)")
    a = p.parse_args(argv)
    cfg = QUICK if a.quick else FULL
    changes = {k: v for k in ("rounds", "reps", "hands") if (v := getattr(a, k)) is not None}
    if a.presets:
        changes["presets"] = tuple(a.presets)
    if a.modes:
        changes["modes"] = tuple(a.modes)
    if changes:
        cfg = replace(cfg, label=f"{cfg.label}, custom", **changes)
    path = a.json or RESULTS / ("engine-quick.json" if a.quick else "engine.json")
    return cfg, path


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    cfg, path = parse_args(argv)
    res = run(cfg)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res, indent=1) + "\n")
    sys.stdout.write(markdown(res))
    progress(f"bench_engine: {res['meta']['seconds']:.1f} s, results in {path}")
    return res


if __name__ == "__main__":
    main()
