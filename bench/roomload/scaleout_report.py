"""The scale-out bench's figures per level (from the client processes' results and /proc)
and its markdown tables, with every figure also as a ratio to N = 1 of the same run."""

from __future__ import annotations

import collections
from typing import Any

from .measure import pct


def _r(x: float | None, nd: int = 1) -> float | None:
    return None if x is None else round(x, nd)


def aggregate(*, phase: str, instances: int, rooms: int, pace: float, window: float, results: list[dict],
              cpu0: dict[str, float], cpu1: dict[str, float], addresses: dict[str, str],
              bus: dict[str, dict[str, int]], bus_source: str) -> dict[str, Any]:
    ok = [r for r in results if not r.get("failed")]
    seen = [s for r in ok for s in r["seen"]]
    act = [s for r in ok for s in r["act"]]
    sums: dict[str, collections.Counter] = {k: collections.Counter() for k in
                                            ("refusals", "redirects", "errors", "acts_at")}
    for r in ok:
        for k in sums:
            sums[k].update(r.get(k, {}))
    actions = len(seen)
    d = {k: cpu1[k] - cpu0[k] for k in cpu1 if k in cpu0}
    room_names = sorted((k for k in d if k.startswith("room")), key=lambda k: int(k[4:]))
    per_instance_acts = collections.Counter()
    for addr, count in sums["acts_at"].items():
        per_instance_acts[addresses.get(addr, addr)] += count
    room_cpu = sum(d[k] for k in room_names)
    skipped = {k: round((v["received"] - v["decoded"]) / v["received"], 3) if v["received"] else 0.0
               for k, v in sorted(bus.items())}
    return {
        "phase": phase, "instances": instances, "rooms": rooms, "target_act_s": round(rooms / pace, 1),
        "actions": actions, "actions_per_s": round(actions / window, 1),
        "seen_p50_ms": _r(pct(seen, 50)), "seen_p99_ms": _r(pct(seen, 99)),
        "act_p50_ms": _r(pct(act, 50)), "act_p99_ms": _r(pct(act, 99)),
        "room_cpu_cores": round(room_cpu / window, 3),
        "room_cpu_ms_per_action": round(room_cpu * 1000 / actions, 2) if actions else None,
        "instance_cpu_cores": {k: round(d[k] / window, 3) for k in room_names},
        "instance_acts": {k: per_instance_acts.get(k, 0) for k in room_names},
        "instance_cpu_ms_per_action": {k: (round(d[k] * 1000 / per_instance_acts[k], 2)
                                           if per_instance_acts.get(k) else None) for k in room_names},
        "broker_cpu_cores": round(d.get("tansu", 0.0) / window, 3),
        "client_cpu_cores": round(sum(v for k, v in d.items() if k.startswith("client")) / window, 3),
        "skipped_share": skipped or None, "bus": bus, "bus_source": bus_source,
        "refusals": dict(sums["refusals"]), "redirects": dict(sums["redirects"]), "errors": dict(sums["errors"]),
        "errors_whole_run": dict(sum((collections.Counter(r.get("errors_total", {})) for r in ok),
                                     collections.Counter())),
        "client_processes_failed": len(results) - len(ok),
        "details": {k: v for r in ok for k, v in r.get("details", {}).items()},
    }


def _fmt(x: float | None, nd: int = 1) -> str:
    return "–" if x is None else f"{x:,.{nd}f}"


def _ratio(x: float | None, base: float | None) -> str:
    return f" ({x / base:.2f}×)" if x is not None and base else ""


def _codes(counts: dict[str, int]) -> str:
    return ", ".join(f"{v:,} `{k}`" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])) or "0"


def table(runs: list[dict], capacity: float | None = None) -> str:
    lines = ["| instances | rooms (target act/s) | achieved act/s | act→seen p50 / p99 ms | room CPU ms/action: "
             "total | per instance | room CPU cores per instance | skipped share per instance | broker CPU | "
             "client CPU | refusals by code | redirects | errors |",
             "|---:|---:|---:|---:|---:|---|---|---|---:|---:|---|---|---|"]
    base = {}
    for r in runs:
        if r["instances"] == 1:
            base.setdefault(r["rooms"], r)
    for r in runs:
        b = base.get(r["rooms"]) if r["instances"] != 1 else None
        share = f" = {r['actions_per_s'] / capacity:.0%} of cap." if capacity and r["phase"] == "2x capacity" else ""
        ready = f", {r['rooms_ready']:,} ready" if r.get("rooms_ready", r["rooms"]) < r["rooms"] else ""
        per = ", ".join(_fmt(v, 2) for v in r["instance_cpu_ms_per_action"].values())
        cores = ", ".join(f"{v:.2f}" for v in r["instance_cpu_cores"].values())
        skipped = ", ".join(f"{v:.0%}" for v in r["skipped_share"].values()) if r["skipped_share"] else "n/a"
        lines.append(
            f"| {r['instances']} | {r['rooms']:,} ({r['target_act_s']:,.0f}){ready} | "
            f"**{_fmt(r['actions_per_s'], 0)}**{_ratio(r['actions_per_s'], b and b['actions_per_s'])}{share} | "
            f"{_fmt(r['seen_p50_ms'])} / {_fmt(r['seen_p99_ms'])}{_ratio(r['seen_p99_ms'], b and b['seen_p99_ms'])} | "
            f"{_fmt(r['room_cpu_ms_per_action'], 2)}"
            f"{_ratio(r['room_cpu_ms_per_action'], b and b['room_cpu_ms_per_action'])} | {per} | {cores} | "
            f"{skipped} | {r['broker_cpu_cores']:.2f} | {r['client_cpu_cores']:.2f} | {_codes(r['refusals'])} | "
            f"{_codes(r['redirects'])} | {_codes(r['errors'])} |")
    return "\n".join(lines)


def markdown(doc: dict) -> str:
    cfg = doc["config"]
    out = [f"Scale-out: {doc['cpus']} CPUs, {cfg['clients']} client processes, store {cfg['store']}, "
           f"pace {cfg['pace']} s, warm-up {cfg['warmup']} s, window {cfg['window']} s "
           "(ratios in parentheses: to N = 1 at the same rooms, same run)."]
    same = [r for r in doc["runs"] if r["phase"] != "2x capacity"]
    if same:
        out += ["", "**Same load**", "", table(same)]
    twice = [r for r in doc["runs"] if r["phase"] == "2x capacity"]
    if twice:
        cap = doc.get("capacity_act_s")
        out += ["", f"**2× one instance's capacity** (capacity {_fmt(cap, 0)} act/s)", "", table(twice, cap)]
    return "\n".join(out)
