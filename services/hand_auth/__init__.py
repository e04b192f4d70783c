"""The auth service: backend-issued player identity (``python -m hand_auth``).

Guest (device) sign-in creates and remembers a player; sessions are EdDSA
JWTs with an expiry, renewed with single-use refresh tokens. Other services
verify sessions with ``hand_common.identity`` and the public key only. See
proto/hand/v1/auth_service.proto and docs/decisions/0007-player-identity.md.
"""


def __getattr__(name: str):
    """The service's front door for ``hand_run`` (``AuthServer``), loaded on first use: the
    composition root imports ``hand_auth`` itself, never its modules, and importing any other
    module of the package does not load the server."""
    if name == "AuthServer":
        from .server import AuthServer

        return AuthServer
    if name == "AuthConfig":  # its settings (decision 0032)
        from .settings import AuthConfig

        return AuthConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
