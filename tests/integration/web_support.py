"""Helpers of the browser-protocol tests: the two protocols, a connectrpc client of a web server,
and a CORS preflight."""

from __future__ import annotations

import http.client

from connectrpc.client import ConnectClient
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.protocol import ProtocolType

from hand_web.server import WebServer

PROTOCOLS = [ProtocolType.CONNECT, ProtocolType.GRPC_WEB]


def client(web: WebServer, protocol: ProtocolType) -> ConnectClient:
    return ConnectClient(web.url.rstrip("/"), protocol=protocol, codec=google_protobuf_binary_codec(),
                         send_compression=None)


def preflight(web: WebServer, origin: str, path: str = "/hand.v1.RulesService/Echo",
              wanted: str | None = "content-type,connect-protocol-version") -> http.client.HTTPResponse:
    """A CORS preflight of ``path`` from ``origin`` asking for the headers ``wanted`` (None: none named)."""
    conn = http.client.HTTPConnection(web.target.rsplit(":", 1)[0], web.port, timeout=5)
    headers = {"Origin": origin, "Access-Control-Request-Method": "POST"}
    if wanted is not None:
        headers["Access-Control-Request-Headers"] = wanted
    conn.request("OPTIONS", path, headers=headers)
    response = conn.getresponse()
    response.read()
    conn.close()
    return response
