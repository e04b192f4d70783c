"""Where the expert gains or loses, decision by decision, against an oracle.

``collect``: strong plays whole rounds (every seat); at every request with
more than one expert candidate (``hand_bot.expert.candidates``) the position
is stored with each candidate's *oracle value*: the candidate played on the
TRUE position, then the strong policy for every seat to the round's end
(``rollout.rollout`` with ``HORIZON = None``), valued for the mover like the
expert's leaf (opponents' mean minus its own; team scores in partnership).
This is analysis only: the oracle sees the hidden cards, no bot ever does.

``eval``: the expert's search (its normal inputs: the perspective, the
redacted history, the seed) on every stored position, with settings changed
by ``--set module.NAME=value`` (e.g. ``rollout.HORIZON=None``,
``expert.MARGIN=0.0``); per decision the oracle gain of its pick over the
strong plan (a new candidate's oracle is computed on the spot), by kind of
deviation (another discard, the other draw, another plan), with a 95 %
interval. ``--cheat shuffle`` replaces the belief's samples by the true
hands with the stock reshuffled: an upper bound for search with a perfect
belief (never in a bot).

    .venv/bin/python -m research.botlab.expert_oracle collect hand 50 /tmp/or-hand.pkl
    .venv/bin/python -m research.botlab.expert_oracle eval /tmp/or-hand.pkl --n 900 [--set rollout.HORIZON=2]
"""

from __future__ import annotations

import argparse
import importlib
import math
import pickle
import random
import statistics
import time
from dataclasses import replace
from pathlib import Path

from hand_bot import expert, rollout
from hand_bot.arena import play_plan, request_seed
from hand_bot.policy import as_history, choose_moves
from hand_engine import Discard, DrawStock, TakeDiscard, determinize, perspective, redact
from hand_engine import resolve, start_round

Z = 1.96


def oracle(true_state, plan) -> float:
    """The value of ``plan`` on the true position, played to the round's end."""
    return rollout.rollout(true_state, true_state.turn.seat, plan, horizon=None)


class _TrueSamples:
    """The cheat's belief: every sample is the true position with the stock reshuffled."""

    def __init__(self, true_state) -> None:
        self.true_state = true_state

    def sample(self, state, rng):
        stock = list(self.true_state.stock)
        rng.shuffle(stock)
        return replace(self.true_state, stock=tuple(stock))


def collect(mode: str, rounds: int, first: int) -> list[dict]:
    rows = []
    for seed in range(50_000 + first, 50_000 + first + rounds):
        state, events = start_round(resolve(mode), 4, seed=seed)
        log, k = list(events), 0
        while state.result is None:
            seat = state.turn.seat
            view, hist = perspective(state, seat), [redact(e, seat) for e in log]
            rs = request_seed(seed, k)
            cands = expert.candidates(determinize(view, rs))
            if len(cands) > 1:
                rows.append({"true": state, "view": view, "hist": hist, "seed": rs, "cands": cands,
                             "oracle": [oracle(state, c) for c in cands], "phase": state.turn.phase})
            state = play_plan(state, seat, choose_moves(view, "strong", rs, hist), log)
            k += 1
    return rows


def kind(plan, strong) -> str:
    if isinstance(plan[0], (DrawStock, TakeDiscard)) and type(plan[0]) is not type(strong[0]):
        return "draw" if isinstance(plan[0], DrawStock) else "take"
    if plan[:-1] == strong[:-1] and isinstance(plan[-1], Discard):
        return "discard"
    return "other plan"


def evaluate(rows: list[dict], budget: expert.Budget, cheat: str | None) -> dict:
    gains, by_kind, times, deviations = [], {}, [], 0
    for r in rows:
        belief = (lambda state, me, history, _t=r["true"]: _TrueSamples(_t)) if cheat else expert.Belief.of
        sim = determinize(r["view"], r["seed"])
        started = time.thread_time()
        plan = expert.search(sim, r["seed"], as_history(r["hist"]), budget, belief=belief).plan
        times.append(time.thread_time() - started)
        if plan not in r["cands"]:
            r["cands"].append(plan)
            r["oracle"].append(oracle(r["true"], plan))
        i = r["cands"].index(plan)
        g = r["oracle"][i] - r["oracle"][0]
        gains.append(g)
        if i:
            deviations += 1
            by_kind.setdefault(kind(plan, r["cands"][0]), []).append(g)
    times.sort()
    return {"n": len(gains), "gain": statistics.fmean(gains),
            "half": Z * statistics.stdev(gains) / math.sqrt(len(gains)),
            "ceiling": statistics.fmean(max(r["oracle"]) - r["oracle"][0] for r in rows),
            "deviate": deviations / len(gains), "by_kind": {k: (statistics.fmean(v), len(v)) for k, v in by_kind.items()},
            "p50_ms": 1000 * times[len(times) // 2], "p99_ms": 1000 * times[int(0.99 * len(times))]}


def apply_settings(settings: list[str]) -> None:
    """``--set module.NAME=value``: a module constant of ``hand_bot`` set for this process
    (the study's knob: a run of this script is the only process it changes)."""
    for s in settings:
        name, value = s.split("=", 1)
        module, attr = name.rsplit(".", 1)
        setattr(importlib.import_module(f"hand_bot.{module}"), attr, eval(value))  # noqa: S307 (bench CLI)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("mode")
    c.add_argument("rounds", type=int)
    c.add_argument("out", type=Path)
    c.add_argument("--first", type=int, default=0)
    e = sub.add_parser("eval")
    e.add_argument("data", type=Path)
    e.add_argument("--n", type=int)
    e.add_argument("--rollouts", type=int, default=expert.DEFAULT_BUDGET.rollouts)
    e.add_argument("--set", action="append", default=[])
    e.add_argument("--cheat", choices=["shuffle"])
    a = p.parse_args(argv)
    random.seed(0)
    if a.cmd == "collect":
        rows = collect(a.mode, a.rounds, a.first)
        a.out.write_bytes(pickle.dumps(rows))
        print(f"{len(rows)} positions")
        return
    apply_settings(a.set)
    rows = pickle.loads(a.data.read_bytes())[: a.n]
    s = evaluate(rows, expert.Budget(rollouts=a.rollouts, cpu_ms=None), a.cheat)
    kinds = " ".join(f"{k} {m:+.1f} ×{n}" for k, (m, n) in s["by_kind"].items())
    print(f"{a.data.name} {' '.join(a.set) or 'default'}: n={s['n']} gain per decision {s['gain']:+.2f} "
          f"± {s['half']:.2f} (ceiling {s['ceiling']:.1f}), deviates {s['deviate']:.1%} [{kinds}], "
          f"search CPU p50 {s['p50_ms']:.0f} / p99 {s['p99_ms']:.0f} ms")


if __name__ == "__main__":
    main()
