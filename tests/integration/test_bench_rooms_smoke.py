"""Smoke test of bench/bench_rooms.py: its core against the real stack, tiny (2 rooms, ~3 s).

Checks that the load generator runs the whole path and returns results of
the documented shape, and that it stops every process it started. Timings
are never asserted: speed is measured only by the bench itself.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.bench_support import load_bench

pytestmark = pytest.mark.bench  # make bench-smoke (out of make test: its time budget)


def _load():
    return load_bench("bench_rooms", "bench_rooms")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.timeout(180)
async def test_bench_core_runs_two_rooms_and_reports_every_figure() -> None:
    bench = _load()
    cfg = bench.Config(levels=[2], warmup_s=0.5, window_s=3.0, flat_rooms=2, flat_warmup_s=0.2, flat_s=1.0,
                       idle_s=0.5, profile_level=None, kafka_rt=10, echo_calls=20, create_concurrency=2,
                       channels=2)
    pids: dict[str, int] = {}
    original = bench.Stack.pids

    def spy_pids(self):
        pids.update(original(self))
        return original(self)

    bench.Stack.pids = spy_pids
    try:
        res = await bench.bench(cfg)
    finally:
        bench.Stack.pids = original

    json.dumps(res)  # the JSON file's content
    assert set(res) >= {"config", "baselines", "memory", "levels", "flat_out", "idle_cpu_share", "elapsed_s"}
    for name in ("kafka_rt", "kafka_produce", "grpc_echo"):
        assert res["baselines"][name]["n"] > 0 and res["baselines"][name]["p50_ms"] > 0
    assert set(res["memory"]) >= {"rooms", "kb_per_idle_room", "rss_before_mb", "rss_after_mb", "streams"}
    [level] = res["levels"]
    flat = res["flat_out"]
    assert level["rooms"] == 2 and level["pace_s"] == cfg.pace_s and flat["pace_s"] == 0
    for r in (level, flat):
        assert set(r["cpu_s"]) == {"room", "rules", "tansu", "bench", "others"}
        assert r["room_rss_mb"] > 0
        assert r["errors"] == {}
        for key in ("actions_per_s", "seen_p50_ms", "seen_p99_ms", "act_p50_ms", "act_p99_ms",
                    "seen_p50_over_kafka_rt", "seen_p99_over_echo", "cpu_ms_per_action", "settle_s"):
            assert key in r
    assert level["actions"] + flat["actions"] > 0, "no action went through the whole path"
    assert "| rooms | pace |" in bench.markdown(res)
    # every process the bench started is gone
    assert set(pids) == {"room", "rules", "tansu", "bench"}
    assert not [name for name, pid in pids.items() if name != "bench" and _alive(pid)]
    assert pids["bench"] == os.getpid()


@pytest.mark.timeout(240)
async def test_observability_cost_mode_runs_each_configuration_in_rounds_and_reports_ratios() -> None:
    """``--observability-cost``: A (metrics and traces off), B (metrics on), C (metrics on, traces
    exported to the bench's OTLP/HTTP sink), interleaved; each configuration really took effect."""
    bench = _load()
    from roomload import cost

    cfg = bench.Config(warmup_s=0.5, window_s=2.0, create_concurrency=2, channels=2, profile_level=None,
                       cost_rooms=3, cost_rounds=1)
    res = await cost.observability_cost(bench.Run, cfg)
    json.dumps(res)
    assert [p["config"] for p in res["phases"]] == ["off", "metrics", "traces"]  # round 1 starts with A
    off, metrics, traces = res["phases"]
    assert off["metrics_url"] is None  # no endpoint while metrics are off
    assert metrics["scraped"]["hand_room_commands_total"] > 0 and traces["scraped"]["hand_rpc_server_requests_total"] > 0
    assert off["spans_exported"] == metrics["spans_exported"] == 0 < traces["spans_exported"]
    for p in res["phases"]:
        assert p["actions"] > 0 and p["errors"] == {}
    assert set(res["ratios_to_off"]) == {"metrics", "traces"}
    assert res["ratios_to_off"]["metrics"]["n"] == 1
    assert "B: metrics on, traces off" in cost.markdown(res, 2, [0.0, 0.0, 0.0])
