"""The room aggregate: immutable; a room is the fold of its events (``evolve``)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from hand_engine import MatchState, Options, RoundState


def token_hash(token: str) -> str:
    """What a room keeps of a seat token: its sha256 ("" for no token)."""
    return hashlib.sha256(token.encode()).hexdigest() if token else ""


@dataclass(frozen=True)
class SeatSlot:
    kind: str = "empty"  # "empty" | "human" | "bot"
    player_id: str = ""
    name: str = ""
    token_hash: str = ""  # sha256 of the seat token (the token itself is never stored)
    bot_level: str = ""  # a bot seat's level; for a human seat, the stand-in bot's
    away: bool = False  # a human seat currently played by a bot
    timeouts: int = 0  # consecutive expired turns
    connected_at: float = 0.0  # when the player's latest stream opened
    seat_seed: str = ""  # the seat's contribution to the fair deals (public)


@dataclass(frozen=True)
class Room:
    room_id: str
    code: str
    public: bool
    preset: str
    options: Options
    turn_seconds: int
    seats: tuple[SeatSlot, ...]
    host_seat: int = 0
    status: str = "waiting"  # "waiting" | "playing" | "finished"
    match: MatchState | None = None
    round: RoundState | None = None
    seq: int = 0  # the seq the next event takes
    game_seq: int = 0  # the seq after the latest event that is not chat (what expected_seq is checked against)
    round_seq: int = 0  # the seq of the current round's round_dealt
    moved_seq: int = -1  # the seq of the latest event that changed the round (deal or move)
    turn_started_at: float = 0.0  # when the current turn started (event time)
    created_at: float = 0.0
    waiting_ttl_s: int = 0  # still waiting this long after created_at: expired (0: never)
    left_tokens: frozenset[str] = frozenset()  # hashes of tokens whose seat was left or freed
    deal_version: int = 0  # MatchStarted.deal_version
    server_seed: bytes = b""  # SECRET: the current round's server seed (version 1), revealed at its end
    match_secret: bytes = b""  # SECRET: the room's match secret (version 2), revealed at the match's end
    # (player id, seat seed) of every person who took a seat here: a player's seed is fixed for the
    # room the first time they sit down (decision 0033), a later join of theirs reuses it
    player_seeds: tuple[tuple[str, str], ...] = ()

    @property
    def n(self) -> int:
        return len(self.seats)

    def expired_at(self, now: float) -> bool:
        """A room nobody started in time: no longer listed, joined or started."""
        return self.status == "waiting" and self.waiting_ttl_s > 0 and now >= self.created_at + self.waiting_ttl_s

    def seed_of(self, player_id: str) -> str | None:
        """The seat seed ``player_id`` first sat down with in this room (None: never sat here)."""
        return next((seed for who, seed in self.player_seeds if who == player_id), None) if player_id else None

    def free_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.kind == "empty"]

    def seat_of_token(self, token_hash: str) -> int | None:
        if not token_hash:
            return None
        for i, s in enumerate(self.seats):
            if s.kind == "human" and s.token_hash == token_hash:
                return i
        return None

    def expired(self, token_hash: str, write: bool = True) -> str | None:
        """Why a seat token no longer opens anything here: ``seat_left`` (its seat was left
        or freed by the host), ``match_ended`` (every seat token, for writes, once the match
        is over); None while it still does, or for a token that never held a seat."""
        if token_hash and token_hash in self.left_tokens:
            return "seat_left"
        if write and self.status == "finished" and self.seat_of_token(token_hash) is not None:
            return "match_ended"
        return None

    def seat_to_move(self) -> int | None:
        if self.status != "playing" or self.round is None or self.round.result is not None:
            return None
        return self.round.turn.seat

    def bot_controls(self, seat: int) -> bool:
        s = self.seats[seat]
        return s.kind == "bot" or (s.kind == "human" and s.away)
