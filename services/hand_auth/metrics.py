"""The auth service's metrics (docs/operations.md); the RPCs themselves are counted at the edge.

- ``hand_auth_sign_ins_total{account}``: guest sign-ins, ``new`` or ``returning`` account;
- ``hand_auth_refreshes_total``: sessions refreshed (a refresh token spent);
- ``hand_auth_refusals_total{reason}``: calls refused, by ``ErrorCode`` (``UNAUTHENTICATED``,
  ``INVALID_ARGUMENT``, ``LIMIT_EXCEEDED``, ``SERVICE_UNAVAILABLE``, ``INTERNAL`` …).
"""

from __future__ import annotations

from hand_common.metrics import counter

__all__ = ["REFRESHES", "REFUSALS", "SIGN_INS"]

SIGN_INS = counter("hand_auth_sign_ins", "Guest sign-ins, by new or returning account", ["account"])
REFRESHES = counter("hand_auth_refreshes", "Sessions refreshed with a refresh token")
REFUSALS = counter("hand_auth_refusals", "Auth calls refused, by reason (ErrorCode)", ["reason"])
