"""Smoke test of the benchmark scripts: a tiny configuration runs and reports
the expected structure. Timings are never asserted (speed lives in bench/)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.bench_support import load_bench


def load(name: str):
    return load_bench(name, f"bench_{name}_under_test")


@pytest.fixture(scope="module")
def engine():
    return load("bench_engine")


def positive(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0


def test_bench_engine_tiny_run_reports_every_section(engine, tmp_path, capsys):
    out = tmp_path / "engine.json"
    res = engine.main([
        "--rounds", "1", "--reps", "20", "--hands", "20",
        "--presets", "hand", "eram-saudi-partnership", "--modes", "hand", "saudi-partnership",
        "--json", str(out),
    ])
    assert json.loads(out.read_text()) == json.loads(json.dumps(res))
    assert set(res) == {"meta", "baseline", "rounds", "apply", "suggest"}
    meta = res["meta"]
    assert meta["config"]["rounds"] == 1 and meta["config"]["reps"] == 20
    assert set(meta["sections"]) == {"rounds", "apply", "suggest"}
    assert all(positive(v["baseline_ops_per_s"]) for v in meta["sections"].values())
    assert positive(res["baseline"]["ops_per_s"]) and res["baseline"]["blocks"] >= 3

    assert [r["preset"] for r in res["rounds"]] == ["hand", "eram-saudi-partnership"]
    for r in res["rounds"]:
        assert r["rounds"] == 1 and r["moves"] > 0 and r["mode"] == (r["preset"] == "hand")
        assert all(positive(r[k]) for k in ("rounds_per_s", "ms_per_round", "cpu_ms_per_round", "round_x_op"))

    assert {(r["move"], r["mode"]) for r in res["apply"]} == {
        (m, mode) for m in ("draw_stock", "discard", "open_3_melds") for mode in ("hand", "saudi-partnership")
    }
    for r in res["apply"]:
        assert r["reps"] == 20
        assert all(positive(r[k]) for k in ("p50_us", "p99_us", "cpu_mean_us", "p50_x_op", "p99_x_op"))
        assert r["p50_us"] <= r["p99_us"]

    assert {(r["goal"], r["mode"]) for r in res["suggest"]} == {
        (g, mode) for g in ("opening", "shed") for mode in ("hand", "saudi-partnership")
    }
    for r in res["suggest"]:
        assert r["hands"] == 20 and r["goal_ms"] == 20
        assert r["p50_ms"] <= r["p99_ms"] <= r["max_ms"]
        assert isinstance(r["meets_goal"], bool) and isinstance(r["cpu_meets_goal"], bool)
        assert len(r["slowest_hand"].split()) == 15 and "JK#2" in r["slowest_hand"]

    md = capsys.readouterr().out
    tables: list[list[str]] = []  # runs of consecutive table lines
    previous = ""
    for line in md.splitlines():
        if line.startswith("|"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(line)
        previous = line
    assert [len(t) - 2 for t in tables] == [2, 6, 4]  # rows under header and rule
    for t in tables:
        assert len({line.count("|") for line in t}) == 1
    for title in ("Random legal play", "apply latency", "suggest latency"):
        assert title in md


def test_bench_engine_hands_hold_both_jokers(engine):
    hands = engine.random_hands(50, seed=1)
    assert hands == engine.random_hands(50, seed=1)
    for h in hands:
        assert len(h) == len(set(h)) == 15 and {104, 105} <= set(h)


def test_run_all_keeps_sections_of_scripts_not_rerun(tmp_path):
    run_all = load("run_all")
    doc = tmp_path / "b.md"
    doc.write_text("# Benchmarks\n\nold header\n\n" + run_all.MARK.format("bench_a.py") + "\n## a\n\nA\n\n"
                   + run_all.MARK.format("bench_b.py") + "\n## b\n\nB\n")
    sections = run_all.old_sections(doc)
    assert list(sections) == ["bench_a.py", "bench_b.py"]
    assert sections["bench_b.py"].endswith("## b\n\nB\n") and "old header" not in sections["bench_a.py"]
    scripts = [Path("bench_a.py"), Path("bench_b.py")]
    assert run_all.pick(scripts, ["a", "bench_b.py"]) == scripts
    with pytest.raises(SystemExit):
        run_all.pick(scripts, ["c"])
    head = run_all.header("2026-01-01 00:00 UTC", False, [("CPUs (`nproc`)", "2")])
    assert head.startswith("# Benchmarks") and "| CPUs (`nproc`) | 2 |" in head and "## Method" in head
