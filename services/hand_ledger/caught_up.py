"""Read your writes: wait, bounded, until the ledger has recorded a room up to a seq.

A client that saw event ``min_seq`` of a room (on Watch, or in an ``ActResponse``) asks
``GetScoreSheet`` / ``GetMatchResult`` with it; the ledger answers only once the room's
archive holds that seq (each event is archived with its effects in one transaction, so the
projections include it). It waits at most ``limit_s`` (``HAND_LEDGER_MIN_SEQ_WAIT_S``), then
refuses ``LEDGER_BEHIND`` (UNAVAILABLE: retry). This replica's own ingests wake the wait at
once (``Progress``); another replica's are seen by polling the store every ``POLL_S``.
"""

from __future__ import annotations

import asyncio
import time

from .status import LedgerError

#: how often a waiting read looks at the store (another replica may be the one recording)
POLL_S = 0.2
#: the retry hint of a LEDGER_BEHIND refusal
RETRY_AFTER_MS = 1000


class Progress:
    """Wakes the reads waiting for this replica's store to move (``moved()`` after an ingest)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def moved(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            pass


async def caught_up(store, room_id: str, min_seq: int, limit_s: float) -> None:
    """Return once ``store`` holds ``room_id``'s event ``min_seq``; refuse LEDGER_BEHIND after
    ``limit_s``. ``store`` has ``next_seqs`` and ``progress`` (``LedgerStore``)."""
    deadline = time.monotonic() + limit_s
    while True:
        held = (await store.next_seqs([room_id]))[room_id]
        if held > min_seq:
            return
        left = deadline - time.monotonic()
        if left <= 0:
            raise LedgerError("LEDGER_BEHIND", "the ledger has not recorded the room up to min_seq yet",
                              field="min_seq", min_seq=min_seq, next_seq=held, retry_after_ms=RETRY_AFTER_MS)
        await store.progress.wait(min(POLL_S, left))
