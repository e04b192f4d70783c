"""``hand_web.app.WebApp`` without a socket: the built app's files (gzip, ETag, nothing outside the
folder), CORS preflights for the configured origins only, service paths routed to their app."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from hand_web.app import WebApp


async def call(app: WebApp, method: str, path: str, headers: dict[str, str] | None = None) -> dict:
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path,
             "headers": [(k.encode(), v.encode()) for k, v in (headers or {}).items()]}
    await app(scope, receive, send)
    start = sent[0]
    return {"status": start["status"], "headers": {k.decode(): v.decode() for k, v in start["headers"]},
            "body": b"".join(m.get("body", b"") for m in sent[1:])}


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "index.html").write_text("<!doctype html><title>Hand</title>")
    (tmp_path / "dist" / "app.js").write_text("console.log('hand')")
    (tmp_path / "secret.txt").write_text("not served")
    return tmp_path / "dist"


async def test_the_index_and_the_bundle_are_served_gzipped_with_an_etag(dist: Path) -> None:
    app = WebApp([], dist)
    page = await call(app, "GET", "/", {"accept-encoding": "gzip, br"})
    assert page["status"] == 200 and page["headers"]["content-type"].startswith("text/html")
    assert page["headers"]["content-encoding"] == "gzip"
    assert gzip.decompress(page["body"]).startswith(b"<!doctype html>")
    script = await call(app, "GET", "/app.js")
    assert script["body"] == b"console.log('hand')" and "javascript" in script["headers"]["content-type"]
    again = await call(app, "GET", "/app.js", {"if-none-match": script["headers"]["etag"]})
    assert again["status"] == 304 and again["body"] == b""


async def test_a_rebuilt_file_is_served_without_a_restart(dist: Path) -> None:
    app = WebApp([], dist)
    assert (await call(app, "GET", "/app.js"))["body"] == b"console.log('hand')"
    (dist / "app.js").write_text("console.log('rebuilt')")
    assert (await call(app, "GET", "/app.js"))["body"] == b"console.log('rebuilt')"


@pytest.mark.parametrize("path", ["/../secret.txt", "/%2e%2e/secret.txt", "/missing.js", "/..", "/dist"])
async def test_nothing_outside_the_folder_or_missing_is_served(dist: Path, path: str) -> None:
    assert (await call(WebApp([], dist), "GET", path))["status"] == 404


async def test_without_a_built_app_every_page_is_not_found() -> None:
    assert (await call(WebApp([], None), "GET", "/"))["status"] == 404


class FakeService:
    path = "/hand.v1.RulesService"

    async def __call__(self, scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/proto")]})
        await send({"type": "http.response.body", "body": b"ok", "more_body": False})


async def test_cors_preflights_and_headers_only_for_the_configured_origins(dist: Path) -> None:
    app = WebApp([FakeService()], dist, ["http://app.example"])
    ok = await call(app, "OPTIONS", "/hand.v1.RulesService/Echo", {"origin": "http://app.example",
                                                                  "access-control-request-headers": "content-type"})
    assert ok["status"] == 204 and ok["headers"]["access-control-allow-origin"] == "http://app.example"
    assert (await call(app, "OPTIONS", "/hand.v1.RulesService/Echo", {"origin": "http://other.example"}))["status"] == 403
    routed = await call(app, "POST", "/hand.v1.RulesService/Echo", {"origin": "http://app.example"})
    assert routed["body"] == b"ok" and routed["headers"]["access-control-allow-origin"] == "http://app.example"
    same_origin = await call(app, "POST", "/hand.v1.RulesService/Echo")
    assert same_origin["body"] == b"ok" and "access-control-allow-origin" not in same_origin["headers"]
