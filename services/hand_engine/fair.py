"""Provably fair deals: the versioned derivation of a round's deck, round-1
dealer and stock rebuilds from revealed seeds (docs/rules.md §2,
docs/decisions/0022-provably-fair-deals.md).

Version 1 (``hand-deal/1``)::

    key      = HMAC-SHA-256(server_seed, "hand-deal/1" 0x00 round_no:u32 n_seats:u32
                            (len(seat_seed):u32 seat_seed)*)      # seat seeds: UTF-8, seat order
    block(l, i) = HMAC-SHA-256(key, l 0x00 i:u64)                  # l: "dealer", "deal", "rebuild:K"
    words(l)    = the 8-byte big-endian words of block(l, 0), block(l, 1), ...
    uniform(m)  = next word u of the stream with u < 2^64 - 2^64 mod m (others are skipped): u mod m
    shuffle(l, xs): Fisher-Yates, i from len-1 down to 1: swap xs[i], xs[uniform(i + 1)]

The deck is ``shuffle("deal", [0..105])`` (engine ids; a wire id is one more:
the same permutation), top first; round 1's dealer, when the match does not
set it, is the first ``uniform(n_seats)`` of the "dealer" stream; rebuild K
shuffles the rebuilt cards sorted ascending with the "rebuild:K" stream. The
commitment published before any card is seen is ``SHA-256(server_seed)``.
Version 0 (before this module): ``random.Random`` from the match seed, no
commitment (``rng.py``).

Version 2 (``hand-deal/2``, decision 0034): the same derivation with the domain
"hand-deal/2", and the server seed no longer drawn at the deal but derived from a
match secret M committed in ``room_created`` before any seat seed is taken::

    match_commitment = SHA-256(M)                                   # public at seq 0
    server_seed(r)   = HMAC-SHA-256(M, "hand-deal/2" 0x00 "round" 0x00 r:u32)
    drawn_seed(k)    = hex(HMAC-SHA-256(M, "hand-deal/2" 0x00 "seat" 0x00 k:u32))[:32]
                       # a seat seed the owner draws (bots, players who send none)

M is revealed in ``match_ended``.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .errors import Code, refuse

VERSION = 2  # what a match started without a fixed seed in a committed room deals
VERSIONS = (1, 2)  # the fair versions (0: from the match seed, not here)
SERVER_SEED_BYTES = 32
MATCH_SECRET_BYTES = 32
MAX_SEAT_SEED_BYTES = 64
_V2 = b"hand-deal/2\0"
_TOP = 1 << 64


@dataclass(frozen=True)
class DealSeeds:
    """What a version-1 deal derives from: the server's per-round secret and each seat's seed."""

    server_seed: bytes
    seat_seeds: tuple[str, ...]
    version: int = 1  # 1: a server seed drawn at the deal; 2: derived from the committed match secret


def commitment(server_seed: bytes) -> bytes:
    """What the owner publishes before the deal is seen: SHA-256 of the server seed."""
    return hashlib.sha256(server_seed).digest()


def round_seed(match_secret: bytes, round_no: int) -> bytes:
    """Version 2: round ``round_no``'s server seed, derived from the committed match secret."""
    return hmac.new(match_secret, _V2 + b"round\0" + struct.pack(">I", round_no), hashlib.sha256).digest()


def drawn_seat_seed(match_secret: bytes, seat: int) -> str:
    """Version 2: the seat seed the owner gives a seat that brings none (a bot, a player who sends
    none): fixed by the commitment, so the owner cannot choose it after seeing the others."""
    return hmac.new(match_secret, _V2 + b"seat\0" + struct.pack(">I", seat), hashlib.sha256).hexdigest()[:32]


def check_seat_seed(seed: str, field: str = "seat_seed") -> str:
    """A seat's seed: up to 64 bytes of UTF-8 without control characters."""
    if not isinstance(seed, str) or any(ord(c) < 32 or ord(c) == 127 for c in seed):
        raise refuse(Code.INVALID_ARGUMENT, "a seat seed is printable UTF-8", field=field)
    if len(seed.encode()) > MAX_SEAT_SEED_BYTES:
        raise refuse(Code.INVALID_ARGUMENT, "a seat seed is at most 64 bytes of UTF-8", field=field,
                     max=MAX_SEAT_SEED_BYTES)
    return seed


def deal_key(seeds: DealSeeds, round_no: int, n_seats: int) -> bytes:
    """The round's key: every later stream derives from it (secret until the reveal)."""
    if len(seeds.server_seed) != SERVER_SEED_BYTES:
        raise refuse(Code.INVALID_ARGUMENT, "the server seed is 32 bytes", field="server_seed")
    if seeds.version not in VERSIONS:
        raise refuse(Code.INVALID_ARGUMENT, "unknown deal version", field="deal_version", allowed="1,2")
    if len(seeds.seat_seeds) != n_seats:
        raise refuse(Code.INVALID_ARGUMENT, "one seat seed per seat", field="seat_seeds", seats=n_seats)
    msg = bytearray(b"hand-deal/%d\0" % seeds.version + struct.pack(">II", round_no, n_seats))
    for s in seeds.seat_seeds:
        raw = check_seat_seed(s, "seat_seeds").encode()
        msg += struct.pack(">I", len(raw)) + raw
    return hmac.new(seeds.server_seed, bytes(msg), hashlib.sha256).digest()


def _words(key: bytes, label: str) -> Iterator[int]:
    i = 0
    while True:
        block = hmac.new(key, label.encode() + b"\0" + struct.pack(">Q", i), hashlib.sha256).digest()
        yield from struct.unpack(">4Q", block)
        i += 1


def _uniform(words: Iterator[int], m: int) -> int:
    limit = _TOP - _TOP % m
    for u in words:
        if u < limit:
            return u % m
    raise AssertionError("unreachable")  # pragma: no cover


def shuffle(key: bytes, items: Sequence[int], label: str) -> tuple[int, ...]:
    """``items`` in the order Fisher-Yates gives them with the ``label`` stream."""
    out = list(items)
    words = _words(key, label)
    for i in range(len(out) - 1, 0, -1):
        j = _uniform(words, i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def dealer(key: bytes, n_seats: int) -> int:
    """Round 1's dealer when the match does not set it."""
    return _uniform(_words(key, "dealer"), n_seats)


def deck(key: bytes, n_cards: int) -> tuple[int, ...]:
    """The dealt order of the engine ids 0..n_cards-1, top first."""
    return shuffle(key, range(n_cards), "deal")


def rebuild(key: bytes, cards: Sequence[int], rebuild_no: int) -> tuple[int, ...]:
    """Rebuild ``rebuild_no``'s stock order from the rebuilt cards (any order in)."""
    return shuffle(key, sorted(cards), f"rebuild:{rebuild_no}")
