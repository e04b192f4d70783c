"""Verify a room's provably fair deals from its public record alone
(docs/decisions/0022-provably-fair-deals.md).

``verify_deals(records)`` walks a room's events as hand.room-events-public
carries them (a complete replay works too: its secrets are checked as well)
and, per round: the revealed server seed (``round_scored.server_seed``)
against ``round_started``'s commitment; the deal recomputed from the revealed
seed and the recorded seat seeds (deck, round 1's dealer, the engine events
of the deal); then every recorded move re-applied from the recomputed deal,
each recomputed engine event equal to the recorded one (or to its public
form, where the record is redacted: a stock draw's card, a rebuild's order),
and the round's result. A version-0 round (nothing committed) is
unverifiable; a round not yet scored is pending (nothing revealed).

Version 2 (docs/decisions/0034-match-commitment.md) adds the room's own
commitment: ``room_created.deal_commitment`` (published before any seat seed)
must be SHA-256 of the match secret ``match_ended`` reveals, the round's
revealed server seed must be ``fair.round_seed`` of it, round_started's seat
seeds must be the seats' recorded ``seat_taken`` seeds, and every bot seat's
seed ``fair.drawn_seat_seed`` of it. A version-2 round that checks out while
the match goes on (its secret not revealed yet) is pending.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from hand_engine import (
    DealSeeds, Options, RoundStarted, RuleViolation, StockRebuilt, apply, commitment, drawn_seat_seed, redact,
    round_seed, start_round,
)

from .events import MatchEnded, MatchStarted, MoveMade, Recorded, RoomCreated, RoundDealt, RoundScored, SeatLeft, \
    SeatTaken

VERIFIED, FAILED, PENDING, UNVERIFIABLE = "verified", "failed", "pending", "unverifiable"


@dataclass(frozen=True)
class DealCheck:
    """One round's verdict and the values it was checked with."""

    round_no: int
    deal_version: int
    verdict: str  # VERIFIED | FAILED | PENDING | UNVERIFIABLE
    commitment: bytes = b""
    server_seed: bytes = b""
    seat_seeds: tuple[str, ...] = ()
    rebuilds: int = 0
    moves: int = 0
    mismatch_seq: int | None = None
    mismatch: str = ""
    match_commitment: bytes = b""  # version 2: room_created.deal_commitment
    match_secret: bytes = b""  # version 2: match_ended's reveal (b"" until the match ends)


@dataclass
class _Round:
    dealt: Recorded
    started: RoundStarted
    seats: tuple[tuple[str, str], ...] = ()  # (kind, seat seed) of each seat when it was dealt
    moves: list[Recorded] = field(default_factory=list)


@dataclass(frozen=True)
class _Match:
    """What version 2 checks a round against: the room's commitment and the match's reveal."""

    commitment: bytes = b""
    secret: bytes = b""
    ended_seq: int | None = None


class _Mismatch(Exception):
    def __init__(self, seq: int, what: str) -> None:
        super().__init__(what)
        self.seq, self.what = seq, what


def _same(fresh: Sequence[object], recorded: Sequence[object], seq: int, what: str) -> None:
    """Each recorded engine event is the recomputed one, or its public form."""
    if len(fresh) != len(recorded):
        raise _Mismatch(seq, f"{what}: {len(fresh)} engine events recomputed, {len(recorded)} recorded")
    for i, (a, b) in enumerate(zip(fresh, recorded)):
        if b != a and b != redact(a, None):  # type: ignore[arg-type]
            raise _Mismatch(seq, f"{what}: engine event {i} ({type(b).__name__}) differs from the "
                                 f"recomputed {type(a).__name__}")


def _committed(m: _Match, r: _Round, round_no: int, seed: bytes, scored_seq: int) -> bool:
    """Version 2's checks against the room's commitment; False while the match secret is unrevealed."""
    if not m.commitment:
        raise _Mismatch(r.dealt.seq, "a version-2 deal in a room that committed to no match secret")
    if r.started.seat_seeds != tuple(s for _, s in r.seats):
        raise _Mismatch(r.dealt.seq, "round_started's seat seeds are not the seats' recorded seeds")
    if m.ended_seq is None:
        return False
    if commitment(m.secret) != m.commitment:
        raise _Mismatch(m.ended_seq, "the revealed match secret does not hash to room_created's commitment")
    if round_seed(m.secret, round_no) != seed:
        raise _Mismatch(scored_seq, "the round's server seed is not derived from the match secret")
    for seat, (kind, s) in enumerate(r.seats):
        if kind == "bot" and s != drawn_seat_seed(m.secret, seat):
            raise _Mismatch(r.dealt.seq, f"seat {seat}'s bot seed is not derived from the match secret")
    return True


