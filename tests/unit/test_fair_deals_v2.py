"""Provably fair deals, version 2 (decision 0034): the room commits to a match secret in
room_created, before any seat seed is taken; every round's server seed and every seat seed
the owner draws derive from it; match_ended reveals it; the verifier checks all of it from
the public record alone. (Version 1, as stored before: test_fair_deals.py.)"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from hand_engine import PRESETS, CardDiscarded, DealSeeds, Discard, RoundStarted, fair, resolve, start_round
from hand_table import (
    MatchEnded, MatchStarted, MoveMade, RoomCreated, RoundDealt, RoundScored, SeatTaken, complete, for_seat,
    verify_deals,
)
from hand_sim.matches import play_match

SECRET = bytes(range(32))


def test_the_known_answer_vector_of_hand_deal_2() -> None:
    """Pinned: docs/decisions/0034 and the Node conformance client quote the same values."""
    assert hashlib.sha256(SECRET).hexdigest() == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    seed1 = fair.round_seed(SECRET, 1)
    assert seed1.hex() == KNOWN["round1"]
    assert fair.round_seed(SECRET, 2).hex() == KNOWN["round2"]
    assert fair.drawn_seat_seed(SECRET, 1) == KNOWN["seat1"]
    key = fair.deal_key(DealSeeds(seed1, ("alice", "bob"), 2), 1, 2)
    assert key.hex() == KNOWN["key"]
    assert [c + 1 for c in fair.deck(key, 106)[:10]] == KNOWN["deck"]
    # the domain separates the versions: the same seeds key another deal under hand-deal/1
    assert fair.deal_key(DealSeeds(seed1, ("alice", "bob"), 1), 1, 2) != key


KNOWN = {
    "round1": "0224ca00477d12f3150cafa66c21b1eadd6ce3cd73306013471447a22f704434",
    "round2": "dfb6f3ae9ff524769d6d6c9ef2b8a2dcc14875e598f9b3cce5a84e6e38347257",
    "seat1": "27907ce58f02499480328d8eb8ce589d",
    "key": "71c8b9d242f13f9f81311a03703e0b36d5b127043e87f986059bb1ddc40c0f01",
    "deck": [93, 84, 45, 89, 71, 87, 35, 82, 6, 12],
}


async def _match(preset: str = "hand", seats: int = 4, rounds: int = 1, bots: int = 2, **kw):
    return await play_match(preset, seats, rounds=rounds, seed=sum(map(ord, preset)) + rounds, fair=True,
                            bots=bots, room_id=f"room-{preset}", **kw)


def _public(run):
    return [for_seat(r, None) for r in run.stored]


def _seats(n_seats_preset: str) -> int:
    o = resolve(n_seats_preset)
    return 4 if o.partnership else min(o.max_players, 5)


async def test_the_room_commits_before_any_seat_seed_and_reveals_at_the_match_end() -> None:
    run = await _match(rounds=3)
    stored = run.stored
    created = stored[0].event
    assert isinstance(created, RoomCreated) and isinstance(stored[1].event, SeatTaken)
    secret = created.match_secret
    assert len(secret) == 32 and created.deal_commitment == hashlib.sha256(secret).digest()
    assert next(r.event for r in stored if isinstance(r.event, MatchStarted)).deal_version == 2
    taken = {r.event.seat: r.event for r in stored if isinstance(r.event, SeatTaken)}
    for seat in (2, 3):  # the bots' seeds, and the players' who sent none, are the secret's
        assert taken[seat].kind == "bot" and taken[seat].seat_seed == fair.drawn_seat_seed(secret, seat)
    assert taken[1].seat_seed == fair.drawn_seat_seed(secret, 1)
    for rec in stored:
        if isinstance(rec.event, RoundDealt):
            started = rec.event.events[0]
            assert started.deal_version == 2
            assert rec.event.server_seed == fair.round_seed(secret, rec.event.round_no)
            assert started.commitment == hashlib.sha256(rec.event.server_seed).digest()
            assert started.seat_seeds == tuple(taken[s].seat_seed for s in range(4))
    ended = stored[-1].event
    assert isinstance(ended, MatchEnded) and ended.match_secret == secret


async def test_nothing_secret_reaches_a_seat_or_the_public_topic_before_it_is_due() -> None:
    run = await _match(rounds=3)
    for rec in run.stored[:-1]:  # everything before match_ended
        for seat in (None, 0, 1):
            ev = for_seat(rec, seat).event
            if isinstance(ev, RoomCreated):
                assert ev.match_secret == b"" and len(ev.deal_commitment) == 32
            assert not isinstance(ev, MatchEnded)
    assert for_seat(run.stored[-1], None).event.match_secret == run.stored[0].event.match_secret
    assert complete(run.stored[0]).event.match_secret  # a finished match's replay keeps it


@pytest.mark.parametrize("preset", sorted(PRESETS))
async def test_every_round_of_every_preset_verifies_from_the_public_record(preset: str) -> None:
    n = _seats(preset)
    run = await _match(preset, n, rounds=3, bots=n // 2)
    checks = verify_deals(_public(run))
    assert len(checks) >= 3 and {c.verdict for c in checks} == {"verified"}, checks
    assert all(c.deal_version == 2 and c.match_secret == run.stored[0].event.match_secret for c in checks)
    assert {c.verdict for c in verify_deals(complete(r) for r in run.stored)} == {"verified"}


async def test_a_round_checks_out_but_stays_pending_until_the_match_secret_is_revealed() -> None:
    run = await _match(rounds=3)
    first_end = next(i for i, r in enumerate(run.stored) if isinstance(r.event, RoundScored))
    checks = verify_deals(_public(run)[:first_end + 1])
    assert [c.verdict for c in checks] == ["pending"] and checks[0].server_seed and not checks[0].match_secret


def _tamper(records, kind, change, nth: int = 0):
    out, seen = [], 0
    for r in records:
        if isinstance(r.event, kind):
            if seen == nth:
                r = replace(r, event=change(r.event))
            seen += 1
        out.append(r)
    assert seen > nth
    return out


def _flip(b: bytes) -> bytes:
    return bytes([b[0] ^ 1]) + b[1:]


def _failed(records) -> list[str]:
    return [c.mismatch for c in verify_deals(records) if c.verdict == "failed"]


async def test_a_changed_commitment_or_secret_a_changed_seat_seed_or_a_swapped_card_fail() -> None:
    run = await _match(rounds=3)
    public, full = _public(run), [complete(r) for r in run.stored]
    assert _failed(public) == []
    assert _failed(_tamper(public, RoomCreated, lambda e: replace(e, deal_commitment=_flip(e.deal_commitment)))) \
        == ["the revealed match secret does not hash to room_created's commitment"] * 3
    assert _failed(_tamper(public, MatchEnded, lambda e: replace(e, match_secret=_flip(e.match_secret))))
    assert _failed(_tamper(public, MatchEnded, lambda e: replace(e, match_secret=b"")))  # withheld
    assert _failed(_tamper(public, RoomCreated, lambda e: replace(e, deal_commitment=b""))) == [
        "a version-2 deal in a room that committed to no match secret"] * 3
    # a seat's recorded seed changed (the bot's, or a player's): not the seed the deals used
    assert _failed(_tamper(public, SeatTaken, lambda e: replace(e, seat_seed="changed"), nth=2)) == [
        "round_started's seat seeds are not the seats' recorded seeds"] * 3

    def reseed(e):
        return replace(e, events=(replace(e.events[0], seat_seeds=("x", *e.events[0].seat_seeds[1:])),
                                  *e.events[1:]))
    assert _failed(_tamper(public, RoundDealt, reseed))

    def swap_deck(e):
        d = list(e.deck)
        d[0], d[-1] = d[-1], d[0]
        return replace(e, deck=tuple(d))
    assert _failed(_tamper(full, RoundDealt, swap_deck)) == ["the recorded deck is not the recomputed one"]

    def swap_discard(e):
        if not isinstance(e.action, Discard):
            return e
        other = (e.action.card + 53) % 106
        return replace(e, action=Discard(other), events=tuple(
            replace(x, card=other) if isinstance(x, CardDiscarded) else x for x in e.events))
    target = [r for r in public if isinstance(r.event, MoveMade) and isinstance(r.event.action, Discard)][3].seq
    first = verify_deals([replace(r, event=swap_discard(r.event)) if r.seq == target else r for r in public])[0]
    assert first.verdict == "failed" and first.mismatch_seq is not None and first.mismatch_seq >= target


async def test_an_owner_that_grinds_its_round_seeds_or_its_bots_seeds_is_caught(monkeypatch) -> None:
    """The record of a malicious owner is consistent in itself (every round's seed hashes to its
    round_started commitment): only the room's own commitment, made first, catches it."""
    import hand_table.lobby
    import hand_table.match_play

    real = fair.round_seed
    with monkeypatch.context() as m:  # the owner's side only: the verifier keeps the real derivation
        m.setattr(hand_table.match_play, "round_seed",
                  lambda secret, r: hashlib.sha256(b"ground" + real(secret, r)).digest())
        ground = await _match(rounds=3)
    assert _failed(_public(ground)) == ["the round's server seed is not derived from the match secret"] * 3
    with monkeypatch.context() as m:
        m.setattr(hand_table.lobby, "drawn_seat_seed", lambda secret, seat: f"chosen-{seat}")
        chosen = await _match(rounds=1, bots=2)
    assert _failed(_public(chosen)) == ["seat 2's bot seed is not derived from the match secret"]


