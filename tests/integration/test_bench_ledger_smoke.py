"""Smoke test of bench/bench_ledger.py: a tiny run (SQLite and a throwaway PostgreSQL)
reports every figure. Timings are never asserted: speed lives in bench/."""

from __future__ import annotations

import json
import math

import pytest

from tests.bench_support import load_bench


def positive(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0


@pytest.mark.timeout(300)
def test_bench_ledger_quick_run_reports_ingest_for_both_stores_and_replay(tmp_path, capsys) -> None:
    bench = load_bench("bench_ledger")
    out = tmp_path / "ledger.json"
    res = bench.main(["--quick", "--json", str(out)])
    assert json.loads(out.read_text()) == json.loads(json.dumps(res))
    assert [r["backend"] for r in res["ingest"]] == ["sqlite", "postgresql"]
    for r in res["ingest"]:
        assert r["events"] > 100
        assert all(positive(r[k]) for k in ("bare_rows_per_s", "ledger_events_per_s", "ledger_x_bare"))
    rp = res["replay"]
    assert rp["moves"] > 10 and all(positive(rp[k]) for k in ("apply_cpu_ms", "fold_cpu_ms", "check_cpu_ms"))
    md = capsys.readouterr().out
    assert "| sqlite |" in md and "| postgresql |" in md and "replay check" in md
