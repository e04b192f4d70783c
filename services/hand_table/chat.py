"""Quick chat: the fixed phrase set (``hand.v1.QuickPhrase``, proto/hand/v1/chat.proto)
and its one rule — a phrase is one of ``PHRASES``. Chat is not part of the game: a
``ChatSent`` event changes nothing of the room but its seq (``evolve``), the engine
never sees it, the ledger archives it without effect, and replays leave it out
(docs/decisions/0025-quick-chat.md).

Phrases are named here as the wire's enum values are (``QUICK_PHRASE_<NAME.upper()>``),
in the order of their numbers: set version 1 is 1..17. ``on_chat`` is the ``Chat``
command's handler (``decision.HANDLERS``).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from .commands import Command
from .errors import RoomCode, RoomError
from .events import ChatSent
from .guards import seat_of
from .outcome import Decision

if TYPE_CHECKING:  # decide's rules port (decision.py imports this module's handlers)
    from .decision import RulesPort

#: the phrase set, in the order of its wire numbers (1, 2, …); additions only, at the end
PHRASES = (
    "greeting", "greeting_reply", "good_luck", "well_played", "hurry_up", "sorry", "thanks",
    "congratulations", "good_game", "one_more", "be_right_back", "goodbye",
    "emote_thumbs_up", "emote_laugh", "emote_surprised", "emote_sad", "emote_thinking",
)
SET_VERSION = 1


def phrase_number(name: str) -> int:
    """The wire number of a phrase (0 for a name not in the set)."""
    return PHRASES.index(name) + 1 if name in PHRASES else 0


def phrase_name(number: int) -> str:
    """The phrase of a wire number ("" for a number not in the set)."""
    return PHRASES[number - 1] if 1 <= number <= len(PHRASES) else ""


def check_phrase(name: str, number: int | None = None) -> str:
    """``name`` if it is a phrase of the set, else ``UNKNOWN_PHRASE`` (field ``phrase``)."""
    if name not in PHRASES:
        raise RoomError(RoomCode.UNKNOWN_PHRASE, "not a phrase of the quick-chat set", field="phrase",
                        value=number if number is not None else name, min=1, max=len(PHRASES))
    return name


def spectator_key(room_id: str, player_id: str) -> str:
    """A signed-in spectator's key in one room: stable for the player there, different in
    every other room, and naming no account (``s-`` and 16 hex characters)."""
    digest = hashlib.sha256(f"hand.v1 chat spectator\x00{room_id}\x00{player_id}".encode()).hexdigest()
    return "s-" + digest[:16]


async def on_chat(d: Decision, cmd: Command, rules: RulesPort) -> None:
    """A quick-chat phrase from a seat (a player's, away or not: chat brings nobody back)
    or a signed-in spectator; nothing of the game changes (``chat``)."""
    room, body = d.room, cmd.body
    check_phrase(body.phrase)
    if cmd.seat is not None:
        d.add(ChatSent(seat=seat_of(room, cmd), phrase=body.phrase))
    elif body.spectator:
        d.add(ChatSent(seat=None, phrase=body.phrase, spectator=body.spectator))
    else:
        raise RoomError("UNAUTHENTICATED", "a spectator chats signed in", field="authorization")
