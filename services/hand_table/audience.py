"""What each reader of a room's history may see of an event.

| reader | function | left out |
|---|---|---|
| hand.room-events (room service, ledger) | ``private`` | seat token hashes |
| a seat's Watch / replay while the match runs | ``for_seat(rec, seat)`` | token hashes, player ids, the seed, the deck, a round's server seed (revealed by ``round_scored``), the room's match secret (revealed by ``match_ended``), stock rebuild orders, other seats' drawn cards |
| spectators, hand.room-events-public | ``for_seat(rec, None)`` | all of the above, every drawn card, and the join code |
| a finished match's replay | ``complete`` | token hashes and player ids |

Player ids (accounts' ids, guests' labels) reach no client through a room's
history: an account id is shown only to its owner (docs/privacy.md), and a
replay or a stream is the same for every reader of it. Display names and seat
kinds say who sat where; the ledger's sheets add public handles.

Pure functions of one event: the same event is rendered once per audience. What
hides nothing from a reader is returned as it is (``for_seat(rec, seat) is rec``), so
renderings can be shared between the readers it is the same for.
"""

from __future__ import annotations

from dataclasses import replace

from hand_engine import redact

from .events import MatchStarted, MoveMade, Recorded, RoomCreated, RoundDealt, SeatTaken


def private(rec: Recorded) -> Recorded:
    """For hand.room-events: everything but the seat token's hash."""
    ev = rec.event
    if isinstance(ev, SeatTaken) and ev.token_hash:
        return replace(rec, event=replace(ev, token_hash=""))
    return rec


def complete(rec: Recorded) -> Recorded:
    """A finished match's replay: everything but credentials and account ids."""
    ev = rec.event
    if isinstance(ev, SeatTaken) and (ev.token_hash or ev.player_id):
        return replace(rec, event=replace(ev, token_hash="", player_id=""))
    return rec


def for_seat(rec: Recorded, seat: int | None) -> Recorded:
    """For ``seat``'s streams (None: spectators and the public topic)."""
    ev = rec.event
    if isinstance(ev, SeatTaken):
        out = replace(ev, token_hash="", player_id="")
    elif isinstance(ev, RoomCreated):
        out = replace(ev, match_secret=b"") if seat is not None else replace(ev, code="", match_secret=b"")
    elif isinstance(ev, MatchStarted):
        out = replace(ev, seed=None)
    elif isinstance(ev, RoundDealt):
        out = replace(ev, deck=(), server_seed=b"", events=tuple(redact(e, seat) for e in ev.events))
    elif isinstance(ev, MoveMade):
        shown = tuple(redact(e, seat) for e in ev.events)
        if all(a is b for a, b in zip(shown, ev.events, strict=True)):
            return rec  # nothing of it hidden (a discard, a meld): the same record for every reader
        out = replace(ev, events=shown)
    else:
        return rec
    return rec if out is ev else replace(rec, event=out)
