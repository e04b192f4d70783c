"""Smoke test of research/botlab/expert_oracle.py: positions with their oracle values, and the
expert's picks scored against them (figures are never asserted: docs/decisions/0014)."""

from __future__ import annotations

from research.botlab import expert_oracle


def test_collect_and_evaluate_one_round() -> None:
    oracle = expert_oracle
    rows = oracle.collect("hand", 1, 0)
    assert rows and all(len(r["cands"]) == len(r["oracle"]) > 1 for r in rows)
    before = oracle.rollout.HORIZON
    s = oracle.evaluate(rows[:4], oracle.expert.Budget(rollouts=6, cpu_ms=None), None)
    assert oracle.rollout.HORIZON == before  # the oracle's full horizon does not leak into the search
    assert s["n"] == 4 and 0 <= s["deviate"] <= 1 and s["ceiling"] >= 0
