"""The matchmaking pool's pure logic (hand_room/matchmaking/pool.py): widening ranges,
grouping by rating, bots after the limit, one ticket per player, cancel, the fold."""

from __future__ import annotations

import itertools

import pytest

from hand_table import RoomError
from hand_room.matchmaking.log import decode, encode
from hand_room.matchmaking.pool import (
    CANCELLED, MATCHED, SEATED, WAITING, Formed, Pool, Schedule, Seated, Ticket, apply, cancel, level_for, match,
    open_ticket,
)

SCHEDULE = Schedule(range_start=2, range_step=2, step_s=5, range_max=10, bot_fill_s=30,
                    quit_ladder_s=(0, 0, 60, 300, 900, 3600))


def _ids():
    n = itertools.count()
    return lambda: (f"g{next(n)}", f"r{next(n)}")


def _pool(seats: int = 2, *tickets: Ticket) -> Pool:
    pool = Pool("mm:hand:%d" % seats, "hand", seats)
    for t in tickets:
        apply(pool, open_ticket(pool, t))
    return pool


def _t(n: int, rating: float, at: float = 0.0, quits: int = 0, player: str | None = None) -> Ticket:
    return Ticket(f"t{n}", player or f"guest:p{n}", f"P{n}", rating, f"h{n}", at, quits=quits)


def _form(pool: Pool, now: float) -> list[Formed]:
    formed = match(pool, now, SCHEDULE, _ids())
    for f in formed:
        apply(pool, f)
    return formed


def test_the_range_widens_with_the_wait_up_to_its_max() -> None:
    assert [SCHEDULE.range_at(w) for w in (0, 4.9, 5, 12, 1000)] == [2, 2, 4, 6, 10]


def test_close_ratings_are_seated_at_once_far_ones_once_the_ranges_have_widened() -> None:
    near = _pool(2, _t(1, 10.0), _t(2, 11.5))
    assert len(_form(near, 0.0)) == 1  # 1.5 apart, both accept ±2
    pool = _pool(2, _t(1, 10.0), _t(2, 15.0))
    assert _form(pool, 1.0) == [] and _form(pool, 9.9) == []  # 5 apart: ±2, then ±4
    assert len(_form(pool, 10.0)) == 1  # after two steps both accept ±6


def test_two_tickets_match_when_each_is_within_the_others_range() -> None:
    pool = _pool(2, _t(1, 10.0, at=0.0), _t(2, 15.0, at=9.0))
    # at 10 s: t1 accepts ±6, t2 (waited 1 s) only ±2: no table
    assert _form(pool, 10.0) == []
    # at 24 s: t2 has waited 15 s (±8): both agree
    (formed,) = _form(pool, 24.0)
    assert formed.group.tickets == ("t1", "t2") and formed.group.bots == 0
    assert pool.tickets["t1"].status == MATCHED and pool.tickets["t2"].seat == 1


def test_the_closest_ratings_form_the_table_oldest_ticket_first() -> None:
    pool = _pool(3, _t(1, 10.0, at=0), _t(2, 30.0, at=1), _t(3, 11.0, at=2), _t(4, 9.0, at=3), _t(5, 12.0, at=4))
    (formed,) = _form(pool, 5.0)
    assert set(formed.group.tickets) == {"t1", "t3", "t4"}  # |Δ| 1 and 1; t5 (Δ 2) waits
    assert formed.group.tickets[0] == "t1"  # seat 0 (the host): the oldest
    assert pool.tickets["t5"].status == WAITING and pool.tickets["t2"].status == WAITING


def test_bots_fill_the_table_after_the_limit_at_a_matching_level() -> None:
    pool = _pool(4, _t(1, 20.0, at=0), _t(2, 21.0, at=1), _t(3, 40.0, at=2))
    assert _form(pool, 29.0) == []
    (formed,) = _form(pool, 30.0)  # t1 has waited 30 s: t2 fits, t3 (Δ 20 > ±10) does not
    assert formed.group.tickets == ("t1", "t2") and formed.group.bots == 2
    assert formed.group.level == level_for(20.5) == "strong"
    assert pool.tickets["t3"].status == WAITING
    (alone,) = _form(pool, 32.0)  # t3 has waited 30 s too: alone with three bots
    assert alone.group.tickets == ("t3",) and alone.group.bots == 3 and alone.group.level == "expert"


def test_a_recent_quitter_is_held_by_the_ladder_of_decision_0027() -> None:
    assert [SCHEDULE.delay(q) for q in range(8)] == [0, 0, 60, 300, 900, 3600, 3600, 3600]
    pool = _pool(2, _t(1, 10.0, at=0, quits=2), _t(2, 10.0, at=30))
    assert _form(pool, 59.0) == []  # two recent quits: held a minute before t1 counts at all
    (formed,) = _form(pool, 60.0)
    assert formed.group.tickets == ("t1", "t2")
    assert SCHEDULE.waited(pool.tickets["t1"], 65.0) == 5.0
    once = _pool(2, _t(3, 10.0, quits=1), _t(4, 10.0))
    assert len(_form(once, 0.0)) == 1  # one quit: anyone's connection drops once


def test_one_open_ticket_per_player() -> None:
    pool = _pool(2, _t(1, 10.0, player="acct:a"))
    with pytest.raises(RoomError) as info:
        open_ticket(pool, _t(2, 10.0, player="acct:a"))
    assert info.value.code == "TICKET_EXISTS" and info.value.params["ticket_id"] == "t1"
    apply(pool, cancel(pool, "t1", 1.0))
    apply(pool, open_ticket(pool, _t(3, 10.0, player="acct:a")))  # free again once cancelled
    assert open_ticket(_pool(2, _t(4, 1.0, player="")), _t(5, 1.0, player=""))  # no id: not one player


def test_cancel_withdraws_a_waiting_ticket_once_and_refuses_a_formed_one() -> None:
    pool = _pool(2, _t(1, 10.0), _t(2, 30.0), _t(3, 10.0))
    apply(pool, cancel(pool, "t2", 1.0))
    assert pool.tickets["t2"].status == CANCELLED and cancel(pool, "t2", 2.0) is None
    (formed,) = _form(pool, 40.0)
    assert "t2" not in formed.group.tickets
    with pytest.raises(RoomError) as info:
        cancel(pool, "t1", 41.0)
    assert info.value.code == "TICKET_SEATED" and info.value.params["room_id"] == formed.group.room_id
    with pytest.raises(RoomError) as info:
        cancel(pool, "nope", 41.0)
    assert info.value.code == "TICKET_NOT_FOUND"


def test_a_formed_table_is_seated_once_and_survives_a_fold_from_the_log() -> None:
    pool = _pool(2, _t(1, 10.0), _t(2, 10.0))
    log = [e for t in ("t1", "t2") for e in [open_ticket(Pool("x", "hand", 2), pool.tickets[t])]]
    (formed,) = _form(pool, 1.0)
    log.append(formed)
    again = Pool(pool.key, "hand", 2)  # a new owner folds the log: the table is unseated, no ticket waits
    for e in log:
        apply(again, decode(*encode(e)))
    assert again.unseated() == [formed.group] and again.waiting() == []
    assert match(again, 100.0, SCHEDULE, _ids()) == []  # never formed twice
    apply(again, Seated(formed.group.group_id, 2.0))
    assert again.unseated() == [] and {t.status for t in again.tickets.values()} == {SEATED}
    again.forget_closed(3.0)
    assert again.tickets == {} and again.groups == {}
