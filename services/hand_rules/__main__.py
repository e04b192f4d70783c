"""``python -m hand_rules``: run the rules service until SIGTERM or SIGINT.

Configuration comes only from the environment (``hand_rules.settings``); an
invalid value exits with status 2 before any port is bound. A signal stops
the server gracefully (``HAND_SHUTDOWN_GRACE_S``) and exits with status 0.
"""

from __future__ import annotations

from hand_common.grpc_core import use_services_io

use_services_io()  # before grpc is imported: grpc core reads GRPC_EXPERIMENTS once

from concurrent.futures import Executor

from hand_common import event_loop
from hand_common.env import load_or_exit
from hand_common.lifecycle import serve_until_signalled
from hand_common.logging import configure_logging
from hand_web.server import start_beside

from .server import RulesServer
from .settings import RulesConfig


async def serve(config: RulesConfig, executor: Executor | None = None) -> None:
    """Serve until SIGTERM/SIGINT; engine calls run inline unless an ``executor`` is given."""
    server = RulesServer(config.server, executor, limits=config.limits, identity=config.identity)
    await serve_until_signalled(server, "hand_rules", beside=start_beside)


def main() -> None:
    config = load_or_exit(RulesConfig.from_env)
    configure_logging(config.log)
    event_loop.run(serve(config), config.log.event_loop, config.log.gc_sweep_s)


if __name__ == "__main__":
    main()
