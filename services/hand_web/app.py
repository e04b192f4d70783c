"""The web server's ASGI application: browser protocol, CORS, and the built web app.

``/hand.v1.<Service>/<Method>`` goes to that service's ``ServiceApp``
(Connect or gRPC-Web, chosen by the request's content type); any other GET
serves a file of the built web app (``index.html`` for ``/``), gzip'd when
the browser accepts it. Cross-origin calls are allowed only from the
configured origins (``HAND_WEB_CORS_ORIGINS``); a same-origin page (the one
this server serves) needs no CORS at all.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import structlog

from .adapter import ServiceApp

__all__ = ["WebApp"]

log = structlog.get_logger("hand_web")
# What a page sends (a preflight that names its headers gets those back): the session, the language,
# and the mark of a call that follows a ROOM_MOVED to the room's owner (docs/clients.md).
ALLOW_HEADERS = ("content-type, connect-protocol-version, connect-timeout-ms, grpc-timeout, x-grpc-web, "
                 "x-user-agent, accept-language, authorization, hand-redirected")
EXPOSE_HEADERS = "grpc-status, grpc-message, grpc-status-details-bin, content-encoding"
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml", ".json": "application/json",
         ".map": "application/json"}


class WebApp:
    """Routes browser-protocol calls to the services and serves the static web app."""

    def __init__(self, services: Iterable[ServiceApp], static_dir: Path | None,
                 cors_origins: Iterable[str] = ()) -> None:
        self.services = {app.path: app for app in services}
        self.static_dir = static_dir
        self.origins = frozenset(cors_origins)
        self._files: dict[str, tuple[int, tuple[bytes, bytes, str, str]]] = {}

    def _allowed(self, origin: str) -> bool:
        return bool(origin) and ("*" in self.origins or origin in self.origins)

    def _cors(self, origin: str) -> list[tuple[bytes, bytes]]:
        if not self._allowed(origin):
            return []
        return [(b"access-control-allow-origin", origin.encode()), (b"vary", b"Origin"),
                (b"access-control-expose-headers", EXPOSE_HEADERS.encode())]

    async def __call__(self, scope: dict[str, Any], receive, send) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
        origin = headers.get("origin", "")
        path: str = scope["path"]
        service = self.services.get("/" + path.lstrip("/").split("/", 1)[0])
        if service is not None:
            if scope["method"] == "OPTIONS":
                await self._preflight(origin, headers, send)
                return
            extra = self._cors(origin)

            async def send_cors(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start" and extra:
                    message = {**message, "headers": [*message.get("headers", ()), *extra]}
                await send(message)

            await service(scope, receive, send_cors)
            return
        await self._static(path, scope["method"], headers, send)

    async def _preflight(self, origin: str, headers: dict[str, str], send) -> None:
        if not self._allowed(origin):
            log.info("cors_refused", origin=origin)
            await _respond(send, 403, b"", [])
            return
        wanted = headers.get("access-control-request-headers", ALLOW_HEADERS)
        await _respond(send, 204, b"", [
            *self._cors(origin), (b"access-control-allow-methods", b"POST, GET, OPTIONS"),
            (b"access-control-allow-headers", wanted.encode()), (b"access-control-max-age", b"7200")])

    def _file(self, path: str) -> tuple[bytes, bytes, str, str] | None:
        if self.static_dir is None:
            return None
        rel = "index.html" if path in ("", "/") else path.lstrip("/")
        target = (self.static_dir / rel).resolve()
        if self.static_dir.resolve() not in target.parents or not target.is_file():
            return None
        stamp = target.stat().st_mtime_ns  # a rebuilt app (make web) is served without a restart
        cached = self._files.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        body = target.read_bytes()
        kind = TYPES.get(target.suffix) or mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        entry = (body, gzip.compress(body, 6, mtime=0), kind, hashlib.sha256(body).hexdigest()[:16])
        self._files[path] = (stamp, entry)
        return entry

    async def _static(self, path: str, method: str, headers: dict[str, str], send) -> None:
        entry = self._file(path) if method in ("GET", "HEAD") else None
        if entry is None:
            await _respond(send, 404, b"not found", [(b"content-type", b"text/plain")])
            return
        body, zipped, kind, etag = entry
        out = [(b"content-type", kind.encode()), (b"etag", f'"{etag}"'.encode()),
               (b"cache-control", b"no-cache"), (b"vary", b"Accept-Encoding")]
        if headers.get("if-none-match") == f'"{etag}"':
            await _respond(send, 304, b"", out)
            return
        if "gzip" in headers.get("accept-encoding", ""):
            body = zipped
            out.append((b"content-encoding", b"gzip"))
        await _respond(send, 200, b"" if method == "HEAD" else body, out)


async def _respond(send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [*headers, (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body, "more_body": False})
