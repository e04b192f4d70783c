"""research/botlab/take_model.py: its features read only what the seat sees, the fit and the AUC
are right on data whose answer is known, one deal yields labelled rows, and
screen_bounds' learned-takes variant plays with a model it wrote (figures are
never asserted: docs/decisions/0014)."""

from __future__ import annotations

import json
import random

from hand_bot.history import public_history
from hand_bot.knowledge import Knowledge
from research.botlab import screen_bounds as bounds
from research.botlab import take_model as tm
from tests.bot_support import played, reshuffle_hidden, seen_by


def test_a_run_neighbour_is_counted_with_the_ace_low_and_high() -> None:
    assert tm._run_ranks(0, 1) == {1, 12}  # A: the 2 and the K
    assert tm._run_ranks(0, 2) == {2, 11}  # A: the 3 and the Q
    assert tm._run_ranks(12, 1) == {11, 0}  # K: the Q and the A
    assert tm._run_ranks(1, 2) == {3}  # 2: the 4 only (K-A-2 is no run)
    assert tm._run_ranks(6, 2) == {4, 8}


def test_the_features_are_alike_in_positions_differing_only_in_hidden_cards() -> None:
    state, log = played("hand", 5, 60)
    seat = state.turn.seat
    history = public_history(seen_by(log, seat))
    nxt = (seat + 1) % 4
    rows = []
    other = reshuffle_hidden(state, seat, 99)
    assert other.seats[nxt].hand != state.seats[nxt].hand
    for true in (state, other):  # read on the true positions: a hidden card read would show
        know = Knowledge.of(true, seat)
        rows.append([tm.features(c, nxt, know, true, history) for c in true.seats[seat].hand if c < 104])
    assert rows[0] == rows[1] and len(rows[0][0]) == len(tm.FEATURES)


def test_the_fit_recovers_a_planted_model_and_the_auc_orders_rows() -> None:
    rng = random.Random(1)
    truth = [-1.0, 2.0, -0.5]
    xs = [[1.0, rng.random(), rng.random()] for _ in range(4000)]
    ys = [1.0 if rng.random() < tm.probability(truth, x) else 0.0 for x in xs]
    w = tm.fit(xs, ys, l2=0.0)
    assert all(abs(a - b) < 0.35 for a, b in zip(w, truth))
    assert tm.auc([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4]) == 1.0
    assert tm.auc([1, 1, 0, 0], [0.1, 0.2, 0.3, 0.4]) == 0.0
    assert tm.auc([0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5]) == 0.5


def test_one_deal_yields_labelled_rows_and_learned_takes_plays_with_the_model(tmp_path) -> None:
    model = tm.main(["--deals", "2", "--workers", "0", "--out", str(tmp_path / "m.json")])
    for state in ("closed", "open"):
        assert len(model[state]["weights"]) == len(tm.FEATURES)
    assert json.loads((tmp_path / "m.json").read_text())["closed"] == model["closed"]
    rows = tm.collect("hand", range(tm.FIRST_SEED, tm.FIRST_SEED + 1), 0)
    assert rows and {r["y"] for r in rows} <= {0.0, 1.0} and all(len(r["x"]) == len(tm.FEATURES) for r in rows)
    out = bounds.main(["learned-takes", "--deals", "1", "--workers", "0", "--take-model", str(tmp_path / "m.json")])
    assert [r["variant"] for r in out] == ["honest", "learned-takes"]
