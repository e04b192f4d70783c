"""Deterministic randomness derived from a round's seed (no global RNG)."""

from __future__ import annotations

import hashlib
import random


def derive(seed: int, *labels: object) -> random.Random:
    """A private ``random.Random`` for ``(seed, *labels)``, stable across runs."""
    text = ":".join([str(seed), *map(str, labels)]).encode()
    return random.Random(int.from_bytes(hashlib.sha256(text).digest()[:8], "big"))


def shuffled(seed: int, cards: tuple[int, ...] | list[int], *labels: object) -> tuple[int, ...]:
    out = list(cards)
    derive(seed, *labels).shuffle(out)
    return tuple(out)
