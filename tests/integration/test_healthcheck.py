"""``python -m hand_common.healthcheck`` against a real gRPC health server on port 0."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from hand_common.healthcheck import main

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture
def health_server() -> Iterator[tuple[health.HealthServicer, int]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield servicer, port
    finally:
        server.stop(None).wait()


def test_exit_0_when_the_server_is_serving(health_server: tuple[health.HealthServicer, int]) -> None:
    servicer, port = health_server
    servicer.set("", SERVING)
    assert main(["--port", str(port)]) == 0


def test_exit_1_when_the_server_is_not_serving(
    health_server: tuple[health.HealthServicer, int], capsys: pytest.CaptureFixture[str]
) -> None:
    servicer, port = health_server
    servicer.set("", NOT_SERVING)
    assert main(["--port", str(port)]) == 1
    assert "NOT_SERVING" in capsys.readouterr().err


def test_a_named_service_is_checked_on_its_own(health_server: tuple[health.HealthServicer, int]) -> None:
    servicer, port = health_server
    servicer.set("", SERVING)
    servicer.set("hand.v1.RulesService", NOT_SERVING)
    assert main(["--port", str(port), "--service", "hand.v1.RulesService"]) == 1
    assert main(["--port", str(port), "--service", "hand.v1.Unknown"]) == 1


def test_exit_1_when_nothing_listens(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as bound_not_listening:
        bound_not_listening.bind(("127.0.0.1", 0))
        port = bound_not_listening.getsockname()[1]
        assert main(["--port", str(port), "--timeout", "2"]) == 1
    assert "health check failed" in capsys.readouterr().err


def test_the_module_runs_as_a_command(health_server: tuple[health.HealthServicer, int]) -> None:
    """The form compose uses: ``python -m hand_common.healthcheck --port N``."""
    servicer, port = health_server
    servicer.set("", SERVING)
    command = [sys.executable, "-m", "hand_common.healthcheck", "--port", str(port)]
    assert subprocess.run(command, timeout=30, check=False).returncode == 0