def _check_round(options: Options, n: int, prev_dealer: int | None, r: _Round,
                 scored: Recorded | None, m: _Match = _Match()) -> DealCheck:
    st, dealt = r.started, r.dealt.event
    assert isinstance(dealt, RoundDealt)
    base = DealCheck(dealt.round_no, st.deal_version, PENDING, st.commitment, b"", st.seat_seeds)
    if st.deal_version >= 2:
        base = _replace(base, match_commitment=m.commitment, match_secret=m.secret)
    if st.deal_version == 0:
        return _replace(base, verdict=UNVERIFIABLE, mismatch="version 0: nothing was committed")
    if scored is None:
        return base
    reveal = scored.event
    assert isinstance(reveal, RoundScored)
    base = _replace(base, server_seed=reveal.server_seed)
    moves = rebuilds = 0
    try:
        if commitment(reveal.server_seed) != st.commitment:
            raise _Mismatch(scored.seq, "the revealed server seed does not hash to the commitment")
        if dealt.server_seed and dealt.server_seed != reveal.server_seed:
            raise _Mismatch(r.dealt.seq, "the recorded server seed is not the revealed one")
        dealer = None if prev_dealer is None else (prev_dealer + 1) % n
        try:
            state, fresh = start_round(options, n, dealer=dealer, round_no=dealt.round_no,
                                       fair=DealSeeds(reveal.server_seed, st.seat_seeds, st.deal_version))
        except RuleViolation as exc:
            raise _Mismatch(r.dealt.seq, f"the deal cannot be recomputed: {exc.detail}") from None
        if state.dealer != dealt.dealer:
            raise _Mismatch(r.dealt.seq, f"dealer {dealt.dealer} recorded, {state.dealer} recomputed")
        if dealt.deck and dealt.deck != state.deck:
            raise _Mismatch(r.dealt.seq, "the recorded deck is not the recomputed one")
        _same([_public_seed(e) for e in fresh], [_public_seed(e) for e in dealt.events], r.dealt.seq, "the deal")
        for rec in r.moves:
            mv = rec.event
            assert isinstance(mv, MoveMade)
            try:
                state, fresh = apply(state, mv.seat, mv.action)
            except RuleViolation as exc:
                raise _Mismatch(rec.seq, f"the move is refused on the recomputed deal: {exc.detail}") from None
            _same(fresh, mv.events, rec.seq, "a move")
            moves += 1
            rebuilds += sum(1 for e in fresh if isinstance(e, StockRebuilt))
        if state.result is None or state.result != reveal.result:
            raise _Mismatch(scored.seq, "the round's result differs from the recomputed one")
        if st.deal_version >= 2 and not _committed(m, r, dealt.round_no, reveal.server_seed, scored.seq):
            return _replace(base, moves=moves, rebuilds=rebuilds)  # pending: the match secret comes at the end
    except _Mismatch as x:
        return _replace(base, verdict=FAILED, moves=moves, rebuilds=rebuilds, mismatch_seq=x.seq,
                        mismatch=x.what)
    return _replace(base, verdict=VERIFIED, moves=moves, rebuilds=rebuilds)


def _public_seed(e: object) -> object:
    """The match seed plays no part in a version-1 deal: left out of the comparison."""
    return replace(e, seed=None) if isinstance(e, RoundStarted) else e


def _replace(c: DealCheck, **changes: object) -> DealCheck:
    return replace(c, **changes)  # type: ignore[arg-type]


def _match_of(records: Sequence[Recorded]) -> _Match:
    first = records[0].event if records else None  # the commitment counts only before any seat seed
    created = first if isinstance(first, RoomCreated) else None
    ended = next((r for r in records if isinstance(r.event, MatchEnded)), None)
    return _Match(created.deal_commitment if created else b"",
                  ended.event.match_secret if ended else b"", ended.seq if ended else None)  # type: ignore[union-attr]


def verify_deals(records: Iterable[Recorded]) -> list[DealCheck]:
    """Every dealt round's verdict, in order (see the module doc)."""
    records = list(records)
    m = _match_of(records)
    options: Options | None = None
    n = 0
    out: list[DealCheck] = []
    current: _Round | None = None
    prev_dealer: int | None = None
    seats: list[tuple[str, str]] = []
    for rec in records:
        ev = rec.event
        if isinstance(ev, RoomCreated):
            options, n = ev.options, ev.options.seat_count
            seats = [("empty", "")] * n
        elif isinstance(ev, SeatTaken) and 0 <= ev.seat < n:
            seats[ev.seat] = (ev.kind, ev.seat_seed)
        elif isinstance(ev, SeatLeft) and 0 <= ev.seat < n:
            seats[ev.seat] = ("empty", "")
        elif isinstance(ev, MatchStarted):
            prev_dealer = None
            if ev.starter_seat is not None and 0 <= ev.starter_seat < n:  # the host's seed given at the start
                seats[ev.starter_seat] = (seats[ev.starter_seat][0], ev.starter_seat_seed)
        elif isinstance(ev, RoundDealt):
            if current is not None:
                out.append(_check_round(options, n, prev_dealer, current, None, m))  # type: ignore[arg-type]
            started = next((e for e in ev.events if isinstance(e, RoundStarted)), None)
            if options is None or started is None:
                raise ValueError(f"seq {rec.seq}: a deal without room_created or round_started")
            current = _Round(rec, started, tuple(seats))
        elif isinstance(ev, MoveMade) and current is not None:
            current.moves.append(rec)
        elif isinstance(ev, RoundScored) and current is not None:
            out.append(_check_round(options, n, prev_dealer, current, rec, m))  # type: ignore[arg-type]
            prev_dealer = current.dealt.event.dealer  # type: ignore[union-attr]
            current = None
    if current is not None:
        out.append(_check_round(options, n, prev_dealer, current, None, m))  # type: ignore[arg-type]
    return out
