"""The room service: hosted rooms, seats, matches, timers and watchers.

Layers, from the inside out:

- ``domain``: the pure room domain — events (``domain/events.py``), commands
  (``domain/commands.py``), the aggregate and its one projector
  (``domain/room.py``, ``domain/evolve.py``), the decisions
  (``domain/decide.py``), the codecs to the wire (``domain/codec.py``,
  ``domain/command_codec.py``) and what each reader may see
  (``domain/audience.py``). Other services read rooms through it.
- ``repository``: the one way to get a room (in memory, fast-forwarded).
- ``owner``: applies the commands of the rooms whose hand.room-commands
  partitions this instance holds; ``feeds``: each followed room folded and
  rendered once for this instance's Watch streams.
- ``gateway`` (gRPC RoomService), ``bus`` (its Kafka side), ``server`` (one
  instance: gateway + owner + outbox relay).
"""


def __getattr__(name: str):
    """The service's front door for ``hand_run`` (``RoomServer``), loaded on first use: the
    composition root imports ``hand_room`` itself, never its modules, and importing any other
    module of the package does not load the server."""
    if name == "RoomServer":
        from .server import RoomServer

        return RoomServer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
