"""``python -m hand_auth.keys``: print a fresh Ed25519 key pair for session tokens.

    HAND_AUTH_SIGNING_KEY=…   (a secret: the auth service only)
    HAND_AUTH_PUBLIC_KEYS=…   (every service that verifies sessions)
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from hand_common.sessionkeys import b64


def main() -> None:
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    print(f"HAND_AUTH_SIGNING_KEY={b64(key.private_bytes_raw())}")
    print(f"HAND_AUTH_PUBLIC_KEYS={b64(public)}")


if __name__ == "__main__":
    main()
