"""The ledger's pure parts: per-room ordering with safe offsets, score-sheet rows,
tie-break outcomes (docs/rules.md §9–§10), ratings, and the replay check."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from hand_engine import RoundResult, SeatResult
from hand_engine.events import StockDrawn
from hand_engine.match import Standing
from hand_ledger import ratings, sheets
from hand_ledger.consumer import parse
from hand_wire import Delivered, encode
from hand_ledger.ordering import Hold
from hand_ledger.replay import check, fold
from hand_table import MoveMade, Recorded, RoundScored, SeatLeft
from tests.ledger_support import scenario_runs  # noqa: F401 - fixture


def ev(room: str, seq: int, offset: int, partition: str = "p0") -> Delivered:
    return Delivered(Recorded(room, seq, 0.0, SeatLeft(seat=0)), b"", partition, offset)


# ------------------------------------------------------------------ messages
def test_a_message_is_a_room_event_and_anything_else_is_malformed(scenario_runs) -> None:
    for e in scenario_runs["most_outs"].events:
        got = parse(e.payload, "p0", 7)
        assert got is not None and got.recorded == e.recorded and got.payload == e.payload
        assert (got.partition, got.offset, got.kind) == ("p0", 7, e.recorded.kind)
    for junk in (b"{\"room_id\": \"r\", \"seq\": 0}", b"\xff\x00\x01", b""):
        assert parse(junk) is None


# ------------------------------------------------------------------ ordering
def test_events_are_released_in_seq_order_once_a_gap_fills() -> None:
    hold = Hold()
    assert [e.seq for e in hold.offer(ev("a", 0, 0))] == [0]
    assert hold.offer(ev("a", 2, 1)) == [] and hold.waiting() == {"a": (1, 2)}
    assert [e.seq for e in hold.offer(ev("a", 1, 2))] == [1, 2]
    assert hold.waiting() == {}


def test_duplicates_and_replays_below_the_next_seq_are_dropped() -> None:
    hold = Hold()
    hold.seed("a", 5)  # the archive already holds 0..4
    assert hold.offer(ev("a", 3, 0)) == [] and hold.offer(ev("a", 6, 1)) == []
    assert hold.offer(ev("a", 6, 2)) == []  # the same held event again
    assert [e.seq for e in hold.offer(ev("a", 5, 3))] == [5, 6]
    assert hold.duplicates == 2


def test_the_safe_offset_stops_at_the_lowest_held_event_of_each_partition() -> None:
    hold = Hold()
    hold.offer(ev("a", 0, 10, "p0"))
    hold.offer(ev("a", 2, 11, "p0"))  # held: seq 1 missing
    hold.offer(ev("b", 0, 40, "p1"))
    assert hold.commit_offsets() == {"p0": 11, "p1": 41}
    hold.offer(ev("a", 1, 12, "p0"))
    assert hold.commit_offsets() == {"p0": 13, "p1": 41}


def test_a_finished_room_is_forgotten_unless_it_still_holds_events() -> None:
    hold = Hold()
    hold.offer(ev("a", 0, 1))
    hold.offer(ev("b", 1, 2))  # held
    hold.forget("a")
    hold.forget("b")
    assert not hold.known("a") and hold.known("b") and hold.waiting() == {"b": (0, 1)}
    assert hold._partition_rooms == {"p0": {"b"}}


def test_dropping_a_partition_forgets_its_rooms_and_held_events() -> None:
    hold = Hold()
    hold.offer(ev("a", 1, 5, "p0"))
    hold.offer(ev("b", 0, 7, "p1"))
    hold.drop_partitions(["p0"])
    assert not hold.known("a") and hold.known("b") and hold.commit_offsets() == {"p1": 8}


# ------------------------------------------------------------------ sheets
RESULT = RoundResult(finish="hand", winner=1, multiplier=2, team_scores=(400, -60), seats=(
    SeatResult(seat=0, opened=False, opening_total=None, cards_left=(1, 2), cards_value=5, score=200),
    SeatResult(seat=1, opened=True, opening_total=140, cards_left=(), cards_value=0, score=-60),
    SeatResult(seat=2, opened=False, opening_total=None, cards_left=(3,), cards_value=4, score=200),
    SeatResult(seat=3, opened=False, opening_total=None, cards_left=(), cards_value=0, score=0),
))


def test_a_round_line_adds_the_score_to_each_seat_and_team_running_total() -> None:
    r = sheets.score_round(RESULT, round_no=2, dealer=3, fixed_rounds=1, player_ids={0: "a", 1: "b"},
                           before={0: 10, 1: -30, 2: 0, 3: 5}, teams_before={0: 10, 1: -25})
    assert r.playoff and r.finish == "hand" and r.multiplier == 2 and r.winner == 1
    assert [(ln.seat, ln.player_id, ln.score, ln.running_total) for ln in r.lines] == [
        (0, "a", 200, 210), (1, "b", -60, -90), (2, "", 200, 200), (3, "", 0, 5)]
    assert r.lines[1].opening_total == 140 and r.lines[0].cards_left == (1, 2)
    assert [(t.team, t.score, t.running_total) for t in r.teams] == [(0, 400, 410), (1, -60, -85)]


def table(*rows: tuple[int, int, int]) -> dict[int, Standing]:
    return {u: Standing(unit=u, total=t, outs=o, penalty_points=p) for u, (t, o, p) in enumerate(rows)}


@pytest.mark.parametrize(("tie_break", "rows", "tied", "outcome"), [
    ("most_outs", [(5, 1, 40), (9, 0, 9)], [0], sheets.NO_TIE),
    ("most_outs", [(5, 2, 40), (5, 1, 35)], [0, 1], sheets.MOST_OUTS),
    ("most_outs", [(5, 1, 40), (5, 1, 35)], [0, 1], sheets.FEWER_PENALTY_POINTS),
    ("most_outs", [(5, 1, 35), (5, 1, 35)], [0, 1], sheets.STILL_TIED),
    ("playoff", [(5, 1, 35), (5, 1, 35)], [0, 1], sheets.PLAYOFF),
    ("shared", [(5, 1, 35), (5, 1, 35)], [0, 1], sheets.SHARED),
])
def test_the_tie_break_outcome_follows_the_engine_order(tie_break, rows, tied, outcome) -> None:
    assert sheets.tie_outcome(tie_break, tied, table(*rows)) == outcome


def test_places_put_winners_first_then_total_outs_and_penalties() -> None:
    t = table((5, 2, 40), (5, 1, 35), (9, 0, 9), (5, 1, 35))
    assert sheets.places([0, 1, 2, 3], (0,), t) == {0: 1, 1: 2, 3: 2, 2: 4}
    assert sheets.places([0, 1, 2, 3], (1, 3), t) == {1: 1, 3: 1, 0: 3, 2: 4}


# ------------------------------------------------------------------ ratings
def test_ratings_reward_the_better_place_and_shrink_uncertainty() -> None:
    [[a], [b]] = ratings.rate([[ratings.PRIOR], [ratings.PRIOR]], [1, 2])
    assert a.mu > ratings.PRIOR.mu > b.mu and a.sigma < ratings.PRIOR.sigma
    assert a.ordinal == pytest.approx(a.mu - 3 * a.sigma)


def test_ratings_rate_teams_and_treat_a_tie_alike() -> None:
    [[a, c], [b, d]] = ratings.rate([[ratings.PRIOR, None], [ratings.PRIOR, ratings.PRIOR]], [1, 1])
    assert a == c and b == d and a.mu == pytest.approx(b.mu)
    with pytest.raises(ValueError):
        ratings.rate([[ratings.PRIOR]], [1])


# ------------------------------------------------------------------ replay check
def archive(run) -> list[Recorded]:
    return [e.recorded for e in run.events]


def without_tokens(room):
    """The room as the ledger knows it: hand.room-events carries no token hashes."""
    return replace(room, seats=tuple(replace(s, token_hash="") for s in room.seats))


async def test_a_fold_of_the_archive_is_the_live_room(scenario_runs) -> None:
    for run in scenario_runs.values():
        steps = fold(archive(run))
        assert steps[-1].room == without_tokens(run.room)


async def test_a_tampered_move_event_is_reported_at_its_seq(scenario_runs) -> None:
    events = archive(scenario_runs["most_outs"])
    moved = [i for i, e in enumerate(events) if isinstance(e.event, MoveMade)
             and any(isinstance(x, StockDrawn) for x in e.event.events)]
    i = random.Random(3).choice(moved)
    target = events[i]
    tampered = tuple(replace(x, card=(x.card + 1) % 104) if isinstance(x, StockDrawn) else x
                     for x in target.event.events)
    events[i] = replace(target, event=replace(target.event, events=tampered))
    result = check(events)
    assert not result.ok and result.mismatch_seq == target.seq and "StockDrawn" in result.mismatch


async def test_a_tampered_round_result_or_gap_is_reported(scenario_runs) -> None:
    events = archive(scenario_runs["partnership_hand"])
    i = next(k for k, e in enumerate(events) if isinstance(e.event, RoundScored))
    scored = events[i]
    result = scored.event.result
    seats = (replace(result.seats[0], score=result.seats[0].score + 1), *result.seats[1:])
    events[i] = replace(scored, event=replace(scored.event, result=replace(result, seats=seats)))
    assert check(events).mismatch_seq == scored.seq
    assert not check(archive(scenario_runs["shared"])[:3] + archive(scenario_runs["shared"])[4:]).ok


def test_a_tampered_event_survives_the_wire_and_is_still_caught(scenario_runs) -> None:
    """The check reads what the archive stores: the encoded event, decoded again."""
    events = list(scenario_runs["shared"].events)
    i = next(k for k, e in enumerate(events) if isinstance(e.recorded.event, RoundScored))
    rec = events[i].recorded
    bumped = replace(rec.event.result, multiplier=rec.event.result.multiplier + 1)
    events[i] = parse(encode(replace(rec, event=replace(rec.event, result=bumped))))
    assert check([e.recorded for e in events]).mismatch_seq == rec.seq
