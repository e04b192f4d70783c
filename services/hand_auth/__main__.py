"""``python -m hand_auth``: run the auth service until SIGTERM or SIGINT.

The signing key is ``HAND_AUTH_SIGNING_KEY`` (a secret); without one, the
development key file (``HAND_AUTH_DEV_KEY_FILE``, under ``var/``).
"""

from __future__ import annotations

from hand_common.grpc_core import use_services_io

use_services_io()  # before grpc is imported: grpc core reads GRPC_EXPERIMENTS once

from hand_common import event_loop
from hand_common.env import load_or_exit
from hand_common.lifecycle import serve_until_signalled
from hand_common.logging import configure_logging

from .server import AuthServer
from .settings import AuthConfig


async def serve(config: AuthConfig) -> None:
    server = AuthServer(config)
    await serve_until_signalled(server, "hand_auth", announce="auth service")


def main() -> None:
    config = load_or_exit(AuthConfig.from_env)
    configure_logging(config.log)
    event_loop.run(serve(config), config.log.event_loop, config.log.gc_sweep_s)


if __name__ == "__main__":
    main()
