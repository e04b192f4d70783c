"""The web client in a real browser against the real stack: ``python -m hand_run`` (broker, rules,
room, bots, ledger, web server — what ``make run`` starts) and Debian's headless chromium driven by
playwright-core (``web/e2e/*.test.mjs``, node's test runner).

``make test`` builds the app (``make web``) and installs chromium when it is missing
(``make chromium``) before pytest runs; this test builds the app itself if ``web/dist`` is absent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from hand_run.process import LocalStack

from .browser_support import CHROMIUM, WEB, ensure_built


def test_the_web_client_in_a_real_browser_against_the_real_stack(tmp_path: Path) -> None:
    """Fourteen browser scenarios (web/e2e/play.test.mjs, chat.test.mjs, clock.test.mjs, play_now.test.mjs): a whole one-round match against three bots by
    clicks to the score sheet, then its replay and the leaderboard; a reload and a dropped stream
    mid-round; an illegal move's refusal in en and ar; the Arabic page right to left; a spectator page
    without a hand; a take returned, and a discard by drag; joining from the lobby and by code; a
    seeded opening through suggestions, the staging counter and Lay melds; the page signed in as
    this browser's player, its session refreshed when it expires and renewed when refused, and kept
    on a device whose clock is wrong; quick chat seen by the other seats at the sender's seat and
    muted by a third player on a phone in Arabic; the turn timer equal to the server's deadline after
    a reload on a device whose clock is an hour off, and a finished match's result and sheet after a
    reload; play now: a waiting player cancels (in Arabic), two others land at the same table. Then the refusal again (in
    en and ar, on a dealt and watched table) with the page on gRPC-Web."""
    assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} is missing: run `make chromium` (Debian's chromium)"
    assert shutil.which("node"), "node is missing"
    ensure_built()
    with LocalStack(tmp_path) as stack:
        env = {**os.environ, "HAND_WEB_URL": stack.url, "CHROMIUM": CHROMIUM}
        result = subprocess.run(["node", "--test", "--test-concurrency=1", "e2e/"], cwd=WEB, env=env,
                                capture_output=True, text=True, timeout=480)
        # the same page on gRPC-Web: a match dealt and followed (Watch), a refusal (details in trailers)
        grpc_web = subprocess.run(["node", "--test", "--test-concurrency=1",
                                   "--test-name-pattern=illegal move", "e2e/"],
                                  cwd=WEB, env={**env, "HAND_WEB_TRANSPORT": "grpcweb"},
                                  capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout and "# pass 14" in result.stdout, result.stdout[-3000:]
    assert grpc_web.returncode == 0, grpc_web.stdout[-6000:] + grpc_web.stderr[-2000:]
    assert "# fail 0" in grpc_web.stdout and "# pass 1" in grpc_web.stdout, grpc_web.stdout[-3000:]
