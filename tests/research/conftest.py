"""The bot-strength research's smoke tests (research/botlab): slow, so ``make test-fast``
leaves them out; ``make test`` and ``make research`` run them."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/research/" in item.nodeid:
            item.add_marker(pytest.mark.slow)
