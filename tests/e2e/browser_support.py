"""Helpers of the browser tests: where the web app and chromium are, and building the app."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def ensure_built() -> None:
    """``make test`` builds the app first; alone, the test builds it when ``web/dist`` is absent."""
    if not (WEB / "node_modules" / ".bin" / "esbuild").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=WEB, check=True)
    if not (WEB / "dist" / "app.js").exists():
        subprocess.run(["node", "build.mjs"], cwd=WEB, check=True)
