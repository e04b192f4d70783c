"""The interceptors every Hand gRPC server is built with, in one place.

    server = grpc.aio.server(interceptors=edge_interceptors(config.limits, verifier), ...)

Order matters: the metrics interceptor (``hand_common.rpc_metrics``) wraps
everything, so refusals are counted too; then the bound on calls in flight
(``hand_common.in_flight``: past its capacity a server refuses before any other
work); then the rate limiter (a flood of garbage is shed
before anything else looks at it), then the door (malformed bytes and
fields over their limits → INVALID_ARGUMENT). ``limits=None`` leaves the
rate limiter out (tests and benchmarks that build a server directly).
"""

from __future__ import annotations

from pathlib import Path

import grpc

from .config import TLS_CA_FILE, TLS_CERT_FILE, TLS_KEY_FILE, GrpcServerConfig, RateLimitConfig
from .env import EnvReader
from .door import DoorInterceptor
from .identity import Verifier
from .in_flight import InFlightLimit
from .ratelimit import RateLimitInterceptor
from .rpc_metrics import MetricsInterceptor

__all__ = ["bind", "channel_credentials", "edge_interceptors"]


def edge_interceptors(limits: RateLimitConfig | None = None, verifier: Verifier | None = None,
                      max_in_flight: int = 0) -> list[grpc.aio.ServerInterceptor]:
    """``[MetricsInterceptor, InFlightLimit, RateLimitInterceptor, DoorInterceptor]`` (the
    in-flight bound only when ``max_in_flight`` > 0, the rate limiter only when ``limits``
    is given)."""
    chain: list[grpc.aio.ServerInterceptor] = [MetricsInterceptor()]
    if max_in_flight > 0:
        chain.append(InFlightLimit(max_in_flight))
    if limits is not None:
        chain.append(RateLimitInterceptor(limits, verifier))
    chain.append(DoorInterceptor())
    return chain


def bind(server: grpc.aio.Server, config: GrpcServerConfig) -> int:
    """Listen on ``config.address``: TLS when a certificate is configured (mutual TLS with
    ``tls_client_ca_file``), plaintext otherwise. Returns the bound port."""
    try:
        if not config.tls_cert_file:
            return server.add_insecure_port(config.address)
        client_ca = Path(config.tls_client_ca_file).read_bytes() if config.tls_client_ca_file else None
        credentials = grpc.ssl_server_credentials(
            [(Path(config.tls_key_file).read_bytes(), Path(config.tls_cert_file).read_bytes())],
            root_certificates=client_ca, require_client_auth=client_ca is not None)
        return server.add_secure_port(config.address, credentials)
    except RuntimeError as error:  # the address is taken or cannot be bound
        raise OSError(f"cannot listen on {config.address}: {error}") from None


def channel_credentials(environ: dict[str, str] | None = None) -> grpc.ChannelCredentials | None:
    """Credentials for dialing another Hand service: None (plaintext) unless
    ``HAND_TLS_CA_FILE`` is set; with ``HAND_TLS_CERT_FILE``/``HAND_TLS_KEY_FILE`` the
    service also presents its own certificate (for servers that require mTLS)."""
    env = EnvReader(environ)
    ca = env.get(TLS_CA_FILE)
    if not ca:
        return None
    cert, key = env.raw(TLS_CERT_FILE), env.raw(TLS_KEY_FILE)
    return grpc.ssl_channel_credentials(
        root_certificates=Path(ca).read_bytes(),
        private_key=Path(key).read_bytes() if key else None,
        certificate_chain=Path(cert).read_bytes() if cert else None)
