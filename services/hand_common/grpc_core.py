"""How the services' gRPC core runs: its I/O on the completion queue's poller (grpc's
long-standing iomgr path) rather than on the EventEngine's own threads.

grpcio 1.85's EventEngine does a socket's I/O on a thread pool of its own and hands
each completion to the thread that polls the completion queue, which hands it to the
event loop: one more thread hop per completion than the iomgr path, and at human pace
no completion shares its hop with another. Switched off for the listener and the
endpoints (grpc core's ``GRPC_EXPERIMENTS``), the room service spent **×0.83** the CPU
per action at 150 act/s on 2 CPUs (2.5 against 3.0 ms, three alternated pairs, every
pair lower; flat out unchanged) — docs/decisions/0044-grpc-io-on-the-poller.md.

grpc core reads ``GRPC_EXPERIMENTS`` once, when ``grpc`` is first imported (setting it
later changes nothing), so it is set before that: by each service's ``python -m``
entry point, first thing (:func:`use_services_io`, so a service started directly —
systemd, a supervisor, a shell — runs as the image does), and by the launchers — the
Makefile (``make run``, ``make test``, ``make bench``), the Dockerfile (every container
of ``docker-compose.yml`` and ``deploy/k8s``), the benchmarks' harnesses for the
processes they start (:func:`child_env`). An operator's own ``GRPC_EXPERIMENTS`` wins
everywhere; ``GRPC_EXPERIMENTS=`` (empty) runs grpc's defaults.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

__all__ = ["GRPC_EXPERIMENTS", "child_env", "use_services_io"]

#: grpc core's experiments the services run with (the Makefile and Dockerfile say the same;
#: tests/unit/test_deploy_manifests.py holds them to it)
GRPC_EXPERIMENTS = "-event_engine_listener,-event_engine_for_all_other_endpoints"


def child_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default ``os.environ``) for a service process started from Python, with
    the services' ``GRPC_EXPERIMENTS`` unless it already sets one."""
    env = dict(os.environ if environ is None else environ)
    env.setdefault("GRPC_EXPERIMENTS", GRPC_EXPERIMENTS)
    return env


def use_services_io() -> bool:
    """Give this process the services' ``GRPC_EXPERIMENTS`` unless it has its own; called by
    a service's ``__main__`` before anything imports ``grpc``. False (and nothing set) when
    ``grpc`` is already imported: grpc core would not read it any more."""
    if "grpc" in sys.modules:
        return False
    os.environ.setdefault("GRPC_EXPERIMENTS", GRPC_EXPERIMENTS)
    return True
