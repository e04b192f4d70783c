"""Smoke test of bench/bench_bots.py: a tiny in-process run reports every section.
Timings and strengths are never asserted here (they live in docs/bots.md)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_bots.py"


def load():
    spec = importlib.util.spec_from_file_location("bench_bots_under_test", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_bench_bots_tiny_run_reports_strength_and_latency(tmp_path, capsys) -> None:
    bench = load()
    out = tmp_path / "bots.json"
    res = bench.main(["--rounds", "4", "--workers", "0", "--modes", "hand", "saudi", "--json", str(out)])
    assert json.loads(out.read_text()) == json.loads(json.dumps(res))
    assert set(res) == {"strength", "latency", "meta"} and set(res["strength"]) == {"hand", "saudi"}
    for mode, s in res["strength"].items():
        assert set(s["levels"]) == set(bench.LEVELS)
        assert sum(s["finishes"].values()) == 4
        for t in s["levels"].values():
            assert t["rounds"] == 4
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
    md = capsys.readouterr().out
    for title in ("Strength — hand mode", "Strength — saudi mode", "Latency"):
        assert title in md


def test_seats_rotate_so_every_level_plays_every_seat() -> None:
    bench = load()
    seats = {lv: {bench.seat_levels(seed).index(lv) for seed in range(4)} for lv in bench.LEVELS}
    assert all(s == {0, 1, 2, 3} for s in seats.values())


def test_run_all_gives_the_bots_bench_its_own_time_limit() -> None:
    spec = importlib.util.spec_from_file_location("run_all_under_test", BENCH.parent / "run_all.py")
    run_all = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_all)
    assert run_all.time_limit_of(BENCH) >= 3600
    assert run_all.time_limit_of(BENCH.parent / "bench_engine.py") == 0
