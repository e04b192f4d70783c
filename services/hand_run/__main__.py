"""``python -m hand_run``: start every component, stop them all on Ctrl-C or SIGTERM."""

from __future__ import annotations

import asyncio
import functools
import os
import signal
import sys

from hand_common import event_loop
from hand_common.config import LogConfig
from hand_common.env import load_or_exit
from hand_common.logging import configure_logging

from . import build, run


async def _main() -> None:
    components = load_or_exit(build)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await run(components, stop, functools.partial(print, flush=True))
    except OSError as error:  # a port is taken: the started components are stopped already
        print(f"hand: {error}", file=sys.stderr, flush=True)
        _exit_now(1)


def _exit_now(code: int) -> None:
    """Leave at once with ``code``. After a failed start, what the failing component left
    half-made (a task that outlives cancellation, a thread in a blocking call) must not keep
    the process alive in ``asyncio.run``'s clean-up, deaf to Ctrl-C and SIGTERM (its signal
    handlers only set ``stop``): every component that started has been stopped already."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main() -> None:
    log = load_or_exit(LogConfig.from_env)
    configure_logging(log)
    event_loop.run(_main(), log.event_loop, log.gc_sweep_s)


if __name__ == "__main__":
    main()
