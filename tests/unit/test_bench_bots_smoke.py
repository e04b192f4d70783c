"""Smoke test of bench/bench_bots.py: a tiny in-process run reports its sections
(the expert on a small rollout budget).
Timings and strengths are never asserted here (they live in docs/bots.md)."""

from __future__ import annotations

import json

import pytest

from tests.bench_support import BENCH, load_bench
from tests.scale_support import examples


def load():
    return load_bench("bench_bots")


@pytest.mark.bench  # 30 s on 2 CPUs: with the other benchmarks' smoke runs (make bench-smoke), out of make test's budget
def test_bench_bots_tiny_run_reports_strength_and_latency(tmp_path, capsys) -> None:
    bench = load()
    out = tmp_path / "bots.json"
    res = bench.main(["--rounds", "5", "--deals", "1", "--workers", "0", "--modes", "hand", "saudi",
                      "--team-modes", "partnership", "--sections", "table", "duels", "--expert-rollouts", str(examples(6, 2)),
                      "--json", str(out)])
    assert json.loads(out.read_text()) == json.loads(json.dumps(res))
    assert set(res) == {"strength", "latency", "duels", "curve", "table_rounds", "meta"}
    assert [len(res["table_rounds"][m]) for m in ("hand", "saudi")] == [5, 5]
    assert set(res["strength"]) == {"hand", "saudi"}
    for mode, s in res["strength"].items():
        assert set(s["levels"]) == set(bench.LEVELS) == set(s["ratings"])
        assert sum(s["finishes"].values()) == 5
        for t in s["levels"].values():
            assert t["rounds"] == 4  # five rounds, each level sits out one
            for key in ("won_rate", "opened_rate", "hand_rate"):
                p, lo, hi = t[key]
                assert 0 <= lo <= p <= hi <= 1
        # per round, the pairwise shares of a pair of levels add up to one
        for a in bench.LEVELS:
            for b in bench.LEVELS:
                if a < b:
                    assert abs(s["pairs"][f"{a}>{b}"][0] + s["pairs"][f"{b}>{a}"][0] - 1) < 1e-9
    for lv in bench.LEVELS:
        t = res["latency"][lv]
        assert t["decisions"] >= t["turns"] > 0
        assert 0 < t["decision_cpu_p50_ms"] <= t["decision_cpu_p99_ms"]
    assert set(res["duels"]) == {"expert vs strong, hand", "expert vs strong, saudi",
                                 "expert team vs strong team, partnership"}
    for d in res["duels"].values():
        assert d["rounds"] == 2 and 0 <= d["won"][0] <= 1 and d["decisions"] > 0
        assert set(d["openings"]) == {"fewer", "more", "won_equal", "won_differ"}
        assert len(d["per_deal"][0]["fewer_closed"]) == 2
    md = capsys.readouterr().out
    for title in ("Strength — hand mode", "Strength — saudi mode", "Latency", "Expert against strong"):
        assert title in md


def test_ratings_rank_the_level_that_always_scores_least_first() -> None:
    bench = load()
    rounds = [{"levels": bench.seat_levels(seed), "scores": None} for seed in range(40)]
    for r in rounds:  # a fixed order of strength: expert best, random worst
        r["scores"] = [bench.LEVELS.index(lv) * 10 for lv in r["levels"]]
    ratings = bench.ratings(rounds)
    for kind in ("chronological", "median"):
        ordinals = [ratings[lv][kind][2] for lv in bench.LEVELS]
        assert ordinals == sorted(ordinals, reverse=True)
    for lv in bench.LEVELS:
        lo, hi = ratings[lv]["ordinal_ci"]
        assert lo <= ratings[lv]["median"][2] <= hi


def test_seats_rotate_so_every_level_plays_every_seat() -> None:
    bench = load()
    seats = {lv: {bench.seat_levels(seed).index(lv) for seed in range(20) if lv in bench.seat_levels(seed)}
             for lv in bench.LEVELS}
    assert all(s == {0, 1, 2, 3} for s in seats.values())
    # each level sits out one round in five and meets every other level in three
    assert all(sum(lv in bench.seat_levels(seed) for seed in range(5)) == 4 for lv in bench.LEVELS)


def test_run_all_gives_the_bots_bench_its_own_time_limit() -> None:
    run_all = load_bench("run_all")
    assert run_all.time_limit_of(BENCH / "bench_bots.py") >= 3600
    assert run_all.time_limit_of(BENCH / "bench_engine.py") == 0
