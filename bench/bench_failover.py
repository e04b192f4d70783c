"""Room-owner fail-over: kill-to-next-accepted-move over N runs.

Each run is the SIGKILL scenario of tests/integration/test_room_failover.py
(Tansu, two room services as processes sharing a SQLite store, a 4-seat
match; the owner of the room is killed with SIGKILL mid-turn) and checks, as
the test does, that no accepted move is lost or doubled in the store, in any
Watch stream or on hand.room-events. Prints p50 / max of the time from the
kill to the next accepted move.

    .venv/bin/python bench/bench_failover.py [--runs 5] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.integration.failover_support import run_failover  # noqa: E402


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = []
    for i in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="hand-failover-") as tmp:
            result = await asyncio.wait_for(run_failover(Path(tmp)), 240)
        results.append(result)
        print(f"run {i + 1}: kill→next move {result['failover_s']:.2f} s, moves {result['moves']}, "
              f"stored {result['stored_moves']}", flush=True)
    times = [r["failover_s"] for r in results]
    lost = sum(r["moves"] - r["stored_moves"] for r in results if r["moves"] > r["stored_moves"])
    doubled = sum(r["stored_moves"] - r["moves"] for r in results if r["stored_moves"] > r["moves"])
    summary = {"runs": len(results), "p50_s": round(statistics.median(times), 2),
               "max_s": round(max(times), 2), "min_s": round(min(times), 2),
               "moves_lost": lost, "moves_doubled": doubled, "results": results}
    print(f"kill→next move over {len(results)} runs: p50 {summary['p50_s']} s, max {summary['max_s']} s; "
          f"moves lost {lost}, doubled {doubled}")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