async def test_the_command_line_verifier_shows_the_match_commitment(tmp_path, capsys) -> None:
    from google.protobuf import json_format

    from hand_verify.__main__ import main
    from hand_wire import to_proto

    run = await _match()
    path = tmp_path / "public.jsonl"
    path.write_text("".join(json_format.MessageToJson(to_proto(r), indent=None) + "\n" for r in _public(run)))
    assert main(["--events", str(path)]) == 0
    out = capsys.readouterr().out
    assert "round 1: verified (hand-deal/2)" in out
    assert f"match commitment {run.stored[0].event.deal_commitment.hex()}" in out


async def test_the_rules_port_carries_the_version_to_a_remote_rules_service() -> None:
    from hand.v1 import rules_service_pb2 as rs
    from hand_rules.service import RulesService
    from hand_wire import event_from_proto

    seeds = DealSeeds(fair.round_seed(SECRET, 1), ("a", "b"), 2)
    req = rs.StartRoundRequest(seats=2, seed=0, round_no=1)
    req.rules.preset = "hand"
    req.fair.server_seed, req.fair.seat_seeds[:], req.fair.deal_version = seeds.server_seed, seeds.seat_seeds, 2
    resp = await RulesService().StartRound(req, None)
    started = event_from_proto(resp.events[0])
    assert isinstance(started, RoundStarted) and started.deal_version == 2
    assert started == start_round(resolve("hand"), 2, fair=seeds)[1][0]
