"""The host's own seat seed given with StartMatch (decision 0035): it arrives after room_created's
commitment to the match secret, so the owner drew that secret without knowing it (the open point
(b) of decision 0034). It replaces the seed the owner drew for the host, every round deals with it,
the verifier proves the match from the public record; tampering with it fails; a host that sent
its own seed with CreateRoom cannot change it at the start (decision 0033); a rebuilt room keeps it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hand_engine import RuleViolation, fair, resolve
from hand_sim.matches import play_match
from hand_table import (
    CreateRoom, FillWithBots, MatchStarted, RoomError, RoundDealt, StartMatch, evolve, for_seat, verify_deals,
)
from hand_table import Recorded
from hand_wire.room.events import from_proto, to_proto

from tests.room_domain_support import Room


def _room(host_seed: str | None = None) -> Room:
    r = Room()
    r.run(CreateRoom("ABCDEF", False, "hand", resolve("hand").seated(2), 30, "Host", "p0", "h0", seat_seed=host_seed))
    r.run(FillWithBots("beginner"), seat=0)
    return r


def test_the_hosts_seed_given_at_the_start_replaces_the_drawn_one_and_deals() -> None:
    r = _room()
    secret = r.room.match_secret
    assert r.room.seats[0].seat_seed == fair.drawn_seat_seed(secret, 0)  # none sent with CreateRoom
    r.run(StartMatch(seat_seed="mine, after the commitment"), seat=0)
    started = r.of(MatchStarted)[0]
    assert (started.starter_seat, started.starter_seat_seed) == (0, "mine, after the commitment")
    assert r.of(RoundDealt)[0].events[0].seat_seeds == ("mine, after the commitment", fair.drawn_seat_seed(secret, 1))
    assert r.room.seed_of("p0") == "mine, after the commitment"
    rebuilt = None
    for rec in r.events:  # a new owner after a failover folds the same seeds
        rebuilt = evolve(rebuilt, rec)
    assert rebuilt.seats[0].seat_seed == "mine, after the commitment"
    assert rebuilt.seed_of("p0") == "mine, after the commitment"


def test_a_seed_sent_with_create_is_fixed_and_a_bad_one_is_refused() -> None:
    r = _room("sent at create")
    with pytest.raises(RoomError) as info:
        r.run(StartMatch(seat_seed="another"), seat=0)
    assert (info.value.code, info.value.params["field"]) == ("SEAT_SEED_FIXED", "seat_seed")
    assert not r.of(MatchStarted)
    r.run(StartMatch(seat_seed="sent at create"), seat=0)  # the same one: nothing changes
    assert r.of(MatchStarted)[0].starter_seat is None
    with pytest.raises(RuleViolation, match="printable"):  # the gateway refuses it first (INVALID_ARGUMENT)
        _room().run(StartMatch(seat_seed="\x00"), seat=0)


def test_the_seed_travels_on_the_wire() -> None:
    for ev in (MatchStarted(seed=5, deal_version=2, starter_seat=0, starter_seat_seed="s"),
               MatchStarted(seed=5, deal_version=2)):
        rec = Recorded("r", 3, 1.0, ev)
        assert from_proto(to_proto(rec)).event == ev


async def test_a_match_with_the_hosts_seed_at_the_start_verifies_and_tampering_fails() -> None:
    run = await play_match("hand", 3, rounds=3, seed=11, fair=True, bots=1, room_id="r-host-seed",
                           host_seed="host-after-commit")
    public = [for_seat(rec, None) for rec in run.stored]
    started = next(rec.event for rec in public if isinstance(rec.event, MatchStarted))
    assert started.starter_seat_seed == "host-after-commit"  # public, like a seat_taken's seed
    checks = verify_deals(public)
    assert checks and all(c.verdict == "verified" for c in checks), checks
    assert all(c.seat_seeds[0] == "host-after-commit" for c in checks)
    tampered = [replace(rec, event=replace(rec.event, starter_seat_seed="other"))
                if isinstance(rec.event, MatchStarted) else rec for rec in public]
    assert all(c.verdict == "failed" for c in verify_deals(tampered))
