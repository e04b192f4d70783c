"""The auth service: backend-issued player identity (``python -m hand_auth``).

Guest (device) sign-in creates and remembers a player; sessions are EdDSA
JWTs with an expiry, renewed with single-use refresh tokens. Other services
verify sessions with ``hand_common.identity`` and the public key only. See
proto/hand/v1/auth_service.proto and docs/decisions/0007-player-identity.md.
"""
