"""The ledger's and the game's metrics (docs/operations.md).

The ledger archives every room event exactly once (after its de-duplication
and ordering), so the game's figures are counted here, from what it archives:
matches started and finished by preset, rounds by preset and finish, Hand
finishes, moves by origin, match length. Its own: events repaired from the
event store, rooms discovered there, rating updates. "Events behind the head"
is the consumer lag of its group (``hand_kafka_consumer_lag_records{group="hand-ledger"}``)
and the rooms it holds behind a gap (``hand_ledger_rooms_waiting``).

Labels: a preset name (the room's, from its ``RoomCreated``; ``unknown`` when
this replica never saw it), a finish kind, a move origin — never a room id.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable


from hand_common.metrics import SLOW_BUCKETS, counter, gauge, histogram
from hand_table import MatchEnded, MatchStarted, MoveMade, RoomCreated, RoundScored
from hand_wire import Delivered

__all__ = ["GameTally", "REPAIRED", "DISCOVERED", "ROOMS_WAITING", "RATING_UPDATES"]

MATCHES_STARTED = counter("hand_game_matches_started", "Matches started", ["preset"])
MATCHES_FINISHED = counter("hand_game_matches_finished", "Matches finished (match_ended)", ["preset"])
ROUNDS = counter("hand_game_rounds", "Rounds scored, by finish (normal, hand, exhausted, void)",
                 ["preset", "finish"])
HAND_FINISHES = counter("hand_game_hand_finishes", "Rounds won by a Hand finish (all cards in one go)",
                        ["preset"])
MOVES = counter("hand_game_moves", "Moves archived, by origin (player, bot, timer …)", ["origin"])
MATCH_SECONDS = histogram("hand_game_match_duration_seconds", "From match_started to match_ended",
                          ["preset"], buckets=SLOW_BUCKETS)
EVENTS_ARCHIVED = counter("hand_ledger_events_archived", "Room events archived (each once)")
REPAIRED = counter("hand_ledger_repaired_events", "Events the ledger read from the event store (gap repair)")
DISCOVERED = counter("hand_ledger_discovered_rooms", "Rooms found in the event store's outbox, not archived")
ROOMS_WAITING = gauge("hand_ledger_rooms_waiting", "Rooms whose next event is missing (later ones held behind a gap)")
RATING_UPDATES = counter("hand_ledger_rating_updates", "Finished matches whose players' ratings were updated")


class GameTally:
    """Counts archived events; remembers (bounded) each room's preset and match start."""

    def __init__(self, limit: int = 100_000) -> None:
        self.limit = limit
        self._rooms: OrderedDict[str, list] = OrderedDict()  # room_id → [preset, started_at]

    def _room(self, room_id: str) -> list:
        room = self._rooms.get(room_id)
        if room is None:
            room = self._rooms[room_id] = ["unknown", None]
            while len(self._rooms) > self.limit:
                self._rooms.popitem(last=False)
        return room

    def observe(self, archived: Iterable[Delivered]) -> None:
        count = 0
        for item in archived:
            count += 1
            event, room_id = item.recorded.event, item.room_id
            if isinstance(event, MoveMade):
                MOVES.labels(event.origin).inc()
            elif isinstance(event, RoomCreated):
                self._room(room_id)[0] = event.preset
            elif isinstance(event, MatchStarted):
                room = self._room(room_id)
                room[1] = item.recorded.at
                MATCHES_STARTED.labels(room[0]).inc()
            elif isinstance(event, RoundScored):
                preset = self._room(room_id)[0]
                ROUNDS.labels(preset, event.result.finish).inc()
                if event.result.finish == "hand":
                    HAND_FINISHES.labels(preset).inc()
            elif isinstance(event, MatchEnded):
                preset, started = self._rooms.pop(room_id, ["unknown", None])
                MATCHES_FINISHED.labels(preset).inc()
                RATING_UPDATES.inc()
                if started is not None:
                    MATCH_SECONDS.labels(preset).observe(max(0.0, item.recorded.at - started))
        EVENTS_ARCHIVED.inc(count)
