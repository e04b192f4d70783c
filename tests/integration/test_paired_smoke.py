"""Smoke test of bench/paired.py: one round of two tiny stacks run at the same time, each
with its own settings, and the report of their ratio. Timings are never asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench_support import BENCH, load_bench

pytestmark = pytest.mark.bench  # make bench-smoke (out of make test: its time budget)


def test_a_variant_is_a_checkout_and_its_services_settings() -> None:
    paired = load_bench("paired")
    v = paired.Variant.parse("../main|HAND_ROOM_PASS_LINGER_MS=20,HAND_LOG_CALLS=all")
    assert v.directory == Path("../main").resolve()
    assert v.env == {"HAND_ROOM_PASS_LINGER_MS": "20", "HAND_LOG_CALLS": "all"}
    assert paired.Variant.parse(".").env == {}


@pytest.mark.timeout(240)
def test_one_round_runs_both_stacks_and_reports_their_ratio(tmp_path: Path) -> None:
    root = BENCH.parent
    out = tmp_path / "paired.json"
    done = subprocess.run(
        [sys.executable, str(BENCH / "paired.py"), "--a", str(root),
         "--b", f"{root}|HAND_ROOM_PUBLISH_LINGER_MS=0", "--rounds", "1", "--rooms", "2", "--window", "2",
         "--warmup", "0.5", "--json", str(out)], capture_output=True, text=True, timeout=230)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(out.read_text())
    (round_,) = got["rounds"]
    assert round_["a_act_s"] > 0 and round_["b_act_s"] > 0
    assert round_["ratio"] == pytest.approx(round_["b_ms"] / round_["a_ms"], abs=0.001)
    assert got["median_ratio"] == round_["ratio"]
    assert "B ÷ A" in done.stdout
