"""Who may see which player id in the ledger's answers (docs/privacy.md, decision 0012).

An account id is shown only to its owner, the caller whose verified session
names it; everyone sees display names and public handles; bots are bots;
a guest (a human seat taken without a session) is flagged as a guest and
gets no handle, so its unverified label is never presented as an account.
"""

from __future__ import annotations

from dataclasses import dataclass

from hand_common.accounts import is_account, public_handle


@dataclass(frozen=True)
class Viewer:
    """The caller of a ledger read: ``me`` is its verified account id (None: anonymous)."""

    me: str | None
    secret: bytes

    def player_id(self, player_id: str) -> str:
        """``player_id`` as this caller may see it: its own, else ""."""
        return player_id if self.me is not None and player_id == self.me else ""

    def handle(self, player_id: str) -> str:
        return public_handle(self.secret, player_id)

    @staticmethod
    def guest(kind: str, player_id: str) -> bool:
        return kind == "human" and not is_account(player_id)
