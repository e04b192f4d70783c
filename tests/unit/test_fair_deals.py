"""Provably fair deals (decision 0022): the hand-deal/1 derivation, the room's
commitment and reveal, and the verifier's verdicts on tampered records.

Every room here is created as before decision 0034 (no match secret committed in
room_created), so its matches deal version 1 exactly as the stored matches of
that time: they must keep verifying. Version 2: test_fair_deals_v2.py."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from hand_engine import (
    CardDiscarded, DealSeeds, Discard, RoundStarted, RuleViolation, check_seat_seed, commitment, resolve,
    start_round,
)
from hand_engine import fair
from hand_table import MatchStarted, MoveMade, RoundDealt, RoundScored, SeatTaken, complete, for_seat, verify_deals
from hand_sim.matches import play_match

SEED = bytes(range(32))


@pytest.fixture(autouse=True)
def _rooms_as_before_version_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """A room created before decision 0034: no match secret, no commitment in room_created."""
    import hand_table.lobby

    monkeypatch.setattr(hand_table.lobby, "new_match_secret", lambda: b"")


def test_the_known_answer_vector_of_hand_deal_1() -> None:
    """Pinned: docs/decisions/0022 and the Node conformance client quote the same values."""
    key = fair.deal_key(DealSeeds(SEED, ("alice", "bob")), 1, 2)
    assert key.hex() == "b9e2c70b6a17092de2d2462321f7202bdb089a1341e4e37a6614d387b9bf6822"
    assert [c + 1 for c in fair.deck(key, 106)[:10]] == [81, 83, 68, 13, 43, 38, 25, 4, 79, 3]
    assert fair.dealer(key, 2) == 1
    assert commitment(SEED).hex() == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert [c + 1 for c in fair.rebuild(key, [5, 1, 9, 3], 1)] == [6, 2, 10, 4]


def test_a_fair_deal_is_a_permutation_fixed_by_every_input() -> None:
    seeds = DealSeeds(SEED, ("a", "b", "c", "d"))
    state, events = start_round(resolve("hand"), 4, fair=seeds)
    assert sorted(state.deck) == list(range(106))
    assert start_round(resolve("hand"), 4, fair=seeds)[0].deck == state.deck  # deterministic
    others = [DealSeeds(bytes(32), seeds.seat_seeds), DealSeeds(SEED, ("a", "b", "c", "e"))]
    assert all(start_round(resolve("hand"), 4, fair=s)[0].deck != state.deck for s in others)
    assert start_round(resolve("hand"), 4, fair=seeds, round_no=2)[0].deck != state.deck
    started = events[0]
    assert isinstance(started, RoundStarted)
    assert (started.deal_version, started.commitment, started.seat_seeds) == (1, commitment(SEED), seeds.seat_seeds)
    assert state.deal_key == fair.deal_key(seeds, 1, 4)


def test_version_0_deals_as_before() -> None:
    state, events = start_round(resolve("hand"), 4, seed=7)
    assert state.deal_key == b"" and events[0].deal_version == 0 and events[0].commitment == b""


def test_uniform_skips_the_words_that_would_bias_it() -> None:
    top = 1 << 64
    assert fair._uniform(iter([top - 1, 5]), 3) == 2  # top-1 >= 2^64 - 2^64 mod 3: skipped
    assert fair._uniform(iter([7]), 3) == 1


@pytest.mark.parametrize("bad", ["x" * 65, "é" * 33, "tab\there", "nul\0"])
def test_a_bad_seat_seed_is_refused_naming_its_field(bad: str) -> None:
    with pytest.raises(RuleViolation) as exc:
        check_seat_seed(bad)
    assert exc.value.code.name == "INVALID_ARGUMENT" and exc.value.params["field"] == "seat_seed"


async def _fair_match(rounds: int = 1):
    return await play_match("hand", 4, rounds=rounds, seed=5, fair=True)


async def test_the_owner_commits_before_the_deal_and_reveals_when_the_round_ends() -> None:
    run = await _fair_match()
    stored = run.stored
    seeds = [r.event.seat_seed for r in stored if isinstance(r.event, SeatTaken)]
    assert len(seeds) == 4 and all(len(s) == 32 for s in seeds)  # drawn for the seats that sent none
    assert next(r.event for r in stored if isinstance(r.event, MatchStarted)).deal_version == 1
    dealt = next(r for r in stored if isinstance(r.event, RoundDealt))
    started = dealt.event.events[0]
    assert started.commitment == hashlib.sha256(dealt.event.server_seed).digest()
    assert started.seat_seeds == tuple(seeds)
    public = for_seat(dealt, None).event
    assert public.server_seed == b"" and public.deck == ()  # nothing hidden before the round ends
    assert public.events[0].commitment == started.commitment
    scored = next(r.event for r in stored if isinstance(r.event, RoundScored))
    assert for_seat(scored_rec(stored), None).event.server_seed == dealt.event.server_seed == scored.server_seed


def scored_rec(stored):
    return next(r for r in stored if isinstance(r.event, RoundScored))


async def test_a_seat_seed_sent_on_create_and_join_is_recorded() -> None:
    from hand_table import Command, CreateRoom, JoinRoom, decide
    from hand_room.rules_port import LocalRules

    d = await decide(None, Command("r", CreateRoom("ABCDEF", False, "hand", resolve("hand").seated(2), 30, "a", "p0",
                                                   "h0", seat_seed="mine")), 1.0, LocalRules())
    d2 = await decide(d.room, Command("r", JoinRoom("b", "p1", "h1", seat_seed="theirs")), 2.0, LocalRules())
    assert [s.seat_seed for s in d2.room.seats] == ["mine", "theirs"]
    with pytest.raises(RuleViolation):
        await decide(d.room, Command("r", JoinRoom("b", "p1", "h1", seat_seed="x" * 65)), 2.0, LocalRules())


async def test_the_public_record_of_a_fair_match_verifies() -> None:
    run = await _fair_match(rounds=3)
    checks = verify_deals(for_seat(r, None) for r in run.stored)
    assert len(checks) >= 3 and {c.verdict for c in checks} == {"verified"}, checks
    assert all(c.moves > 10 for c in checks)
    assert {c.verdict for c in verify_deals(complete(r) for r in run.stored)} == {"verified"}


def _tamper(records, kind, change):
    """The records with the first event of ``kind`` changed by ``change``."""
    out, done = [], False
    for r in records:
        if not done and isinstance(r.event, kind):
            r, done = replace(r, event=change(r.event)), True
        out.append(r)
    assert done
    return out


def _flip(b: bytes) -> bytes:
    return bytes([b[0] ^ 1]) + b[1:]


def _verdict(records) -> tuple[str, str]:
    c = verify_deals(records)[0]
    return c.verdict, c.mismatch


async def test_a_tampered_seed_a_changed_commitment_a_swapped_card_fail() -> None:
    run = await _fair_match()
    public = [for_seat(r, None) for r in run.stored]
    full = [complete(r) for r in run.stored]

    seed = _tamper(public, RoundScored, lambda e: replace(e, server_seed=_flip(e.server_seed)))
    assert _verdict(seed) == ("failed", "the revealed server seed does not hash to the commitment")

    def recommit(e):
        return replace(e, events=(replace(e.events[0], commitment=_flip(e.events[0].commitment)), *e.events[1:]))
    assert _verdict(_tamper(public, RoundDealt, recommit))[0] == "failed"

    def reseed(e):
        return replace(e, events=(replace(e.events[0], seat_seeds=("x", *e.events[0].seat_seeds[1:])),
                                  *e.events[1:]))
    assert _verdict(_tamper(public, RoundDealt, reseed))[0] == "failed"

    def swap_deck(e):
        d = list(e.deck)
        d[0], d[-1] = d[-1], d[0]
        return replace(e, deck=tuple(d))
    assert _verdict(_tamper(full, RoundDealt, swap_deck)) == ("failed", "the recorded deck is not the recomputed one")

    def swap_discard(e):
        if not isinstance(e.action, Discard):
            return e
        other = (e.action.card + 53) % 106
        return replace(e, action=Discard(other), events=tuple(
            replace(x, card=other) if isinstance(x, CardDiscarded) else x for x in e.events))
    moves = [r for r in public if isinstance(r.event, MoveMade) and isinstance(r.event.action, Discard)]
    target = moves[3].seq
    swapped = [replace(r, event=swap_discard(r.event)) if r.seq == target else r for r in public]
    verdict = verify_deals(swapped)[0]
    # refused there, or (the other card happened to be in that hand too) caught by a later event
    assert verdict.verdict == "failed" and verdict.mismatch_seq is not None and verdict.mismatch_seq >= target


async def test_a_match_with_a_fixed_seed_is_unverifiable_and_a_running_round_pending() -> None:
    run = await play_match("hand", 4, rounds=1, seed=5)
    assert [c.verdict for c in verify_deals(for_seat(r, None) for r in run.stored)] == ["unverifiable"]
    fair_run = await play_match("hand", 4, rounds=1, seed=5, fair=True, stop_after=30)
    checks = verify_deals(for_seat(r, None) for r in fair_run.stored)
    assert [c.verdict for c in checks] == ["pending"] and checks[0].server_seed == b""


async def test_the_command_line_verifier_reads_a_file_of_public_events(tmp_path, capsys) -> None:
    from google.protobuf import json_format

    from hand_wire import to_proto
    from hand_verify.__main__ import main

    run = await _fair_match()
    public = [for_seat(r, None) for r in run.stored]
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text("".join(json_format.MessageToJson(to_proto(r), indent=None) + "\n" for r in public))
    tampered = _tamper(public, RoundScored, lambda e: replace(e, server_seed=_flip(e.server_seed)))
    bad.write_text("".join(json_format.MessageToJson(to_proto(r), indent=None) + "\n" for r in tampered))
    assert main(["--events", str(good)]) == 0
    assert "round 1: verified (hand-deal/1)" in capsys.readouterr().out
    assert main(["--events", str(bad)]) == 1
    assert "does not hash to the commitment" in capsys.readouterr().out
    assert main(["--events", str(tmp_path / "missing")]) == 2
