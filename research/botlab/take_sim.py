"""Take estimates from hands *played* for the next seat (analysis only; docs/bots.md item 14).

Item 12's sampled takes dealt the next seat's hand from the belief: nearly
uniform over the unseen cards. A closed seat's real hand is not: it has kept
what builds its hand and thrown the rest for as many turns as it has drawn.
Here each sampled hand is *played*: dealt from the unseen cards (the cards
publicly known to be in it kept), then, once per stock draw the seat made,
a card drawn and the least useful card thrown (``throw``: the card with the
fewest meld partners in the hand, the highest first, as strong's closed
discard roughly does). A hand that could open already, or could have opened
with one of the last three pile tops it let pass, is dropped. The estimate
is the share of hands that open with the card (``simulated``), and the same
weighted by the belief's weights (``weighted``).

Rows as ``take_model.py`` collects them (the expert's planner against strong,
deals from seed 50,000, a closed next seat only); the held-out AUC of each
estimate beside ``knowledge.feeds`` and the take model with and without it.

    .venv/bin/python -m research.botlab.take_sim --mode hand --deals 120
"""

from __future__ import annotations

import argparse
import json
import random

from hand_bot.belief import Belief, related
from hand_bot.hand_eval import Partition
from hand_engine import hand_value, is_joker, threshold

from . import screen_bounds as sb
from . import take_model as tm
from .screen_styles import play

_NOW: dict = {"samples": 16, "key": None, "hands": ([], 0)}


def partners(card: int, hand: list[int]) -> float:
    """How much ``card`` builds ``hand``: a joker or a rank or suit neighbour counts 1 (0.5
    for a joker), a card two ranks away 0.6."""
    if is_joker(card):
        return 99.0
    out = 0.0
    for x in hand:
        if x == card:
            continue
        if is_joker(x):
            out += 0.5
        elif related(card, x):
            gap = abs(card % 13 - x % 13)
            out += 1.0 if gap in (0, 1, 12) else 0.6
    return out


def throw(hand: list[int], keep: set[int], joker_in_hand) -> int:
    """The card a closed player throws: the fewest partners (two and a half at most
    count), then the most points."""
    return min((c for c in hand if c not in keep),
               key=lambda c: 10 * min(partners(c, hand), 2.5) - 0.35 * hand_value(c, joker_in_hand))


def played_hands(state, seat: int, history, samples: int, rng: random.Random
                 ) -> list[tuple[tuple[int, ...], float]]:
    """Hands for ``seat`` (closed) played as above, each with its belief weight."""
    o = state.options
    thr = threshold(state)
    belief = Belief.of(state, state.turn.seat, history)
    known = set(belief.known[seat])
    elsewhere = {c for s, cs in belief.known.items() if s != seat for c in cs}
    pool = [c for c in belief.unseen if c not in elsewhere and c not in known]
    size = belief.sizes[seat]
    sh = history.seats[seat]
    passes = [p for p in sh.passed[-3:] if not is_joker(p)]
    out: list[tuple[tuple[int, ...], float]] = []
    for _ in range(6 * samples):
        if len(out) == samples:
            break
        cards = pool[:]
        rng.shuffle(cards)
        hand = [*known, *cards[: size - len(known)]]
        rest = cards[size - len(known):]
        for _ in range(min(sh.stock_draws, len(rest))):
            hand.append(rest.pop())
            hand.remove(throw(hand, known, o.joker_in_hand))
        if Partition.of(hand, o).value() >= thr:
            continue  # it would have opened
        if any(p not in hand and Partition.of((*hand, p), o).value() >= thr for p in passes):
            continue  # it would have taken that pile top to open
        weight = 1.0
        for c in hand:
            if c not in known:
                weight *= belief.weights[seat][c]
        out.append((tuple(hand), weight))
    return out


def estimate(card: int, seat: int, state, history) -> tuple[float, float]:
    """(share, belief-weighted share) of the played hands that open with ``card``."""
    key = (state.turn.seat, seat, state.seats[state.turn.seat].hand, state.pile, len(state.melds), state.turn_no)
    if _NOW["key"] != key:
        rng = random.Random(hash(key) & 0xFFFFFFFF)
        _NOW.update(key=key, hands=(played_hands(state, seat, history, _NOW["samples"], rng), threshold(state)))
    hands, thr = _NOW["hands"]
    if not hands:
        return 0.0, 0.0
    hits = weighted = total = 0.0
    for hand, weight in hands:
        opens = partners(card, list(hand)) > 0 and Partition.of((*hand, card), state.options).value() >= thr
        hits += opens
        weighted += opens * weight
        total += weight
    return hits / len(hands), weighted / total if total else 0.0


def _recording_feeds(card, seat, know, state):
    hist = sb._NOW.get("history")
    if sb._NOW["active"] == "honest" and card < 104 and not state.seats[seat].opened and hist is not None:
        tm._ROWS.append({"opened": False, "y": sb._would_take(card, seat, state),
                         "x": tm.features(card, seat, know, state, hist), "sim": estimate(card, seat, state, hist)})
    return sb._bounded_feeds(card, seat, know, state)


def _deal(args):
    tm._ROWS.clear()
    out = sb.cheating_deal(args, feeds=_recording_feeds)
    return {**out, "seed": args[3], "rows": list(tm._ROWS)}


def report(rows: list[dict], held_out=lambda seed: seed % 4 == 0) -> dict:
    test = [r for r in rows if held_out(r["seed"])]
    train = [r for r in rows if not held_out(r["seed"])]
    ys = [r["y"] for r in test]
    out = {"rows": len(rows), "took": round(sum(r["y"] for r in rows) / max(1, len(rows)), 4),
           "auc_feeds": tm.auc(ys, [r["x"][tm.FEATURES.index("feeds")] for r in test]),
           "auc_simulated": tm.auc(ys, [r["sim"][0] for r in test]),
           "auc_weighted": tm.auc(ys, [r["sim"][1] for r in test])}
    for name, extra in (("auc_model", False), ("auc_model_and_simulated", True)):
        xs = [r["x"] + (list(r["sim"]) if extra else []) for r in rows]
        w = tm.fit([x for x, r in zip(xs, rows) if not held_out(r["seed"])], [r["y"] for r in train])
        out[name] = tm.auc(ys, [tm.probability(w, x) for x, r in zip(xs, rows) if held_out(r["seed"])])
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", default="hand")
    p.add_argument("--deals", type=int, default=120)
    p.add_argument("--samples", type=int, default=16, help="played hands per decision")
    p.add_argument("--workers", type=int, default=2)
    a = p.parse_args(argv)
    _NOW["samples"] = a.samples
    rows = []
    for _, done, _ in play(("honest",), a.mode, range(tm.FIRST_SEED, tm.FIRST_SEED + a.deals), a.workers, _deal):
        for deal in done:
            rows += [{**r, "seed": deal["seed"]} for r in deal["rows"]]
    out = {"mode": a.mode, "deals": a.deals, "samples": a.samples, **report(rows)}
    print(json.dumps(out), flush=True)
    return out


if __name__ == "__main__":
    main()
