"""The web client in a real browser against the real stack: ``python -m hand_run`` (broker, rules,
room, bots, ledger, web server — what ``make run`` starts) and Debian's headless chromium driven by
playwright-core (``web/e2e/*.test.mjs``, node's test runner).

One test per scenario file, each against its own stack, so that pytest's workers share them out:
- ``play.test.mjs``: a whole one-round match against three bots by clicks to the score sheet, then
  its replay and the leaderboard; a reload and a dropped stream mid-round; an illegal move's refusal
  in en and ar; the Arabic page right to left; a spectator page without a hand; a take returned, and
  a discard by drag; joining from the lobby and by code. Then the refusal again (in en and ar, on a
  dealt and watched table) with the page on gRPC-Web.
- ``session.test.mjs``: a seeded opening through suggestions, the staging counter and Lay melds; the
  page signed in as this browser's player, its session refreshed when it expires and renewed when
  refused, and kept on a device whose clock is wrong.
- every other ``*.test.mjs`` (quick chat, the server's clock, play now, …): its own scenarios, named in it.

Every scenario of a file must pass: the count of its top-level ``test(`` calls is the count
expected. ``make test`` builds the app (``make web``) and installs chromium when it is missing
(``make chromium``) before pytest runs; this test builds the app itself if ``web/dist`` is absent.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hand_run.process import LocalStack

from .browser_support import CHROMIUM, WEB, ensure_built

SCENARIOS = sorted(p.name for p in (WEB / "e2e").glob("*.test.mjs"))


def _count(scenario: str) -> int:
    return len(re.findall(r"^test\(", (WEB / "e2e" / scenario).read_text(), re.M))


def _node(scenario: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["node", "--test", "--test-concurrency=1", *args, f"e2e/{scenario}"], cwd=WEB, env=env,
                          capture_output=True, text=True, timeout=480)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_web_client_in_a_real_browser_against_the_real_stack(scenario: str, tmp_path: Path) -> None:
    assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} is missing: run `make chromium` (Debian's chromium)"
    assert shutil.which("node"), "node is missing"
    ensure_built()
    expected = _count(scenario)
    assert expected >= 1, scenario
    with LocalStack(tmp_path) as stack:
        env = {**os.environ, "HAND_WEB_URL": stack.url, "CHROMIUM": CHROMIUM}
        result = _node(scenario, env)
        # the same page on gRPC-Web: a match dealt and followed (Watch), a refusal (details in trailers)
        grpc_web = (_node(scenario, {**env, "HAND_WEB_TRANSPORT": "grpcweb"}, "--test-name-pattern=illegal move")
                    if scenario == "play.test.mjs" else None)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout and f"# pass {expected}\n" in result.stdout, result.stdout[-3000:]
    if grpc_web is not None:
        assert grpc_web.returncode == 0, grpc_web.stdout[-6000:] + grpc_web.stderr[-2000:]
        assert "# fail 0" in grpc_web.stdout and "# pass 1\n" in grpc_web.stdout, grpc_web.stdout[-3000:]


def test_every_scenario_file_is_run() -> None:
    """A scenario file the glob above would miss (a typo in its name) is a scenario never run."""
    names = {p.name for p in (WEB / "e2e").glob("*.mjs")}
    helpers = {"helpers.mjs", "screenshots.mjs", "bench_click.mjs", "bench_first_screen.mjs", "two-instances.scenario.mjs"}
    assert names - helpers == set(SCENARIOS), sorted(names - helpers - set(SCENARIOS))
