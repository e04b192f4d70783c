"""The bot service: decides a bot seat's turn from that seat's perspective only.

Public surface::

    from hand_bot import choose_moves, LEVELS
    actions = choose_moves(perspective, "strong", seed)   # hand_engine.perspective(state, seat)
    actions = choose_moves(perspective, "expert", seed, history=redacted_events)

``LEVELS``: random, beginner, middle, strong, expert; ``ALL_LEVELS`` adds ``auto``,
the safe automatic turn of docs/rules.md §11 (``auto_turn(state)`` plays it to the
turn's end, as the room service does for an expired turn). The Kafka
consumer is ``hand_bot.service.BotService``; ``python -m hand_bot`` runs it.
See docs/bots.md.
"""

from .policy import ALL_LEVELS, LEVELS, auto_turn, choose_moves, plan

__all__ = ["ALL_LEVELS", "LEVELS", "auto_turn", "choose_moves", "plan"]


def __getattr__(name: str):
    """The service's front door for ``hand_run`` (``BotService``, ``HealthServer``), loaded on first use: the
    composition root imports ``hand_bot`` itself, never its modules, and importing any other
    module of the package does not load the server."""
    if name == "BotService":
        from .service import BotService

        return BotService
    if name == "HealthServer":
        from .health import HealthServer

        return HealthServer
    if name == "BotConfig":  # its settings (decision 0032)
        from .settings import BotConfig

        return BotConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
