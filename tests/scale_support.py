"""How much a randomized test tries: its full count under ``make test`` (and the soak
targets' own variables), a smaller one under ``make test-fast`` (``HAND_TEST_FAST=1``).
The assertions are the same; only the number of examples or rounds differs."""

from __future__ import annotations

import os

FAST = os.environ.get("HAND_TEST_FAST") == "1"


def examples(full: int, fast: int) -> int:
    """``full`` examples, or ``fast`` under make test-fast."""
    return fast if FAST else full
