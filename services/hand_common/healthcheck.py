"""``python -m hand_common.healthcheck``: ask a server's ``grpc.health.v1`` whether it serves.

Exit status 0 when the answer is SERVING, 1 otherwise (not serving, unknown
service, unreachable, timed out). Used by container health checks, so the
image needs no ``grpc_health_probe`` binary; Kubernetes uses its built-in
gRPC probe against the same health service.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hand_common.config import SERVICES

__all__ = ["check", "main"]


def check(target: str, service: str = "", timeout_s: float = 3.0) -> str:
    """Return the serving status name of ``service`` at ``target`` (``host:port``).

    Raises ``grpc.RpcError`` when the call itself fails.
    """
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        response = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout_s)
    return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m hand_common.healthcheck",
        description="Exit 0 if the gRPC server answers SERVING to grpc.health.v1.Health/Check.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="server address (default %(default)s)")
    parser.add_argument(
        "--port",
        type=int,
        default=SERVICES["rules"].default_port,
        help="server port (default %(default)s, the rules service)",
    )
    parser.add_argument(
        "--service",
        default="",
        help="health service name; empty (the default) asks about the whole server",
    )
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds (default %(default)s)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    host = f"[{args.host}]" if ":" in args.host else args.host
    target = f"{host}:{args.port}"
    try:
        status = check(target, args.service, args.timeout)
    except grpc.RpcError as error:
        code = error.code() if isinstance(error, grpc.Call) else None
        name = code.name if code is not None else type(error).__name__
        print(f"{target}: health check failed: {name}", file=sys.stderr)
        return 1
    if status != "SERVING":
        print(f"{target}: {status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
