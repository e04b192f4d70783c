"""The browser face of the backend: Connect and gRPC-Web for the project's servicers, and the web app.

``adapter.ServiceApp`` exposes a grpc.aio servicer object through
``connectrpc`` (one implementation per RPC, two transports);
``app.WebApp`` routes, answers CORS and serves ``web/dist``;
``server.WebServer`` runs it under uvicorn on the caller's event loop.
"""

from .adapter import BrowserContext, ServiceApp
from .app import WebApp
from .server import WebServer

__all__ = ["BrowserContext", "ServiceApp", "WebApp", "WebServer"]
