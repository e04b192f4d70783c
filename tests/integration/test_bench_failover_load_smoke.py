"""Smoke test of bench/bench_failover_load.py: two room instances, a few rooms at human pace,
one instance killed (SIGKILL) while they play.

Checks the whole path the bench measures — seats that lose their owner fall back to a live
instance (docs/clients.md §8), the survivor takes the rooms over, play goes on — and that
no accepted move is lost or repeated on any stream. Timings are never asserted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench_support import load_bench

pytestmark = pytest.mark.bench  # make bench-smoke (out of make test: its time budget)


@pytest.mark.timeout(300)
async def test_failover_under_load_quick_loses_no_move_and_every_room_plays_on(tmp_path: Path) -> None:
    bench = load_bench("bench_failover_load")
    a = bench.parse(["--quick", "--json", str(tmp_path / "fo.json")])
    doc = await bench.main(a)

    assert json.loads((tmp_path / "fo.json").read_text())["runs"] == json.loads(json.dumps(doc["runs"]))
    [run] = doc["runs"]
    assert run["rooms_ready"] == a.rooms and run["client_processes_failed"] == 0
    assert run["moves_hit"] > 0 and run["kill_to_move_max_s"] is not None
    assert run["rooms_stalled"] == 0, run  # every room that moved before the kill moved after it
    # every accepted move reached both seats' streams, once and in order
    assert not {k: v for k, v in run["errors"].items() if "stream" in k or "not seen" in k}, run["errors"]
    assert run["redirects"].get("fallback", 0) > 0, "no seat lost its owner: the kill hit nothing"
