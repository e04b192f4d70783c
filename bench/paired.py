"""Two room-service variants under the same load *at the same time*: the paired A/B.

On a shared machine one run of ``bench_rooms.py`` reads ±15–20 % from the next (other
tenants, frequency, caches), so variants alternated run by run could not resolve a 5–10 %
change in room CPU per action. Here each round starts both variants' whole stacks (Tansu,
the room service, the rules service, the clients: ``bench_rooms.py`` in each checkout, on
ports of its own) together, so both see the same hour of the machine; the start order
alternates round by round. Per round: B's room CPU per action ÷ A's. Two copies of one
checkout read 0.998 and 1.007 (2 CPUs, 300 rooms: ~1.2 of a CPU for both stacks).

A variant is a checkout directory (its ``.venv``, ``services``, ``gen``), optionally with
environment settings for its services: ``DIR`` or ``DIR|NAME=VALUE,NAME=VALUE``.

    .venv/bin/python bench/paired.py --a ../main --b ".|HAND_ROOM_PASS_LINGER_MS=20"
        [--rounds 3] [--rooms 300] [--window 20] [--warmup 4] [--json PATH]

Markdown on stdout, progress on stderr. A tool, not one of ``make bench``'s ``bench_*.py``
(those run without arguments).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Variant:
    """A checkout and the settings its services run with."""

    directory: Path
    env: dict[str, str]
    label: str

    @classmethod
    def parse(cls, spec: str) -> Variant:
        where, _, settings = spec.partition("|")
        env = dict(item.split("=", 1) for item in settings.split(",") if item)
        return cls(Path(where).resolve(), env, spec)

    def start(self, rooms: int, window: float, warmup: float, out: Path) -> subprocess.Popen:
        python = self.directory / ".venv" / "bin" / "python"
        env = {**os.environ, **self.env, "PYTHONPATH": "services:gen"}
        return subprocess.Popen(
            [str(python if python.exists() else sys.executable), "bench/bench_rooms.py", "--levels", str(rooms),
             "--window", str(window), "--warmup", str(warmup), "--flat-rooms", "2", "--flat", "1",
             "--profile-level", "0", "--json", str(out)],
            cwd=self.directory, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def level(path: Path) -> dict:
    """The one load level of a ``bench_rooms.py`` results file."""
    return json.loads(path.read_text())["levels"][0]


def run_round(a: Variant, b: Variant, first_b: bool, rooms: int, window: float, warmup: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        outs = {"a": Path(tmp) / "a.json", "b": Path(tmp) / "b.json"}
        order = [("b", b), ("a", a)] if first_b else [("a", a), ("b", b)]
        procs = []
        for name, variant in order:
            procs.append((name, variant.start(rooms, window, warmup, outs[name])))
            time.sleep(0.5)
        for name, proc in procs:
            if proc.wait() != 0:
                raise SystemExit(f"bench_rooms.py of {name} exited {proc.returncode}")
        got = {name: level(path) for name, path in outs.items()}
    cpu = {name: got[name]["cpu_ms_per_action"]["room"] for name in got}
    return {"a_ms": cpu["a"], "b_ms": cpu["b"], "ratio": round(cpu["b"] / cpu["a"], 3),
            "a_act_s": got["a"]["actions_per_s"], "b_act_s": got["b"]["actions_per_s"],
            "a_p99_ms": round(got["a"]["seen_p99_ms"], 1), "b_p99_ms": round(got["b"]["seen_p99_ms"], 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", required=True, help="the baseline: DIR or 'DIR|NAME=VALUE,...'")
    p.add_argument("--b", required=True, help="the variant, the same way")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--rooms", type=int, default=300, help="rooms at human pace (300: ~150 act/s)")
    p.add_argument("--window", type=float, default=20.0)
    p.add_argument("--warmup", type=float, default=4.0)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    a, b = Variant.parse(args.a), Variant.parse(args.b)
    rounds = []
    for i in range(args.rounds):
        r = run_round(a, b, first_b=i % 2 == 1, rooms=args.rooms, window=args.window, warmup=args.warmup)
        print(f"round {i + 1}: A {r['a_ms']} ms, B {r['b_ms']} ms, B/A {r['ratio']}", file=sys.stderr)
        rounds.append(r)
    median = statistics.median(r["ratio"] for r in rounds)
    print(f"## Paired: {args.rooms} rooms, {args.window:g} s windows, {args.rounds} rounds\n")
    print(f"A = `{a.label}`, B = `{b.label}`\n")
    print("| round | A act/s | A room CPU/action | A p99 | B act/s | B room CPU/action | B p99 | B ÷ A |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for i, r in enumerate(rounds, 1):
        print(f"| {i} | {r['a_act_s']} | {r['a_ms']} ms | {r['a_p99_ms']} ms | {r['b_act_s']} | {r['b_ms']} ms "
              f"| {r['b_p99_ms']} ms | {r['ratio']} |")
    print(f"\nMedian B ÷ A: **{median:.3f}**")
    if args.json:
        args.json.write_text(json.dumps({"a": a.label, "b": b.label, "rooms": args.rooms, "rounds": rounds,
                                         "median_ratio": median}, indent=2))


if __name__ == "__main__":
    main()
