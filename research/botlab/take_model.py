"""A take model learned from play: the chance the next seat takes a discard (analysis only).

docs/bots.md item 13. The expert's planner (with the seat's history, as
``screen_bounds``' ``honest`` variant) plays strong on deals apart from the
screen's; at each of its discards, for every card of its hand, a row holds
the card's public features (``features``: only what the seat sees and its
history) and the label: whether strong in the next seat, on its true hand,
would take the card (``screen_bounds._would_take``, which reads the arena's
true position: that is why this is analysis only; the features are
``take_features``). A logistic regression is
fitted per state of the next seat (closed, open) by Newton's method; every
fourth deal is held out, and the held-out AUC is reported beside that of the
planner's own estimate (``knowledge.feeds``). ``--out`` writes the weights for
``screen_bounds learned-takes --take-model FILE``.

    .venv/bin/python -m research.botlab.take_model --mode hand --deals 800 --out /tmp/takes-hand.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from . import screen_bounds as sb
from .screen_styles import play
from .take_features import FEATURES, _run_ranks, features, probability  # noqa: F401 - the model's API

#: the model's deals start here (the screen's start at 20,000, the duels' at 10,000)
FIRST_SEED = 50_000

_ROWS: list[dict] = []


def _recording_feeds(card, seat, know, state):
    if sb._NOW["active"] == "honest" and card < 104:  # a joker is always taken
        _ROWS.append({"opened": state.seats[seat].opened, "y": sb._would_take(card, seat, state),
                      "x": features(card, seat, know, state, sb._NOW.get("history"))})
    return sb._bounded_feeds(card, seat, know, state)


def _deal(args):
    _ROWS.clear()
    out = sb.cheating_deal(args, feeds=_recording_feeds)
    return {**out, "seed": args[3], "rows": list(_ROWS)}


def collect(mode: str, seeds: range, workers: int) -> list[dict]:
    """Rows of the honest planner's discards against strong on ``seeds`` (each with its deal's seed)."""
    rows = []
    for _, done, _ in play(("honest",), mode, seeds, workers, _deal):
        for deal in done:
            rows += [{**r, "seed": deal["seed"]} for r in deal["rows"]]
    return rows


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``a x = b`` by Gaussian elimination with partial pivoting (``a`` symmetric positive definite)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            if f:
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    x = [0.0] * n
    for c in reversed(range(n)):
        x[c] = (m[c][n] - sum(m[c][k] * x[k] for k in range(c + 1, n))) / m[c][c]
    return x


def fit(xs: list[list[float]], ys: list[float], l2: float = 1e-3, iterations: int = 10) -> list[float]:
    """Logistic regression weights by Newton's method with an L2 penalty (the mean log loss)."""
    n, d = len(xs), len(xs[0])
    w = [0.0] * d
    for _ in range(iterations):
        g = [l2 * v for v in w]
        h = [[l2 if i == j else 0.0 for j in range(d)] for i in range(d)]
        for x, y in zip(xs, ys):
            p = probability(w, x)
            r, s = (p - y) / n, p * (1 - p) / n
            for i in range(d):
                g[i] += r * x[i]
                si = s * x[i]
                if si:
                    hi = h[i]
                    for j in range(i, d):
                        hi[j] += si * x[j]
        for i in range(d):
            for j in range(i):
                h[i][j] = h[j][i]
        step = _solve(h, g)
        w = [a - b for a, b in zip(w, step)]
        if max(map(abs, step)) < 1e-6:
            break
    return w


def auc(ys: list[float], ps: list[float]) -> float:
    """The chance a positive row scores above a negative one (ties count half)."""
    order = sorted(range(len(ps)), key=ps.__getitem__)
    rank_sum, i = 0.0, 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and ps[order[j + 1]] == ps[order[i]]:
            j += 1
        mid = (i + j) / 2 + 1
        rank_sum += sum(mid for k in order[i:j + 1] if ys[k])
        i = j + 1
    pos = sum(1 for y in ys if y)
    neg = len(ys) - pos
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg) if pos and neg else 0.5


def report(rows: list[dict], held_out=lambda seed: seed % 4 == 0) -> dict:
    """Per next-seat state: the weights fitted on all rows, and on the rows of the
    deals not held out, the held-out AUC of the model and of ``knowledge.feeds``."""
    out = {"features": list(FEATURES)}
    feeds_at = FEATURES.index("feeds")
    for state in ("closed", "open"):
        part = [r for r in rows if r["opened"] == (state == "open")]
        train = [r for r in part if not held_out(r["seed"])]
        test = [r for r in part if held_out(r["seed"])]
        ys = [r["y"] for r in test]
        entry = {"rows": len(part), "took": round(sum(r["y"] for r in part) / max(1, len(part)), 4)}
        if train and test:
            w = fit([r["x"] for r in train], [r["y"] for r in train])
            entry["auc_model"] = round(auc(ys, [probability(w, r["x"]) for r in test]), 3)
            entry["auc_feeds"] = round(auc(ys, [r["x"][feeds_at] for r in test]), 3)
        entry["weights"] = [round(v, 4) for v in fit([r["x"] for r in part], [r["y"] for r in part])] if part else []
        out[state] = entry
    return out


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", default="hand")
    p.add_argument("--deals", type=int, default=800)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", type=Path, help="write the model (weights per next-seat state) here")
    a = p.parse_args(argv)
    rows = collect(a.mode, range(FIRST_SEED, FIRST_SEED + a.deals), a.workers)
    model = {"mode": a.mode, "deals": a.deals, **report(rows)}
    if a.out:
        a.out.write_text(json.dumps(model, indent=1))
    print(json.dumps({k: ({x: y for x, y in v.items() if x != "weights"} if isinstance(v, dict) else v)
                      for k, v in model.items() if k != "features"}), flush=True)
    return model


if __name__ == "__main__":
    main()
