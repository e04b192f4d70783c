"""The room service's metrics (docs/operations.md): defined here, observed by the room code.

Each object says where it is observed. Labels are small fixed sets — a command
kind, a path, a code, an audience — never a room id, a player id or a seat
token. The RPCs themselves (rate, latency, codes by method and transport) are
measured at the shared edge (``hand_common.rpc_metrics``); the outbox relay's
backlog, lag and produce figures by ``hand_infra.kafka_metrics`` inside the
relay; consumer lag and rebalances by ``hand_infra.kafka_metrics`` too.
"""

from __future__ import annotations


from hand_common.metrics import FAST_BUCKETS, counter, gauge, histogram

__all__ = [
    "ACT_TO_COMMIT", "BATCH_SIZE", "BOT_TAKEOVERS", "COMMANDS", "OVERLOAD_REFUSALS", "LOOP_LAG", "RECONNECTS",
    "REFUSALS", "ROOMS_LIVE", "ROOMS_OWNED", "SEATS_AWAY", "STORE_APPEND", "TIMERS_ARMED",
    "TURN_TIMEOUTS", "WATCH_STREAMS", "BATCH_BUCKETS", "COMMAND_PATHS",
]

BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
COMMAND_PATHS = ("local", "forwarded", "redirected")

ROOMS_LIVE = gauge("hand_room_rooms_live", "Rooms held in this instance's repository (any owner)")
"""``set(len(repository))`` where the repository adds or evicts a room (repository.py)."""

ROOMS_OWNED = gauge("hand_room_rooms_owned",
                    "Rooms whose partition of hand.room-commands this instance holds")
"""``set(n)`` in owner.py's rebalance listener (assigned / revoked) and when a room is created."""

WATCH_STREAMS = gauge("hand_room_watch_streams_open", "Watch streams open now, by audience",
                      ["audience"])
"""``labels("seat"|"spectator").inc()`` when gateway.py's Watch starts streaming, ``.dec()`` in
its ``finally`` (feeds.py's subscribe/unsubscribe is the other good place)."""

COMMANDS = counter("hand_room_commands", "Room commands handled, by kind and path",
                   ["kind", "path"])
"""``labels(kind, path).inc()`` in bus.py's ``handle`` once routed: ``kind`` the command's type
(``act``, ``create_room``, ``join``, ``bot_turn``, ``timeout`` …: the bus's dict keys),
``path`` one of ``COMMAND_PATHS`` (decided in-process, sent to the owner through Kafka, or the
client told to go to the owner)."""

ACT_TO_COMMIT = histogram("hand_room_act_commit_seconds",
                          "From a command's arrival at the gateway to its events committed in the store",
                          ["path"], buckets=FAST_BUCKETS)
"""``labels(path).observe(seconds)`` in gateway.py when the owner's answer comes back
(``time.perf_counter()`` taken as the request arrives; for ``forwarded`` commands this includes
the Kafka round trip)."""

BATCH_SIZE = histogram("hand_room_batch_commands", "Commands decided in one owner batch (group commit)",
                       buckets=BATCH_BUCKETS)
"""``observe(len(batch))`` in command_path.py each time a batch is decided and appended."""

STORE_APPEND = histogram("hand_room_store_append_seconds", "One batch's append to the event store",
                         buckets=FAST_BUCKETS)
"""``observe(seconds)`` around command_path.py's ``store.append_batch`` (inside ``start_span("room.append")``)."""

TIMERS_ARMED = gauge("hand_room_turn_timers_armed", "Turn timers armed now")
"""``inc()`` when turns.py arms a timer, ``dec()`` when it fires or is cancelled."""

TURN_TIMEOUTS = counter("hand_room_turn_timeouts", "Turns that ran out of time")
"""``inc()`` in turns.py when a turn timer fires and a timeout command is issued."""

BOT_TAKEOVERS = counter("hand_room_bot_takeovers", "Seats a bot took over, by reason", ["reason"])
"""``labels("away"|"timeouts").inc()`` in turns.py / command_path.py when a bot takes a seat over
(the presence grace ran out, or HAND_ROOM_AWAY_AFTER_TIMEOUTS expired turns)."""

SEATS_AWAY = gauge("hand_room_seats_away", "Seats of owned rooms marked away (played by a bot)")
"""``inc()`` when a seat is marked away, ``dec()`` when its player is back (owner.py)."""

RECONNECTS = counter("hand_room_reconnects", "Watch streams resumed from a seq (a client came back)",
                     ["audience"])
"""``labels(audience).inc()`` in gateway.py's Watch when ``from_seq`` is set (a resume)."""

REFUSALS = counter("hand_room_refusals", "Room commands refused, by RuleError code", ["code"])
"""``labels(code).inc()`` where command_path.py / gateway.py turn a refusal into a status (``code``: the
``ErrorCode`` name without its prefix: ``NOT_YOUR_TURN``, ``STALE_SEQ`` …)."""

OVERLOAD_REFUSALS = counter("hand_room_overload_refusals",
                            "Commands refused early because the owner or the store is over its bound",
                            ["reason"])
"""``labels("queue"|"loop_lag"|"store_timeout"|"broker_down").inc()`` where gateway.py / admission.py answer
RESOURCE_EXHAUSTED or UNAVAILABLE without doing the work."""
LOOP_LAG = gauge("hand_room_loop_lag_seconds",
                 "How late the event loop ran its timers lately (admission refuses clients' commands past "
                 "HAND_ROOM_MAX_LOOP_LAG_MS)")
