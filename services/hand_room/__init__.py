"""The room service: hosted rooms, seats, matches, timers and watchers.

Layers, from the inside out:

- the pure room domain is a package of its own, ``hand_table`` (events, commands,
  the ``Room`` aggregate, ``evolve``, ``decide``, audiences), and its wire form is
  ``hand_wire``'s (events, commands, ``RoomInfo``, replies, bot requests): the
  ledger, the bot service, ``hand_sim`` and ``hand_verify`` read rooms through
  those two, never through this package.
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
    if name == "RoomConfig":  # its settings (decision 0032)
        from .settings import RoomConfig

        return RoomConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
