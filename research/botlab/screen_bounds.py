"""What knowing the hidden cards would be worth to the expert's planner (analysis only).

Each variant is the expert's planner (``planner.STYLES["expert"]``, with the
seat's redacted history, as the expert level has it) playing strong on
``screen_styles``' deals, paired per deal against the same planner playing
honestly (``honest``) on the same deals:

- ``known-hands`` (cheat): the potential's draws come from the true stock
  contents: every other hand is known, the stock order is not. A perfect
  belief about who holds what.
- ``known-takes`` (cheat): the danger term knows whether the next seat would
  take the card: strong's own take decision on that seat's true hand (1 or
  0, charged as the planner charges its estimate); ``known-takes-closed`` and
  ``known-takes-open`` know it only when the next seat is closed, or open.
- ``sampled-takes`` (honest): the danger of a closed next seat, under
  ``discard_take = meld_with_card``, is the chance that the card lets it
  open, over hands dealt for it from the seat's belief that could not open
  already nor with the last pile tops it let pass; ``--weight`` points a unit.

No bot does any of this: the cheats read the true position, which only the
arena holds (the arena's ``view_of`` seam keeps it: ``_keep_true``), and the
variants plan through the planner's seams (``styles``, ``belief``, ``feeds``);
the bots' own code and tables are never patched. Figures are reported, never
asserted (decision 0014).

    .venv/bin/python -m research.botlab.screen_bounds --mode hand --deals 600
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
from dataclasses import replace
from functools import partial
from pathlib import Path

from bench.bots_duplicate import mean_ci, one_deal
from hand_bot import planner
from hand_bot.arena import play_round
from hand_bot.belief import Belief
from hand_bot.hand_eval import Partition
from hand_bot.knowledge import feeds
from hand_bot.policy import as_history, choose_moves
from hand_engine import Discard, RuleViolation, apply, determinize, perspective, threshold

from .screen_styles import FIRST_SEED, play, row
from .take_features import features, probability

VARIANTS = ("honest", "known-hands", "known-takes", "sampled-takes")
#: run only when named: known-takes split by the next seat's state, the learned take model
SPLITS = ("known-takes-closed", "known-takes-open", "learned-takes", "noisy-takes-75", "noisy-takes-85",
          "noisy-takes-95")
#: noisy-takes: the share of candidate cards the next seat would take, closed and open
#: (Hand, docs/bots.md item 13)
NOISY_BASE = {False: 0.127, True: 0.082}
#: the planner styles the variants plan with: the bots' table, each variant the expert's style
STYLES = {**planner.STYLES, **{v: planner.STYLES["expert"] for v in (*VARIANTS, *SPLITS)}}

#: per worker process: the arena's true position at the current request, the
#: variant deciding now (None while strong decides), the sampled-takes settings
_NOW: dict = {"true": None, "active": None, "weight": 50.0, "samples": 16, "passes": 3, "model": None}


def _keep_true(state, seat):
    """The arena's ``view_of``: the request's perspective, the true position kept."""
    _NOW["true"] = state
    return perspective(state, seat)


def _belief(state, me, history=None) -> Belief:
    """The planner's ``belief``: ``Belief.of``, with the true hands for ``known-hands``."""
    b = Belief.of(state, me, history)
    if _NOW["active"] != "known-hands":
        return b
    truth = _NOW["true"]
    known = {s: frozenset(truth.seats[s].hand) for s in b.known}
    return Belief(b.me, b.unseen, b.sizes, known, b.weights)


def _with_true_hands(state):
    """The planner's simulated position with the other hands as they truly are."""
    me, truth = state.turn.seat, _NOW["true"]
    seats = tuple(s if i == me else replace(s, hand=truth.seats[i].hand) for i, s in enumerate(state.seats))
    shown = {c for s in seats for c in s.hand} | set(state.pile) | {c for m in state.melds for c in m.cards}
    stock = tuple(c for c in range(106) if c not in shown)
    return replace(state, seats=seats, stock=stock) if len(stock) == len(state.stock) else None


def _would_take(card, seat, state) -> float:
    """1 if strong in ``seat``, with its true hand, takes ``card`` from the pile after this discard."""
    full = _with_true_hands(state)
    if full is None:
        return 0.0
    try:
        after = apply(full, state.turn.seat, Discard(card))[0]
    except RuleViolation:
        return 0.0
    if after.result is not None or after.turn.seat != seat or not after.pile or after.pile[-1] != card:
        return 0.0
    active, _NOW["active"] = _NOW["active"], None  # strong decides for the next seat
    try:
        return 1.0 if planner.Planner(after, "strong")._take(after) is not None else 0.0
    finally:
        _NOW["active"] = active


def _noisy(took: float, auc: float, base: float, key: tuple) -> float:
    """The chance of a take given a score ``took`` + N(0, σ²), σ such that the score's
    AUC is ``auc`` (Φ(1 / (σ√2)) = auc), and the prior take rate ``base``."""
    sigma = 1 / (math.sqrt(2) * statistics.NormalDist().inv_cdf(auc))
    x = took + random.Random(hash(key) & 0xFFFFFFFF).gauss(0.0, sigma)
    yes, no = base * statistics.NormalDist(1, sigma).pdf(x), (1 - base) * statistics.NormalDist(0, sigma).pdf(x)
    return yes / (yes + no)


