"""Screen planner styles against strong in duplicate deals (decision 0015).

A planner style (``hand_bot.planner.Style``) decides in 1–10 ms, so a variant
plays hundreds of duplicate deals against ``strong`` in minutes, where an
expert duel takes an hour: the quick way to try an idea for the expert's own
plan before measuring the expert itself (``bench_bots.py``). Strong against
itself is the same-run baseline: the bots are deterministic, so it is
exactly 50 %.

    .venv/bin/python -m research.botlab.screen_styles --mode hand --deals 400 \\
        pot64=potential.samples:64 danger30=potential.samples:64,danger:30

A variant is NAME=FIELD:VALUE[,FIELD:VALUE...] over strong's style; a field
``potential.X`` sets ``PotentialStyle.X`` (and turns the potential on). Each
variant prints one JSON line: rounds won with its 95 % interval over deals,
score gain per round, the rounds split by the sides' unopened seats
(``bots_duplicate.openings``), decision CPU p50 / p99 ms.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from functools import partial
from multiprocessing import get_context

from bench.bots_duplicate import one_deal, summary
from hand_bot import planner
from hand_bot.arena import play_round
from hand_bot.policy import choose_moves
from hand_bot.potential import PotentialStyle
from hand_engine import determinize

#: first seed of the screen's deals (apart from bench_bots' duels, which start at 10,000)
FIRST_SEED = 20_000


def _value(text: str):
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return float(text)


def variant(spec: str) -> tuple[str, planner.Style]:
    """``NAME=FIELD:VALUE,...`` as (name, style)."""
    name, _, sets = spec.partition("=")
    style = planner.STYLES["strong"]
    pot: dict[str, object] = {}
    top: dict[str, object] = {}
    for item in filter(None, sets.split(",")):
        field, _, value = item.partition(":")
        if field.startswith("potential."):
            pot[field.removeprefix("potential.")] = _value(value)
        else:
            top[field] = _value(value)
    if pot:
        top["potential"] = PotentialStyle(**pot)
    return name, dataclasses.replace(style, **top)


def play(names, mode: str, seeds: range, workers: int, deal=one_deal):
    """Each level of ``names`` against strong on ``seeds``: yields (name, deals, seconds).
    ``deal`` plays one deal (``one_deal``'s arguments) in a worker forked now, so that
    it sees the caller's module state as it is now (styles, settings)."""
    pool = get_context("fork").Pool(workers) if workers > 0 else None
    try:
        for name in names:
            started = time.perf_counter()
            jobs = [(mode, name, "strong", seed, None) for seed in seeds]
            done = pool.map(deal, jobs, chunksize=4) if pool else list(map(deal, jobs))
            yield name, done, time.perf_counter() - started
    finally:
        if pool is not None:
            pool.close()
            pool.join()


#: the variants of this run (set by ``main`` before its workers fork)
_VARIANTS: dict[str, planner.Style] = {}


def _choose(view, level, seed, history=None, *, budget=None):
    """``policy.choose_moves``, with a variant's level planned in its style (the planner's
    ``styles`` seam: the bots' own table is left as it is)."""
    if level not in _VARIANTS:
        return choose_moves(view, level, seed, history, budget=budget)
    state = determinize(view, seed)
    return planner.Planner(state, level, styles=_VARIANTS).plan(state)


def _deal(args):
    return one_deal(args, play=partial(play_round, choose=_choose))


def row(name: str, mode: str, done: list[dict], seconds: float) -> dict:
    """One variant's JSON line: rounds won with its interval, score gain, the openings split, CPU."""
    s = summary(done)
    return {"variant": name, "mode": mode, "deals": len(done),
            "won": [round(x, 3) for x in s["won"]], "diff": [round(x, 1) for x in s["diff"]],
            "openings": {k: round(v, 3) for k, v in s["openings"].items()},
            "cpu_p50_ms": round(s["decision_cpu_p50_ms"], 1), "cpu_p99_ms": round(s["decision_cpu_p99_ms"], 1),
            "seconds": round(seconds)}


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("variants", nargs="+", help="NAME=FIELD:VALUE[,FIELD:VALUE...]")
    p.add_argument("--mode", default="hand")
    p.add_argument("--deals", type=int, default=400)
    p.add_argument("--first-deal", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    a = p.parse_args(argv)
    styles = dict(variant(v) for v in a.variants)
    _VARIANTS.clear()
    _VARIANTS.update(styles)  # before the workers fork: they see the variants
    seeds = range(FIRST_SEED + a.first_deal, FIRST_SEED + a.first_deal + a.deals)
    out = []
    for name, done, seconds in play(styles, a.mode, seeds, a.workers, _deal):
        out.append(row(name, a.mode, done, seconds))
        print(json.dumps(out[-1]), flush=True)
    return out


if __name__ == "__main__":
    main()
