"""The web app's rules for reaching a room's owner (web/src/owner.ts; docs/clients.md, "Reaching the
room's owner"): ``node --test web/test/owner.test.mjs`` runs them on the bundled TypeScript with
stand-in room clients, no browser and no server. Needs the web app's packages (``make web``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_web_app_follows_the_room_owner_as_documented() -> None:
    if shutil.which("node") is None:
        pytest.fail("node is not installed (the web app's tests need Node.js 20)")
    # make's stamp: npm ci only when web/package*.json changed; then the TypeScript generated from
    # proto/ (build.mjs regenerates it when proto/ is newer), unless make web made it already
    subprocess.run(["make", "-s", "web/node_modules/.stamp"], cwd=ROOT, check=True, timeout=600, capture_output=True)
    stamp = ROOT / "web" / "src" / "gen" / ".stamp"
    newest = max(p.stat().st_mtime for p in (ROOT / "proto").rglob("*.proto"))
    if not stamp.exists() or stamp.stat().st_mtime < newest:
        subprocess.run(["node", "build.mjs"], cwd=ROOT / "web", check=True, timeout=300, capture_output=True)
    done = subprocess.run(["node", "--test", "test/owner.test.mjs"], cwd=ROOT / "web",
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    assert "# fail 0" in done.stdout and "# pass 8" in done.stdout, done.stdout
