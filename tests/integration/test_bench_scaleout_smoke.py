"""Smoke test of bench/bench_rooms_scaleout.py: 1 and 2 room instances, a few rooms, short windows.

Checks that the services and the client processes run the whole path (create, join,
watch, act through the room's owner), that the results have the documented shape,
and that no process the bench started is left behind. Timings are never asserted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench_support import load_bench

pytestmark = pytest.mark.bench  # make bench-smoke (out of make test: its time budget)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.timeout(300)
async def test_scaleout_quick_runs_one_and_two_instances_through_the_owner(tmp_path: Path) -> None:
    bench = load_bench("bench_rooms_scaleout")
    a = bench.parse(["--quick", "--instances", "1", "2", "--rooms", "4", "--ignore-owner",
                     "--json", str(tmp_path / "so.json"), "--md", str(tmp_path / "so.md")])
    a.settle, a.warmup, a.window = 1.0, 0.5, 2.0
    pids: list[int] = []
    original = bench.Fleet.pids

    def spy(self):
        got = original(self)
        pids.extend(got.values())
        return got

    bench.Fleet.pids = spy
    try:
        doc = await bench.bench(a)
    finally:
        bench.Fleet.pids = original

    assert json.loads((tmp_path / "so.json").read_text())["runs"] == json.loads(json.dumps(doc["runs"]))
    assert [r["instances"] for r in doc["runs"]] == [1, 2]
    for r in doc["runs"]:
        assert r["rooms_ready"] == 4 and r["client_processes_failed"] == 0
        assert r["errors"] == {} and not [k for k in r["refusals"] if not k.endswith("/OVERLOADED")]
        assert set(r["instance_cpu_cores"]) == {f"room{i}" for i in range(r["instances"])}
        for key in ("actions_per_s", "seen_p50_ms", "seen_p99_ms", "room_cpu_ms_per_action", "broker_cpu_cores",
                    "client_cpu_cores", "skipped_share", "instance_cpu_ms_per_action", "redirects"):
            assert key in r
    assert sum(r["actions"] for r in doc["runs"]) > 0, "no action went through the whole path"
    # two instances, seats on random ones, RoomInfo.owner ignored: some seat was sent to the owner
    assert sum(doc["runs"][1]["redirects"].values()) > 0
    assert "| instances |" in (tmp_path / "so.md").read_text()
    assert pids and not [p for p in pids if _alive(p)]
