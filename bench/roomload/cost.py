"""What metrics and traces cost the room service, in one run (``bench_rooms.py --observability-cost``).

Issue 25's cost goal: CPU per action with metrics on and traces off ≤ 1.05× with both off;
with traces exported, the ratio reported. Three configurations of the room service, each
phase a fresh stack (Tansu, rules, room: nothing carried from one phase to the next),
interleaved in rounds — A B C, B C A, C A B, A B C … (each round rotated by one, so no
configuration always runs first after a stack's teardown) — so that the machine's drift
(other users' jobs on these shared CPUs) lands on every configuration alike:

- **A, off**: ``HAND_METRICS_ENABLED=off``, no ``HAND_OTLP_ENDPOINT``;
- **B, metrics**: metrics on (the default), its ``/metrics`` endpoint served (scraped once
  after the window, to check the counters moved), traces off;
- **C, metrics + traces**: B, and every command traced (``HAND_TRACE_SAMPLE_RATIO=1``, the
  default) and exported over OTLP/HTTP to a sink in this process (``/v1/traces``, 200 to
  every POST; the spans it decodes are counted).

Each phase: N rooms (default 300) created, both seats' Watch streams open, human pace (one
action per room every 2 s: 150 act/s), a warm-up, then a measured window: room-service CPU
(every thread, ``/proc/<pid>/stat``) ÷ actions in the window. Ratios are per round (B ÷ A
and C ÷ A of the same round), reported as their median and range over the rounds.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import threading
import time
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .measure import progress

CONFIGS: tuple[tuple[str, str], ...] = (
    ("off", "metrics off, traces off"),
    ("metrics", "metrics on, traces off"),
    ("traces", "metrics on, traces exported (OTLP/HTTP, every command sampled)"),
)


class OtlpSink:
    """A stand-in collector: accepts ``POST /v1/traces`` (protobuf), counts requests and spans."""

    def __init__(self) -> None:
        self.requests = 0
        self.spans = 0
        self.bytes = 0
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                sink.count(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True, name="otlp-sink")
        self.thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def count(self, body: bytes) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        request = ExportTraceServiceRequest.FromString(body)
        self.requests += 1
        self.bytes += len(body)
        self.spans += sum(len(ss.spans) for r in request.resource_spans for ss in r.scope_spans)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def room_env(config: str, sink: OtlpSink) -> dict[str, str]:
    env = {"HAND_METRICS_ENABLED": "off" if config == "off" else "on", "HAND_OTLP_ENDPOINT": ""}
    if config != "off":
        env["HAND_ROOM_METRICS_PORT"] = "0"
    if config == "traces":
        env.update(HAND_OTLP_ENDPOINT=sink.endpoint, HAND_TRACE_SAMPLE_RATIO="1")
    return env


def _scrape(url: str) -> dict[str, float]:
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(url, timeout=10) as reply:
        text = reply.read().decode()
    totals: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            totals[s.name] = totals.get(s.name, 0.0) + s.value
    return totals


async def phase(make_run: Callable[..., Any], cfg: Any, config: str, sink: OtlpSink) -> dict[str, Any]:
    n = cfg.cost_rooms
    run = make_run(cfg, room_env=room_env(config, sink))
    async with run:
        out_text = run.stack.room.out_path.read_text(errors="replace")
        m = re.search(r"metrics on (\S+)", out_text)
        url = m.group(1) if m else None
        await run.add_rooms(n)
        await run.watch_rooms(n)
        spans0, requests0 = sink.spans, sink.requests
        res = await run.level(n, cfg.pace_s, cfg.warmup_s, cfg.window_s)
        res["config"] = config
        res["metrics_url"] = url
        res["spans_exported"] = sink.spans - spans0  # window, drain and settle (the exporter batches)
        res["otlp_posts"] = sink.requests - requests0
        if url:
            totals = await asyncio.to_thread(_scrape, url)
            res["scraped"] = {k: totals.get(k, 0.0) for k in (
                "hand_room_commands_total", "hand_rpc_server_requests_total", "hand_room_act_commit_seconds_count")}
    return res


def _summary(values: list[float]) -> dict[str, Any]:
    return {"median": round(statistics.median(values), 4), "min": round(min(values), 4),
            "max": round(max(values), 4), "n": len(values), "values": [round(v, 4) for v in values]}


async def observability_cost(make_run: Callable[..., Any], cfg: Any) -> dict[str, Any]:
    """Every round: A (off), B (metrics), C (metrics + traces), each a fresh stack; round r starts
    with configuration r mod 3."""
    started = time.perf_counter()
    sink = OtlpSink()
    phases: list[dict[str, Any]] = []
    try:
        for r in range(cfg.cost_rounds):
            for config, what in CONFIGS[r % 3:] + CONFIGS[:r % 3]:
                progress(f"round {r + 1}/{cfg.cost_rounds}: {what}: {cfg.cost_rooms} rooms, "
                         f"{cfg.warmup_s:g} s warm-up, {cfg.window_s:g} s measured")
                res = await phase(make_run, cfg, config, sink)
                res["round"] = r + 1
                phases.append(res)
                progress(f"  {res['actions_per_s']} act/s, room {res['cpu_ms_per_action']['room']} ms CPU/action, "
                         f"act→seen p99 {res['seen_p99_ms'] or 0:.1f} ms, other processes {res['cpu_share']['others']} CPUs"
                         + (f", {res['spans_exported']} spans exported" if config == "traces" else ""))
    finally:
        sink.stop()
    by = {c: sorted((p for p in phases if p["config"] == c), key=lambda p: p["round"]) for c, _ in CONFIGS}
    per_action = {c: [p["cpu_ms_per_action"]["room"] for p in ps] for c, ps in by.items()}
    ratios = {}
    for c in ("metrics", "traces"):
        ratios[c] = _summary([x / a for x, a in zip(per_action[c], per_action["off"], strict=True)])
    return {
        "config": {"rooms": cfg.cost_rooms, "pace_s": cfg.pace_s, "warmup_s": cfg.warmup_s,
                   "window_s": cfg.window_s, "rounds": cfg.cost_rounds},
        "phases": phases,
        "cpu_ms_per_action": {c: _summary(v) for c, v in per_action.items()},
        "ratios_to_off": ratios,
        "ratio_of_medians": {c: round(statistics.median(per_action[c]) / statistics.median(per_action["off"]), 4)
                             for c in ("metrics", "traces")},
        "elapsed_s": round(time.perf_counter() - started, 1),
    }


def markdown(res: dict[str, Any], cpus: int | None, load: list[float]) -> str:
    c = res["config"]
    lines = [
        f"Metrics and traces, what they cost the room service (issue 25), one run: {c['rounds']} rounds of "
        f"three configurations, interleaved (A B C, B C A, C A B, …), each phase a fresh stack (Tansu, rules, room); "
        f"{c['rooms']:,} rooms at human pace ({c['rooms'] / c['pace_s']:.0f} act/s target), "
        f"{c['warmup_s']:g} s warm-up, {c['window_s']:g} s measured per phase; room CPU = every thread of "
        f"the room process (`/proc/<pid>/stat`) ÷ actions in the window. A: `HAND_METRICS_ENABLED=off`, "
        f"no `HAND_OTLP_ENDPOINT`. B: metrics on (its `/metrics` served, scraped once after the window), "
        f"traces off. C: B with every command traced (`HAND_TRACE_SAMPLE_RATIO=1`) and exported over "
        f"OTLP/HTTP to a sink in the bench process. {cpus} CPUs shared with other users' jobs "
        f"(load average at the end {' '.join(f'{x:.2f}' for x in load)}). Goal: B ÷ A ≤ 1.05×.",
        "",
        "| round | config | achieved act/s | room CPU ms/action | act→seen p50 / p99 ms | room CPU | "
        "other processes | spans exported | commands counted (scrape) |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for p in res["phases"]:
        scraped = p.get("scraped", {}).get("hand_room_commands_total")
        lines.append(
            f"| {p['round']} | {p['config']} | {p['actions_per_s']:.0f} | {p['cpu_ms_per_action']['room']:.3f} | "
            f"{p['seen_p50_ms']:.1f} / {p['seen_p99_ms']:.1f} | {p['cpu_share']['room']:.2f} | "
            f"{p['cpu_share']['others']:.2f} | {p['spans_exported'] if p['config'] == 'traces' else '–'} | "
            f"{'–' if scraped is None else f'{scraped:,.0f}'} |")
    r, m = res["ratios_to_off"], res["cpu_ms_per_action"]
    lines += [
        "",
        "| config | room CPU ms/action: median (min–max) | ÷ A, same round: median (min–max) | ratio of medians |",
        "|---|---:|---:|---:|",
        f"| A: both off | {m['off']['median']:.3f} ({m['off']['min']:.3f}–{m['off']['max']:.3f}) | 1 | 1 |",
        f"| B: metrics on, traces off | {m['metrics']['median']:.3f} ({m['metrics']['min']:.3f}–"
        f"{m['metrics']['max']:.3f}) | **{r['metrics']['median']:.3f}×** ({r['metrics']['min']:.3f}–"
        f"{r['metrics']['max']:.3f}) | {res['ratio_of_medians']['metrics']:.3f}× |",
        f"| C: metrics on, traces exported | {m['traces']['median']:.3f} ({m['traces']['min']:.3f}–"
        f"{m['traces']['max']:.3f}) | **{r['traces']['median']:.3f}×** ({r['traces']['min']:.3f}–"
        f"{r['traces']['max']:.3f}) | {res['ratio_of_medians']['traces']:.3f}× |",
    ]
    return "\n".join(lines)
