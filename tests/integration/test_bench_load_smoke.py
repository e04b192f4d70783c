"""Smoke runs of the two long benches (tiny configurations; timings are never asserted):
bench/bench_fuzz_load.py — a flooder beside normal players — and bench/soak_broker.py —
the embedded stack at human pace with the broker's memory bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from hand_infra.settings import kafka_settings
from tests.bench_support import load_bench

pytestmark = [pytest.mark.bench, pytest.mark.skipif(not kafka_settings().embedded, reason="starts the embedded broker")]


@pytest.fixture(autouse=True)
def _keep_the_suites_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    """The benches configure structlog for a terminal; in a test worker that would stay
    configured for the tests after (capture_logs could no longer see cached loggers)."""
    import hand_common.logging

    monkeypatch.setattr(hand_common.logging, "configure_logging", lambda *a, **k: None)


def load(name: str):
    return load_bench(name)


@pytest.mark.timeout(180)
def test_fuzz_load_bench_measures_players_beside_a_flooder_that_gets_only_clean_refusals(tmp_path: Path) -> None:
    res = load("bench_fuzz_load").main(["--rooms", "2", "--window", "5", "--rate", "30", "--concurrency", "4", "--cycles", "2",
                                        "--json", str(tmp_path / "f.json")])
    phases = res["phases"]
    assert [p["phase"].split()[0] for p in phases] == ["quiet", "fuzz", "quiet", "fuzz", "fuzz", "quiet"]
    assert set(res["pooled"]) == {"quiet", "fuzz 30/s", "fuzz flat out (4 in flight)"}
    assert res["pooled"]["quiet"]["actions"] == sum(p["actions"] for p in phases if p["phase"] == "quiet")
    assert all(p["actions"] > 0 and p["seen_p99_ms"] > 0 for p in phases)
    for p in (phases[1], phases[3], phases[4]):
        statuses = p["flood"]["statuses"]
        assert p["flood"]["sent"] > 0 and sum(statuses.values()) == p["flood"]["sent"]
        assert not set(statuses) & {"UNKNOWN", "INTERNAL", "DEADLINE_EXCEEDED"}, statuses
        assert statuses.get("INVALID_ARGUMENT", 0) > 0


@pytest.mark.timeout(180)
def test_soak_bench_plays_rooms_and_the_ledger_ends_with_every_stored_event(tmp_path: Path) -> None:
    res = load("soak_broker").main(["--duration", "24", "--rooms", "3", "--bin", "8", "--window", "8",
                                    "--json", str(tmp_path / "s.json")])
    assert len(res["bins"]) == 3 and all(b["actions"] > 0 for b in res["bins"])
    assert res["first"]["seen_p99_ms"] > 0 and res["seen_p99_ratio"] > 0
    assert res["ledger"]["stored_events"] > 0 and res["ledger"]["missing_in_ledger"] == 0
    assert res["bins"][-1]["rss_mb"]["tansu"] > 0