def _sampled_hands(state, seat) -> tuple[list[tuple[int, ...]], int]:
    key = (state.turn.seat, seat, state.seats[state.turn.seat].hand, state.pile, len(state.melds), state.turn_no)
    cached = _NOW.get("hands")
    if cached and cached[0] == key:
        return cached[1], cached[2]
    hist = _NOW.get("history")
    thr = threshold(state)
    belief = Belief.of(state, state.turn.seat, hist)
    passes = hist.seats[seat].passed[-_NOW["passes"]:] if hist is not None else []
    rng = random.Random(hash(key) & 0xFFFFFFFF)
    hands: list[tuple[int, ...]] = []
    for _ in range(4 * _NOW["samples"]):
        if len(hands) == _NOW["samples"]:
            break
        h = belief.deal(rng)[0][seat]
        if Partition.of(h, state.options).value() >= thr:
            continue  # it would have opened
        if any(x not in h and Partition.of((*h, x), state.options).value() >= thr for x in passes):
            continue  # it would have taken that pile top to open
        hands.append(h)
    _NOW["hands"] = (key, hands, thr)
    return hands, thr


def _bounded_feeds(card, seat, know, state):
    """The variants' ``feeds`` (the bots' ``knowledge.feeds`` for ``honest``)."""
    active = _NOW["active"]
    if active == "known-takes" or active in SPLITS[:2] and (active == SPLITS[0]) != state.seats[seat].opened:
        return _would_take(card, seat, state)
    if active and active.startswith("noisy-takes-"):
        return _noisy(_would_take(card, seat, state), int(active[-2:]) / 100, NOISY_BASE[state.seats[seat].opened],
                      (state.turn_no, card, seat, state.seats[state.turn.seat].hand))
    if active == "learned-takes" and card < 104:
        weights = _NOW["model"]["open" if state.seats[seat].opened else "closed"]["weights"]
        return probability(weights, features(card, seat, know, state, _NOW.get("history")))
    if (active == "sampled-takes" and not state.seats[seat].opened
            and state.options.discard_take == "meld_with_card"):
        hands, thr = _sampled_hands(state, seat)
        if hands:
            hits = sum(Partition.of((*h, card), state.options).value() >= thr for h in hands)
            return _NOW["weight"] / 14.0 * hits / len(hands)
    return feeds(card, seat, know, state)


def _choose(view, level, seed, history=None, *, budget=None, feeds=_bounded_feeds):
    """The arena's ``choose``: ``policy.choose_moves``, and a variant's level planned by the
    expert's planner through the seams (``feeds``: the variants' take estimate)."""
    if level not in (*VARIANTS, *SPLITS):
        return choose_moves(view, level, seed, history, budget=budget)
    state = determinize(view, seed)
    hist = as_history(history)
    _NOW.update(active=level, history=hist)
    try:
        return planner.Planner(state, level, history=hist, styles=STYLES, belief=_belief, feeds=feeds).plan(state)
    finally:
        _NOW.update(active=None, history=None)


def cheating_deal(args, feeds=_bounded_feeds):
    """``one_deal`` in an arena that keeps the true position, its variants planned with ``feeds``."""
    return one_deal(args, play=partial(play_round, view_of=_keep_true, choose=partial(_choose, feeds=feeds)))


def paired(a: list[dict], b: list[dict]) -> tuple[float, float]:
    """Mean per-deal difference of rounds won (b − a) with its 95 % half-width, in points."""
    m, half = mean_ci([statistics.fmean(y["won"]) - statistics.fmean(x["won"]) for x, y in zip(a, b)])
    return 100 * m, 100 * half


def _deal(args):
    return cheating_deal(args)


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("variants", nargs="*",
                   help=f"any of {', '.join((*VARIANTS[1:], *SPLITS))} (default: {', '.join(VARIANTS[1:])})")
    p.add_argument("--mode", default="hand")
    p.add_argument("--deals", type=int, default=600)
    p.add_argument("--first-deal", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--weight", type=float, default=50.0, help="sampled-takes: points per unit chance")
    p.add_argument("--samples", type=int, default=16, help="sampled-takes: hands dealt for the next seat")
    p.add_argument("--take-model", type=Path, help="learned-takes: the model take_model wrote")
    a = p.parse_args(argv)
    unknown = set(a.variants) - set(VARIANTS[1:]) - set(SPLITS)
    if unknown:
        p.error(f"unknown variants: {', '.join(sorted(unknown))}")
    a.variants = a.variants or list(VARIANTS[1:])
    if "learned-takes" in a.variants and a.take_model is None:
        p.error("learned-takes needs --take-model")
    _NOW.update(weight=a.weight, samples=a.samples,
                model=json.loads(a.take_model.read_text()) if a.take_model else None)
    seeds = range(FIRST_SEED + a.first_deal, FIRST_SEED + a.first_deal + a.deals)
    rows, base = [], None
    for name, done, seconds in play(("honest", *a.variants), a.mode, seeds, a.workers, _deal):
        base = done if name == "honest" else base
        gain, half = paired(base, done)
        rows.append({**row(name, a.mode, done, seconds), "paired_vs_honest": [round(gain, 1), round(half, 1)]})
        print(json.dumps(rows[-1]), flush=True)
    return rows


if __name__ == "__main__":
    main()
