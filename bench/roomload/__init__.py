"""A small load client for the room service, shared by bench/bench_rooms*.py.

- ``measure``: progress lines, percentiles, CPU and memory of processes (/proc);
- ``processes``: a service or the embedded broker as a child process that dies
  with the bench (``hand_infra._proc`` waits for and stops them);
- ``stack``: Tansu + rules service + room service, each its own process;
- ``baselines``: bare Kafka and gRPC round trips;
- ``clients``: scripted rooms: seats with their Watch streams, timing samples;
- ``owners``: the same, reaching each room's owner (redirects, fallback, overload retries);
- ``loadprocs`` / ``loadproc``: the client load as separate processes / one of them;
- ``fleet``: Tansu, a store and N room instances as processes (the scale-out benches);
- ``profiling``: py-spy or cProfile samples of the room service, summarized.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for _p in (ROOT / "services", ROOT / "gen"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))
