"""The room service: hosted rooms, seats, matches, timers and watchers.

Layers: ``model``/``fold``/``decide`` are pure (the room aggregate as a fold
of its stored events); ``owner`` applies commands for the rooms whose
``hand.room-commands`` partitions this instance owns; ``gateway`` is the
gRPC RoomService any client talks to; ``fanout`` feeds Watch streams from
``hand.room-events``.
"""
